"""Runs the public Tack tests (a checkout of berkgeveci/tack) against this package.

    python tests/public/run_public.py CHECKOUT [pytest args]
    python tests/public/run_public.py --status OUT.md CHECKOUT [test files or dirs]
    python tests/public/run_public.py --deselect-file internals.txt CHECKOUT [pytest args]

The first form is one pytest run over CHECKOUT/packages/tack-core/tests (or the paths among
the pytest args). The second runs each test file in its own pytest process (so a crash or a
hang costs one file) and writes a markdown table of passed / failed / errors / skipped per
file, with the first line of each failure, to OUT.md. --deselect-file names a file of node ids (or
their prefixes), one a line, each followed by `# why`: those tests do not run (internals.txt:
the tests of the Python implementation's internals).

The package under test is TACK_PACKAGE_PATH (a folder holding `tack/`), default this
repository's python/. The checkout's own packages/*/src never goes on the path, unless named in
TACK_PUBLIC_EXTRA_PATH (appended after our package: e.g. CHECKOUT/packages/tack-vis/src to run
the tack-vis tests on top of our core; its `tack/__init__.py` is shadowed by ours).
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TEST_DIR = "packages/tack-core/tests"
FILE_TIMEOUT_S = int(os.environ.get("TACK_PUBLIC_FILE_TIMEOUT", "900"))


def _env():
    package = os.environ.get("TACK_PACKAGE_PATH", str(ROOT / "python"))
    env = dict(os.environ)
    extra = os.environ.get("TACK_PUBLIC_EXTRA_PATH", "")
    env["PYTHONPATH"] = os.pathsep.join(p for p in [package, str(HERE), extra] if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave the checkout as it was
    env.pop("TACK_NO_REINIT", None)
    env.setdefault("TACK_CACHE_DIR", tempfile.mkdtemp(prefix="tack-public-cache-"))
    return env


def _pytest_command(checkout, args):
    return [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        str(HERE / "pytest.ini"),
        "--rootdir",
        str(checkout),
        "--confcutdir",
        str(checkout / TEST_DIR),
        "-p",
        "tack_public_plugin",
        *args,
    ]


def _run(checkout, args, deselect=()):
    paths = [a for a in args if not a.startswith("-") and (checkout / a).exists()]
    if not paths:
        args = [*args, str(checkout / TEST_DIR)]
    command = _pytest_command(checkout, [*args, *deselect])
    return subprocess.call(command, cwd=checkout, env=_env())


def _first_line(case):
    for tag in ("failure", "error"):
        node = case.find(tag)
        if node is not None:
            text = (node.get("message") or node.text or "").strip()
            return tag, " ".join(text.splitlines()[:1])[:240]
    return None, None


def _run_file(checkout, path, env):
    with tempfile.TemporaryDirectory() as tmp:
        xml = pathlib.Path(tmp) / "r.xml"
        cmd = _pytest_command(
            checkout, ["-q", "--junitxml", str(xml), "-o", "junit_family=xunit1", str(path)]
        )
        try:
            proc = subprocess.run(
                cmd, cwd=checkout, env=env, capture_output=True, text=True, timeout=FILE_TIMEOUT_S
            )
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:]
        except subprocess.TimeoutExpired:
            return {"crash": f"file timed out after {FILE_TIMEOUT_S} s"}, []
        if not xml.exists():
            return {"crash": f"no report (rc {proc.returncode}): {' '.join(tail)}"}, []
        suite = ET.parse(xml).getroot()
        suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
        counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
        failures = []
        for case in suite.iter("testcase"):
            kind, line = _first_line(case)
            if kind == "failure":
                counts["failed"] += 1
            elif kind == "error":
                counts["errors"] += 1
            elif case.find("skipped") is not None:
                counts["skipped"] += 1
                continue
            else:
                counts["passed"] += 1
                continue
            failures.append((case.get("name"), kind, line))
        if proc.returncode not in (0, 1, 5):
            counts["crash"] = f"rc {proc.returncode}: {' '.join(tail)}"
        return counts, failures


def _status(out, checkout, paths):
    files = []
    for p in paths or [checkout / TEST_DIR]:
        p = pathlib.Path(p)
        files += sorted(p.glob("test_*.py")) if p.is_dir() else [p]
    env = _env()
    rows, details = [], []
    total = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    for f in files:
        counts, failures = _run_file(checkout, f, env)
        for k in total:
            total[k] += counts.get(k, 0)
        cells = [str(counts.get(k, "-")) for k in total]
        rows.append(f"| {f.name} | {' | '.join(cells)} | {counts.get('crash', '')} |")
        details += [f"- `{f.name}::{name}` ({kind}): {line}" for name, kind, line in failures]
        print(rows[-1], flush=True)
    header = ["| file | passed | failed | errors | skipped | note |", "|---|---|---|---|---|---|"]
    summary = f"| **total** | {' | '.join(str(v) for v in total.values())} | |"
    text = "\n".join([*header, *rows, summary, "", "## Failures", "", *details, ""])
    pathlib.Path(out).write_text(text)


def _deselections(path):
    """`--deselect` arguments for each node id (or prefix) in `path`; `#` starts a comment."""
    args = []
    for line in pathlib.Path(path).read_text().splitlines():
        node = line.split("#", 1)[0].strip()
        if node:
            args += ["--deselect", node]
    return args


def main(argv):
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--status")
    parser.add_argument("--deselect-file")
    known, rest = parser.parse_known_args(argv)
    if not rest:
        print(__doc__)
        return 2
    checkout = pathlib.Path(rest[0]).resolve()
    if not (checkout / TEST_DIR).is_dir():
        print(f"{checkout} has no {TEST_DIR}", file=sys.stderr)
        return 2
    if known.status:
        _status(known.status, checkout, rest[1:])
        return 0
    deselect = _deselections(known.deselect_file) if known.deselect_file else []
    return _run(checkout, rest[1:], deselect)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
