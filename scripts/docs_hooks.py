"""MkDocs hook (mkdocs.yml `hooks:`): fills the generated parts of docs/ at build time, so the
tables cannot drift from the code.

  <!-- generated: backends -->     `tackc devices`: each backend's declared capabilities
  <!-- generated: environment -->  every TACK_* variable the code reads, documented from
                                   src/support/env.hpp, with the files that read it
  <!-- generated: builtins -->     the builtins table of src/builtins/builtins.cpp (math: ir.hpp)
  <!-- generated: methods -->      the method registry of src/builtins/builtins.cpp
  <!-- generated: rejections -->   every rejection golden of tests/golden/reject: the line and
                                   the exact error

TACKC names the tackc binary (default build/tools/tackc/tackc). A failure here fails the build.
"""

import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tackc():
    path = os.environ.get("TACKC", os.path.join(ROOT, "build", "tools", "tackc", "tackc"))
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"docs: {path} not found (build first, or set TACKC)")
    return path


def backends_table():
    env = dict(os.environ, TACK_CACHE_DIR="off")
    out = subprocess.run([tackc(), "devices"], env=env, check=True, capture_output=True,
                         text=True).stdout
    backends, current = [], None
    for line in out.splitlines():
        m = re.match(r"^(\w+) \(([^)]*)\): (available|unavailable)(?:: (.*))?$", line)
        if m:
            current = {"name": m[1], "display": m[2], "status": m[3], "why": m[4] or "",
                       "caps": {}}
            backends.append(current)
        elif current and line.startswith("  ") and ":" in line:
            key, value = line.strip().split(":", 1)
            current["caps"][key] = value.strip()
    if not backends:
        raise RuntimeError("docs: `tackc devices` listed no backend")
    keys = []
    for b in backends:
        keys += [k for k in b["caps"] if k not in keys]
    head = "| | " + " | ".join(f"`{b['name']}` ({b['display']})" for b in backends) + " |"
    rows = [head, "|---" * (len(backends) + 1) + "|"]
    rows.append("| on this machine | " + " | ".join(
        "available" if b["status"] == "available" else "unavailable" for b in backends) + " |")
    for k in keys:
        rows.append(f"| {k} | " + " | ".join(
            b["caps"].get(k, "—").replace("|", "\\|") for b in backends) + " |")
    notes = [f"- `{b['name']}`: {b['why']}" for b in backends if b["status"] != "available"]
    text = "\n".join(rows)
    if notes:
        text += ("\n\nA backend that cannot open here has no row of capabilities (they are read "
                 "from the device):\n\n" + "\n".join(notes))
    return text


def doc_comments(path):
    """(comment text, following declaration) for each /// block of a header."""
    blocks, lines = [], open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip().startswith("///"):
            text = []
            while i < len(lines) and lines[i].strip().startswith("///"):
                text.append(lines[i].strip()[3:].strip())
                i += 1
            blocks.append((" ".join(text), lines[i].strip() if i < len(lines) else ""))
        i += 1
    return blocks


