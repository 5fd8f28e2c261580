"""Runs every code block of docs/ and checks its output (part of `make test`, via `make docs`).

A page's blocks run in order in one fresh directory, each in a new process:
  ```python  runs with the tack package (PYTHONPATH=python) in .venv-docs (numpy, mpi4py);
  ```sh      runs under bash, with `tackc` on PATH and TACK_PREFIX naming an install of the tree.
Stdout and stderr together must equal the ```text block that directly follows, if there is one;
a run exiting non-zero fails unless the block is marked. Marks are an HTML comment on the line
just above the opening fence (invisible in the rendered page):
  <!-- file: NAME -->     write the block to NAME in the page's directory instead of running it
  <!-- exit: N -->        the run must exit with status N
  <!-- norun: REASON -->  do not run (installs, MPI launches covered by make scaleout, ...)
Blocks of other languages must carry `file:` or `norun:`, so no example goes unchecked by
accident.

    python tests/docs/run_blocks.py --build build [--update] [PAGE.md ...]

--update rewrites each expected ```text block with what the run printed.
"""

import argparse
import concurrent.futures
import dataclasses
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+)(?P<info>[^`]*)$")
MARK = re.compile(r"^\s*<!--\s*(?P<kind>file|exit|norun):\s*(?P<value>.*?)\s*-->\s*$")
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$')
RUNNABLE = {"python", "sh"}


@dataclasses.dataclass
class Block:
    lang: str
    body: str
    line: int  # 1-based line of the opening fence
    mark: tuple = None  # (kind, value)
    output: "Block" = None
    span: tuple = (0, 0)  # lines [start, end) of the body, 0-based


def snippet(line):
    """A pymdownx.snippets line (`--8<-- "path"`, relative to the repository) as the file's text,
    so an included example runs as what the page shows."""
    m = SNIPPET.match(line)
    if not m:
        return line
    return open(os.path.join(ROOT, m[1]), encoding="utf-8").read().rstrip("\n")


def parse(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = len(m["indent"]), m["fence"]
        lang = m["info"].strip().split(" ")[0] if m["info"].strip() else ""
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            j += 1
        body = "\n".join(snippet(ln[indent:]) for ln in lines[i + 1 : j])
        mark = MARK.match(lines[i - 1]) if i > 0 else None
        blocks.append(Block(lang, body + "\n" if body else "", i + 1,
                            (mark["kind"], mark["value"]) if mark else None, None, (i + 1, j)))
        i = j + 1
    # A ```text block right after a runnable one (blank lines between) is its expected output.
    out = []
    for b in blocks:
        prev = out[-1] if out else None
        gap = lines[prev.span[1] + 1 : b.line - 1] if prev else None
        if (b.lang == "text" and prev and prev.lang in RUNNABLE and prev.output is None
                and not any(s.strip() for s in gap)):
            prev.output = b
            continue
        out.append(b)
    return lines, out


def environment(args, workdir):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    env["PATH"] = os.path.join(args.build, "tools", "tackc") + os.pathsep + env["PATH"]
    env["TACK_CACHE_DIR"] = os.path.join(workdir, ".cache")
    env["TACK_PREFIX"] = args.prefix or ""
    env["TACK_REPO"] = ROOT
    for name in ("TACK_CPU_THREADS", "TACK_CPU_POLICY", "TACK_OPENCL_DEVICE", "TACK_DEBUG"):
        env.pop(name, None)
    return env


def run_block(args, block, workdir):
    if block.lang == "python":
        # A file, not `python -c`: kernels need their source (inspect.getsource).
        with open(os.path.join(workdir, "example.py"), "w", encoding="utf-8") as f:
            f.write(block.body)
        cmd = [args.python, "example.py"]
    else:
        cmd = ["bash", "-euo", "pipefail", "-c", block.body]
    p = subprocess.run(cmd, cwd=workdir, env=environment(args, workdir), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=300)
    # Paths in messages read as the reader's own: relative to the page's directory.
    return p.returncode, p.stdout.replace(os.path.realpath(workdir) + "/", "").replace(
        workdir + "/", "")


def normalized(text):
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n"))


def check_page(args, path):
    """Returns (failures, blocks run, updated text or None)."""
    lines, blocks = parse(path)
    rel = os.path.relpath(path, ROOT)
    failures, ran, edits = [], 0, []
    with tempfile.TemporaryDirectory(prefix="tack-docs-") as workdir:
        for b in blocks:
            where = f"{rel}:{b.line}"
            kind, value = b.mark or (None, None)
            if kind == "norun":
                continue
            if kind == "file":
                with open(os.path.join(workdir, value), "w", encoding="utf-8") as f:
                    f.write(b.body)
                continue
            if b.lang not in RUNNABLE:
                if b.lang != "text":
                    failures.append(f"{where}: ```{b.lang} block without a file: or norun: mark")
                continue
            ran += 1
            code, got = run_block(args, b, workdir)
            want_code = int(value) if kind == "exit" else 0
            if code != want_code:
                failures.append(f"{where}: exit status {code}, expected {want_code}\n{got}")
                continue
            if b.output is not None:
                if args.update:
                    edits.append((b.output.span, got))
                elif normalized(got) != normalized(b.output.body):
                    failures.append(f"{where}: output differs\n--- expected\n{b.output.body}"
                                    f"--- got\n{got}")
            elif got.strip() and args.update:
                failures.append(f"{where}: printed output but has no ```text block after it")
    if not edits:
        return failures, ran, None
    for (start, end), text in reversed(edits):
        lines[start:end] = normalized(text).split("\n")
    return failures, ran, "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="*")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--prefix", default=None, help="an install of the tree (C++ examples)")
    parser.add_argument("--python", default=os.path.join(ROOT, ".venv-docs", "bin", "python"))
    parser.add_argument("--update", action="store_true")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args()
    args.build = os.path.abspath(args.build)
    args.python = os.path.abspath(args.python)
    pages = args.pages or sorted(
        os.path.join(d, f) for d, _, fs in os.walk(os.path.join(ROOT, "docs"))
        for f in fs if f.endswith(".md"))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda p: (p, *check_page(args, p)), pages))
    failed = passed = 0
    for path, failures, ran, updated in results:
        if updated is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(updated)
        for msg in failures:
            print(f"FAIL {msg}")
        failed += len(failures)
        passed += ran - len([m for m in failures if "without a file: or norun:" not in m])
    print(f"docs code blocks: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
