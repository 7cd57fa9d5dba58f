#!/usr/bin/env python3
"""The source tree's floors (docs/internals.md, "Floors"), checked.

usage: tools/check_layers.py [SRC_DIR]      (default: src/ next to this file)

Reads every .c and .h under SRC_DIR as text (comments and strings removed)
and fails, listing what it found, on:
  - a circle of calls between .c files: file A uses a function or variable
    that file B defines, and B, directly or through others, one of A's;
  - a circle of #include "..." between files;
  - an arrow that points up: a file using what a folder above its own
    defines (floors, bottom first: core, cpu, expr, then host and opencl side by
    side, which never use each other, then ops);
  - an arrow that points up also by a type (a typedef, struct, union or enum
    tag, forward declarations included) or by an #include of a header that
    lives on a floor above;
  - an op naming a backend: a file of ops/ using anything of host/ or opencl/
    but what a header of core/ declares (a context's init, the device list);
  - <CL/...> or <clblast_c.h> included outside SRC_DIR/opencl.
Prints one line per finding and a closing "N passed, N failed" over the
rules; exits 1 on any finding. The build keeps the floors too (src/meson.build
compiles each with the include paths of the floors below it only).

usage: tools/check_layers.py --self-test

Plants one fault of each kind in a temporary tree and checks that each is
found, and nothing else.

usage: tools/check_layers.py --circles DIR...   (cli/, bench/, tests/)

Reads every .c and .h under each DIR and fails on a circle between its rooms
(a room: a .c file and the .h of the same name beside it): room A uses room B
when a file of A includes a file of B, calls a function B defines (any name,
not only clb_*), or names a variable B defines. Functions defined in several
rooms (each program's main, the fuzz targets' entry) tie no room to another.
"""
import os
import re
import sys

FLOORS = {"core": 0, "cpu": 1, "expr": 2, "host": 3, "opencl": 3, "ops": 4}
OPENCL_HEADER = re.compile(r'#\s*include\s*<(CL/[^>]+|clblast_c\.h)>')
INCLUDE = re.compile(r'#\s*include\s*"([^"]+)"')
DEFINE_FN = re.compile(r'^(?!static\b)(?!typedef\b)(?!extern\b)[A-Za-z_][\w \t\*]*?\b(clb_\w+)\s*\(([^;{}]*)\)\s*\{',
                       re.M)
DEFINE_VAR = re.compile(r'^(?!static\b)(?!typedef\b)(?!extern\b)(?:_Atomic\s+)?[A-Za-z_][\w \t\*]*?\b(clb_\w+)\s*(?:=[^;]*)?;',
                        re.M)
IDENT = re.compile(r'\bclb_\w+\b')
# Types: a typedef's name (after a body, a plain one, a function pointer's) and a
# struct / union / enum tag defined with a body.
DEFINE_TYPES = [re.compile(r'\}\s*(clb_\w+)\s*;'),
                re.compile(r'\btypedef\s+[^;{}()]*?\b(clb_\w+)\s*;'),
                re.compile(r'\btypedef\s+[^;{}]*?\(\s*\*\s*(clb_\w+)\s*\)'),
                re.compile(r'\b(?:struct|union|enum)\s+(clb_\w+)\s*\{')]


