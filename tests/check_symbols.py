#!/usr/bin/env python3
"""The shared library exports exactly the functions the public header declares.

Usage: check_symbols.py LIBRARY HEADER [HEADER...]

Every `CLB_API` declaration in the HEADERs must be a defined dynamic symbol of
LIBRARY (`nm -D --defined-only`), and LIBRARY must export nothing else apart
from the symbols the toolchain itself adds. Prints the differences and exits
1 if there are any (libinput's symbols-leak-test, in Python)."""
import re
import subprocess
import sys

# Defined by the linker / C runtime in every shared object, not by our code.
TOOLCHAIN = {"_init", "_fini", "_edata", "_end", "__bss_start", "_DYNAMIC",
             "_GLOBAL_OFFSET_TABLE_", "_PROCEDURE_LINKAGE_TABLE_"}


def header_functions(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)   # block comments
    text = re.sub(r"//[^\n]*", " ", text)                # line comments
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)    # preprocessor lines (incl. the CLB_API defines)
    names = set()
    for decl in re.findall(r"\bCLB_API\b([^;{]*)", text):
        m = re.search(r"([A-Za-z_]\w*)\s*\(", decl)
        if not m:
            sys.exit(f"check_symbols: cannot parse the declaration 'CLB_API{decl.strip()}'")
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
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lib, headers = sys.argv[1], sys.argv[2:]
    header = " + ".join(headers)
    declared = set()
    for h in headers:
        declared |= header_functions(h)
    exported = library_symbols(lib)
    if not declared:
        sys.exit(f"check_symbols: no CLB_API declarations found in {header}")
    missing = sorted(declared - exported.keys())
    extra = sorted(exported.keys() - declared)
    not_functions = sorted(n for n in declared & exported.keys() if exported[n] not in ("T", "W", "i"))
    for n in missing:
        print(f"declared in {header} but not exported: {n}")
    for n in extra:
        print(f"exported but not declared with CLB_API: {n} ({exported[n]})")
    for n in not_functions:
        print(f"exported but not as a function: {n} ({exported[n]})")
    if missing or extra or not_functions:
        return 1
    print(f"{len(declared)} exported functions match the CLB_API declarations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
