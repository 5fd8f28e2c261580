"""MkDocs hook (mkdocs.yml `hooks:`): fills the generated parts of docs/ at build time, so the
tables cannot drift from the code.

  <!-- generated: backends -->     `tackc devices`: each backend's declared capabilities
  <!-- generated: environment -->  every TACK_* variable the code reads, documented from
                                   src/support/env.hpp, with the files that read it
  <!-- generated: builtins -->     the builtin table of src/builtins/builtins.cpp (math: ir.hpp),
                                   each row's signature and doc, read from the extension
                                   (python/tack/_tack, built with tackc)
  <!-- generated: methods -->      the method registry of src/builtins/builtins.cpp, likewise
  <!-- generated: rejections -->   every rejection golden of tests/golden/reject: the line and
                                   the exact error

TACKC names the tackc binary (default build/tools/tackc/tackc). A failure here fails the build.
"""

import os
import re
import subprocess
import sys

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


def environment_table():
    """One row per variable of the core's table (support::kEnvironment, in a user's words), with
    the files that read it."""
    readers = environment_readers()
    rows = ["| variable | what it does | read in |", "|---|---|---|"]
    for name, meaning in core()._environment():
        where = ", ".join(f"`{p}`" for p in sorted(readers.get(name, ())))
        rows.append(f"| `{name}` | {cell(meaning)} | {where} |")
    return "\n".join(rows)


def environment_readers():
    """{variable: files that name it in a string literal} over src/, python/ and tools/."""
    readers = {}
    for top in ("src", "python", "tools"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if not f.endswith((".cpp", ".hpp", ".py")) or f == "env_table.cpp":
                    continue
                path = os.path.join(d, f)
                text = open(path, encoding="utf-8").read()
                for name in set(re.findall(r"[\"'](TACK_[A-Z0-9_]+)[\"']", text)):
                    readers.setdefault(name, set()).add(os.path.relpath(path, ROOT))
    return readers


def core():
    """The extension the build put into python/tack: the builtin table is read from it, so the
    tables show what the compiler was built with (math rows included, from src/ir/ir.hpp)."""
    folder = os.path.join(ROOT, "python")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        from tack import _tack
    except ImportError as e:
        raise RuntimeError(f"docs: python/tack/_tack cannot be imported (build first): {e}") from e
    return _tack


def cell(text):
    return text.replace("|", "\\|")


def builtins_table():
    """One row per kind and doc: the signatures that share a sentence share the row."""
    t = core()
    rows = ["| kind | signature | meaning |", "|---|---|---|"]
    for category, title in t._builtin_categories():
        by_doc = {}
        for _name, cat, signature, doc, _module in t._builtins():
            if cat == category:
                by_doc.setdefault(doc, []).append(signature)
        for i, (doc, signatures) in enumerate(by_doc.items()):
            code = "<br>".join(f"`{cell(s)}`" for s in signatures)
            rows.append(f"| {title if i == 0 else ''} | {code} | {cell(doc)} |")
    if len(rows) == 2:
        raise RuntimeError("docs: _tack._builtins() listed no builtin")
    types = "\n".join(f"- `{name}`: {meaning}" for name, meaning in t._builtin_types())
    return "\n".join(rows) + f"\n\nThe types of the signatures:\n\n{types}"


def methods_table():
    t = core()
    rows = ["| method | on | meaning |", "|---|---|---|"]
    for _name, receiver, signature, doc in t._builtin_methods():
        rows.append(f"| `{cell(signature)}` | {receiver} | {cell(doc)} |")
    if len(rows) == 2:
        raise RuntimeError("docs: _tack._builtin_methods() listed no method")
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