def strip(text):
    """Removes comments, string and character literals (keeps line breaks)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def floor_of(rel):
    top = rel.split(os.sep)[0]
    return top if top in FLOORS else None


def sccs(graph):
    """Tarjan's strongly connected components of {node: set(nodes)}."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    findings = check(os.path.normpath(root))
    passed = failed = 0
    for rule, found in findings.items():
        if found:
            failed += 1
            for line in found:
                print(f"FAIL {rule}: {line}")
        else:
            passed += 1
            print(f"ok   {rule}: none")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def check(root):
    """The findings of every rule over the tree at root: {rule: [lines]}."""
    files = {}
    for d, _, names in os.walk(root):
        for name in names:
            if name.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(d, name), root)
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    files[rel] = f.read()
    by_base = {}
    for rel in files:
        by_base.setdefault(os.path.basename(rel), []).append(rel)

    findings = {"call circles": [], "include circles": [], "arrows up": [], "OpenCL headers": [],
                "forbidden calls": [], "ops naming a backend": []}

    # NVIDIA's driver gets large clEnqueueFillBuffer fills wrong: fills run through
    # cl/fill.cl (clb__cl_fill), and no source calls it.
    for rel, text in sorted(files.items()):
        if re.search(r"\bclEnqueueFillBuffer\s*\(", strip(text)):
            findings["forbidden calls"].append(f"{rel} calls clEnqueueFillBuffer; use clb__cl_fill")

    # OpenCL headers
    for rel, text in sorted(files.items()):
        if OPENCL_HEADER.search(strip_keep_includes(text)) and floor_of(rel) != "opencl":
            findings["OpenCL headers"].append(f"{rel} includes an OpenCL header outside opencl/")

    # includes
    inc = {}
    for rel, text in files.items():
        for m in INCLUDE.finditer(text):
            target = os.path.basename(m.group(1))
            for t in by_base.get(target, []):
                if t != rel:
                    inc.setdefault(rel, set()).add(t)
    for comp in sccs(inc):
        if len(comp) > 1:
            findings["include circles"].append("include circle: " + " -> ".join(comp))

    # definitions and uses (.c files)
    code = {rel: strip(text) for rel, text in files.items() if rel.endswith(".c")}
    # A name may have alternative definitions (one per build configuration,
    # as cl_device.c and host/host_device_none.c): a file that defines it uses none of them.
    defined = {}
    for rel, text in code.items():
        for m in list(DEFINE_FN.finditer(text)) + list(DEFINE_VAR.finditer(text)):
            defined.setdefault(m.group(1), set()).add(rel)
    uses, why = {}, {}
    for rel, text in code.items():
        for name in set(IDENT.findall(text)):
            owners = defined.get(name, set())
            if rel in owners:
                continue
            for owner in owners:
                uses.setdefault(rel, set()).add(owner)
                why.setdefault((rel, owner), set()).add(name)
    for comp in sccs(uses):
        if len(comp) > 1:
            members = set(comp)
            arrows = [f"{a} -> {b} ({', '.join(sorted(why[(a, b)])[:4])})"
                      for a in comp for b in sorted(uses.get(a, ())) if b in members]
            findings["call circles"].append(f"call circle of {len(comp)} files: " + "; ".join(arrows))
    # types, in headers and sources alike: a type named on a floor below its own
    # (a forward declaration `struct clb__x;` names it too)
    typed = {}
    for rel, text in files.items():
        for rx in DEFINE_TYPES:
            for m in rx.finditer(strip(text)):
                typed.setdefault(m.group(1), set()).add(rel)
    for rel, text in files.items():
        for name in set(IDENT.findall(strip(text))):
            for owner in typed.get(name, set()) - {rel}:
                if rel not in typed.get(name, set()):
                    uses_types = why.setdefault((rel, owner), set())
                    uses_types.add(name)
    # includes: a header found in a floor above (by the name the include writes)
    for rel, targets in sorted(inc.items()):
        for t in sorted(targets):
            why.setdefault((rel, t), set()).add("#include " + os.path.basename(t))
    for (a, b), names in sorted(why.items()):
        fa, fb = floor_of(a), floor_of(b)
        if fa is None or fb is None or fa == fb:
            continue
        up = FLOORS[fb] > FLOORS[fa] or (FLOORS[fb] == FLOORS[fa] and fa != fb)
        if up:
            findings["arrows up"].append(f"{a} ({fa}) uses {b} ({fb}): {', '.join(sorted(names)[:4])}")

    # An op never names a backend: from ops/, nothing of host/ or opencl/ but the
    # entry points that core's headers declare (a context's init, device lookup).
    core_declared = set()
    for rel, text in files.items():
        if floor_of(rel) == "core" and rel.endswith(".h"):
            core_declared |= set(IDENT.findall(strip(text)))
    for (a, b), names in sorted(why.items()):
        if floor_of(a) == "ops" and floor_of(b) in ("host", "opencl"):
            named = sorted(n for n in names if n.startswith("#include") or n not in core_declared)
            if named:
                findings["ops naming a backend"].append(f"{a} uses {b}: {', '.join(named[:4])}")
    return findings


def strip_keep_includes(text):
    """Comments removed, #include lines kept whole (their <...> is what is checked)."""
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
IDENT_ANY = re.compile(r"\b[A-Za-z_]\w*\b")
DEFINE_ANY_FN = re.compile(r"^(?!static\b)(?!typedef\b)(?!extern\b)(?!return\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)"
                           r"\s*\(([^;{}]*)\)\s*\{", re.M)
DEFINE_ANY_VAR = re.compile(r"^(?!static\b)(?!typedef\b)(?!extern\b)(?!return\b)(?:const\s+)?[A-Za-z_]\w*"
                            r"[\s\*]+(?:const\s+)?([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:=[^;]*)?;", re.M)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "default"}


def room_of(rel):
    """A .c file and the .h of the same name in its folder are one room."""
    return os.path.splitext(rel)[0]


