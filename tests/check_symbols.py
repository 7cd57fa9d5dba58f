#!/usr/bin/env python3
"""The shared library exports exactly the functions the public header declares.

Usage: check_symbols.py [--macro NAME] LIBRARY HEADER [HEADER...]

Every `CLB_API` (or NAME: CLB_STARPU_API for the StarPU adapter) declaration in the HEADERs must be a defined dynamic symbol of
LIBRARY (`nm -D --defined-only`), and LIBRARY must export nothing else apart
from the symbols the toolchain itself adds. Prints the differences and exits
1 if there are any (libinput's symbols-leak-test, in Python)."""
import re
import subprocess
import sys

# Defined by the linker / C runtime in every shared object, not by our code.
TOOLCHAIN = {"_init", "_fini", "_edata", "_end", "__bss_start", "_DYNAMIC",
             "_GLOBAL_OFFSET_TABLE_", "_PROCEDURE_LINKAGE_TABLE_"}


MACRO = "CLB_API"


def header_functions(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)   # block comments
    text = re.sub(r"//[^\n]*", " ", text)                # line comments
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)    # preprocessor lines (incl. the CLB_API defines)
    names = set()
    for decl in re.findall(r"\b" + MACRO + r"\b([^;{]*)", text):
        m = re.search(r"([A-Za-z_]\w*)\s*\(", decl)
        if not m:
            sys.exit(f"check_symbols: cannot parse the declaration '{MACRO}{decl.strip()}'")
        names.add(m.group(1))
    return names


def library_symbols(path):
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", path], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"check_symbols: nm failed on {path}: {e}")
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        name = name.split("@")[0]  # symbol versions
        if kind in ("A",) or name in TOOLCHAIN or not name:
            continue
        syms[name] = kind
    return syms


def main():
    global MACRO
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "--macro":
        MACRO, args = args[1], args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    lib, headers = args[0], args[1:]
    header = " + ".join(headers)
    declared = set()
    for h in headers:
        declared |= header_functions(h)
    exported = library_symbols(lib)
    if not declared:
        sys.exit(f"check_symbols: no {MACRO} declarations found in {header}")
    missing = sorted(declared - exported.keys())
    extra = sorted(exported.keys() - declared)
    not_functions = sorted(n for n in declared & exported.keys() if exported[n] not in ("T", "W", "i"))
    for n in missing:
        print(f"declared in {header} but not exported: {n}")
    for n in extra:
        print(f"exported but not declared with {MACRO}: {n} ({exported[n]})")
    for n in not_functions:
        print(f"exported but not as a function: {n} ({exported[n]})")
    if missing or extra or not_functions:
        return 1
    print(f"{len(declared)} exported functions match the {MACRO} declarations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