def environment_table():
    readers = {}
    for top in ("src", "python", "tools"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if not f.endswith((".cpp", ".hpp", ".py")):
                    continue
                path = os.path.join(d, f)
                text = open(path, encoding="utf-8").read()
                for name in set(re.findall(r"[\"'](TACK_[A-Z0-9_]+)[\"']", text)):
                    readers.setdefault(name, set()).add(os.path.relpath(path, ROOT))
    docs = doc_comments(os.path.join(ROOT, "src", "support", "env.hpp"))
    rows = ["| variable | meaning (from `src/support/env.hpp`) | read in |", "|---|---|---|"]
    for name in sorted(readers):
        own = [t for t, _ in docs if re.search(rf"\b{name}\b", t.split(".")[0])]
        any_ = [t for t, _ in docs if re.search(rf"\b{name}\b", t)]
        text = (own or any_ or ["(no comment in env.hpp)"])[0]
        where = ", ".join(f"`{p}`" for p in sorted(readers[name]))
        text = text.replace("|", "\\|")
        rows.append(f"| `{name}` | {text} | {where} |")
    return "\n".join(rows)


def builtins_table():
    text = open(os.path.join(ROOT, "src", "builtins", "builtins.cpp"), encoding="utf-8").read()
    groups = {}
    for kind, name in re.findall(r"\b(math|helper|cast|atomic|block_reduce)\(\"([\w.]+)\"", text):
        groups.setdefault(kind, []).append(name)
    # The math rows come from the IR's list (TACK_IR_MATH in src/ir/ir.hpp): X(Enum, name, arity).
    ir_text = open(os.path.join(ROOT, "src", "ir", "ir.hpp"), encoding="utf-8").read()
    math_list = ir_text[ir_text.index("#define TACK_IR_MATH(X)"):]
    math_list = math_list[: math_list.index("// clang-format on")]
    groups["math"] = re.findall(r"X\(\w+, (\w+), \d\)", math_list)
    for name, cat in re.findall(r"(?:pure\(|Builtin\{)\"([\w.]+)\", C::(\w+)", text):
        groups.setdefault(cat, []).append(name)
    titles = {"math": "math functions", "helper": "shading helpers (tack.math)", "cast": "casts",
              "atomic": "atomics", "block_reduce": "workgroup reductions",
              "MinMax": "min and max (two or more arguments)", "Alloc": "local and shared arrays",
              "Workgroup": "workgroup lanes", "Range": "loops", "Construct": "vectors and matrices",
              "Truth": "mask reductions", "Select": "per-component choice", "Len": "length",
              "Print": "printing", "Constant": "constants (module level)"}
    rows = ["| kind | builtins |", "|---|---|"]
    for kind in sorted(groups, key=lambda k: titles.get(k, k.lower())):
        names = ", ".join(f"`{n}`" for n in sorted(groups[kind]))
        rows.append(f"| {titles.get(kind, kind.lower())} | {names} |")
    return "\n".join(rows)


def methods_table():
    text = open(os.path.join(ROOT, "src", "builtins", "builtins.cpp"), encoding="utf-8").read()
    found = re.findall(r'Method\{"(\w+)", Receiver::(\w+), (\d+), (\d+)\}', text)
    if not found:
        raise RuntimeError("docs: no Method rows in src/builtins/builtins.cpp")
    names = {"Vector": "vectors", "Matrix": "matrices", "VectorOrMatrix": "vectors and matrices",
             "Texture": "textures"}
    rows = ["| method | on | arguments |", "|---|---|---|"]
    for name, receiver, lo, hi in found:
        count = lo if lo == hi else f"{lo} or {hi}"
        rows.append(f"| `{name}` | {names.get(receiver, receiver)} | {count} |")
    return "\n".join(rows)


def rejections_table():
    folder = os.path.join(ROOT, "tests", "golden", "reject")
    rows = ["| case | the offending line | the error |", "|---|---|---|"]
    for name in sorted(f for f in os.listdir(folder) if f.endswith(".expected")):
        lines = open(os.path.join(folder, name), encoding="utf-8").read().splitlines()
        m = re.match(r"^[^:]+:\d+:\d+: (\w+): (.*)$", lines[0]) if lines else None
        if not m:
            raise RuntimeError(f"docs: cannot read {name}")
        source = lines[1].strip() if len(lines) > 1 else ""
        cells = [name[: -len(".expected")].replace("_", " "), f"`{source}`" if source else "",
                 f"{m[1]}: {m[2]}"]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)


GENERATORS = {"backends": backends_table, "environment": environment_table,
              "builtins": builtins_table, "rejections": rejections_table,
              "methods": methods_table}


def on_page_markdown(markdown, page, config, files):
    def fill(m):
        return GENERATORS[m[1]]()

    return re.sub(r"<!-- generated: (\w+) -->", fill, markdown)