def circles(root):
    """Circles between the rooms of one tree (cli/, bench/, tests/): findings."""
    files = {}
    for d, _, names in os.walk(root):
        for name in names:
            if name.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(d, name), root)
                with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                    files[rel] = f.read()
    by_base = {}
    for rel in files:
        by_base.setdefault(os.path.basename(rel), []).append(rel)
    uses, why = {}, {}

    def tie(a, b, name):
        ra, rb = room_of(a), room_of(b)
        if ra != rb:
            uses.setdefault(ra, set()).add(rb)
            why.setdefault((ra, rb), set()).add(name)

    for rel, text in files.items():
        for m in INCLUDE.finditer(strip_keep_includes(text)):
            near = os.path.normpath(os.path.join(os.path.dirname(rel), m.group(1)))
            rooted = os.path.normpath(m.group(1))
            targets = [near] if near in files else [rooted] if rooted in files \
                else by_base.get(os.path.basename(m.group(1)), [])
            for t in targets:
                tie(rel, t, "#include " + m.group(1))
    code = {rel: strip(text) for rel, text in files.items() if rel.endswith(".c")}
    fns, variables = {}, {}
    for rel, text in code.items():
        for m in DEFINE_ANY_FN.finditer(text):
            if m.group(1) not in KEYWORDS:
                fns.setdefault(m.group(1), set()).add(rel)
        for m in DEFINE_ANY_VAR.finditer(text):
            variables.setdefault(m.group(1), set()).add(rel)
    for rel, text in code.items():
        called = set(CALL.findall(text))
        named = set(IDENT_ANY.findall(text))
        for name in called:
            owners = fns.get(name, set())
            if len(owners) == 1 and rel not in owners:
                tie(rel, next(iter(owners)), name)
        for name in named & variables.keys():
            owners = variables[name]
            if len(owners) == 1 and rel not in owners:
                tie(rel, next(iter(owners)), name)
    found = []
    for comp in sccs(uses):
        if len(comp) > 1:
            members = set(comp)
            arrows = [f"{a} -> {b} ({', '.join(sorted(why[(a, b)])[:4])})"
                      for a in comp for b in sorted(uses.get(a, ())) if b in members]
            found.append(f"{root}: circle of {len(comp)} rooms: " + "; ".join(arrows))
    return found, len({room_of(r) for r in files})


def circles_main(dirs):
    failed = 0
    for root in dirs:
        found, rooms = circles(os.path.normpath(root))
        for line in found:
            print(f"FAIL circles: {line}")
        if not found:
            print(f"ok   circles: none among the {rooms} rooms of {root}")
        failed += bool(found)
    print(f"{len(dirs) - failed} passed, {failed} failed")
    return 1 if failed else 0


# The self-test's tree: each file breaks one rule (and nothing else does).
SELF_TEST_TREE = {
    "core/base.h": "typedef struct clb__base { int x; } clb__base;\n",
    "core/uses_type.h": "#include \"base.h\"\nstruct clb__tree;\nint clb__walk(const struct clb__tree *t);\n",
    "core/uses_header.c": "#include \"tree.h\"\nint clb__size(void) { return 1; }\n",
    "expr/tree.h": "typedef struct clb__tree { int n; } clb__tree;\n",
    "host/host_x.c": "#include <CL/cl.h>\nint clb__host_x(void) { return clb__cl_x(); }\n",
    "opencl/cl_x.c": "int clb__cl_x(void) { return 0; }\n",
    "ops/op_x.c": "int clb_op_x(void) { return clb__cl_x(); }\n",
    "ops/op_y.c": "int clb_op_y(void) { return clb_op_z(); }\n",
    "ops/op_z.c": "int clb_op_z(void) { return clb_op_y(); }\n",
}
SELF_TEST_EXPECT = {
    "arrows up": ["core/uses_type.h (core) uses expr/tree.h (expr): clb__tree",
                  "core/uses_header.c (core) uses expr/tree.h (expr): #include tree.h",
                  "host/host_x.c (host) uses opencl/cl_x.c (opencl): clb__cl_x"],
    "OpenCL headers": ["host/host_x.c includes an OpenCL header outside opencl/"],
    "ops naming a backend": ["ops/op_x.c uses opencl/cl_x.c: clb__cl_x"],
    "call circles": ["ops/op_y.c", "ops/op_z.c"],
}


def self_test():
    """Runs the rules over a small tree with one fault of each kind: every fault
    must be found, and nothing else."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for rel, text in SELF_TEST_TREE.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        findings = check(root)
    failed = 0
    for rule, found in findings.items():
        text = "\n".join(found)
        wanted = SELF_TEST_EXPECT.get(rule, [])
        missing = [w for w in wanted if w not in text]
        extra = bool(found) and not wanted
        if missing or extra:
            failed += 1
            print(f"FAIL self-test {rule}: missing {missing}, found {found}")
        else:
            print(f"ok   self-test {rule}: {len(found)} finding(s) as planted")
    print(f"self-test: {len(findings) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    if len(sys.argv) > 1 and sys.argv[1] == "--circles":
        sys.exit(circles_main(sys.argv[2:]))
    sys.exit(main(sys.argv))
