"""Runs public tack-core examples (a checkout of berkgeveci/tack) unchanged against this package.

    python tests/public/run_examples.py CHECKOUT [--arch cpu,opencl] [NAME ...]

Each example runs in its own process from a scratch directory, with the arguments below (sizes
chosen so that each run takes well under a minute here), on each requested backend. An example
passes when it exits with status 0, prints no FAIL/MISMATCH line and, where it writes an image,
writes it. The examples accept only `--arch {cpu,metal,cuda,hip,level_zero}`; for any other
backend (opencl) the runner passes `--arch cpu` and rebinds `tack.cpu` to that backend's name
before running the file, so the example's `tack.init(arch=tack.cpu)` opens it. The example's
source is never changed. TACK_PACKAGE_PATH is the package under test (default python/).
"""

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLES = "packages/tack-core/examples"

# name -> (extra arguments, files the run must write); {out} is the scratch directory.
CASES = {
    "11_templates": ([], []),
    "21_array_abstraction": ([], []),
    "23_tuple_arrays": ([], []),
    # 125M points by default; 100^3 runs in seconds and still validates against NumPy.
    "24_point_coordinates": (["--size", "100", "--warmup", "1", "--trials", "1"], []),
    "29_volume_render": (
        ["--size", "48", "--width", "160", "--height", "120", "--warmup", "1", "--trials", "1",
         "--save", "{out}/volrender.png"],
        # matplotlib is optional there: without it the example saves the raw image instead
        ["volrender.png|volrender.npy"],
    ),
    "41_inspect": ([], []),
}

# The backends the examples' --arch takes; each of them goes straight through.
EXAMPLE_ARCHES = {"cpu", "metal", "cuda", "hip", "level_zero"}

# Examples that pass their --arch string to tack.init themselves: only their own choices run.
CPU_ONLY = {"41_inspect": "calls tack.init(arch=args.arch) with the string: its own arches only"}

# Runs one example file with `tack.cpu` naming another backend (see the module docstring).
_REDIRECT = (
    "import runpy, sys, tack\n"
    "tack.cpu = sys.argv[1]\n"
    "sys.argv = sys.argv[2:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)

_FAILED_LINE = re.compile(r"\b(FAIL(ED)?|MISMATCH)\b")


def run_one(path, arch, args, outputs):
    with tempfile.TemporaryDirectory(prefix="tack-example-") as out:
        argv = [a.format(out=out) for a in args]
        if arch in EXAMPLE_ARCHES:
            command = [sys.executable, str(path), "--arch", arch, *argv]
        else:
            command = [sys.executable, "-c", _REDIRECT, arch, str(path), "--arch", "cpu", *argv]
        env = dict(os.environ)
        package = os.environ.get("TACK_PACKAGE_PATH", str(ROOT / "python"))
        env["PYTHONPATH"] = package
        env.pop("TACK_NO_REINIT", None)
        env.setdefault("MPLBACKEND", "Agg")
        start = time.monotonic()
        try:
            done = subprocess.run(command, cwd=out, env=env, capture_output=True, text=True,
                                  timeout=600)
        except subprocess.TimeoutExpired:
            return False, 600.0, "timed out after 600 s"
        seconds = time.monotonic() - start
        text = done.stdout + done.stderr
        if done.returncode != 0:
            return False, seconds, f"exit status {done.returncode}: " + text.strip()[-800:]
        bad = [line for line in text.splitlines() if _FAILED_LINE.search(line)]
        if bad:
            return False, seconds, "reported: " + bad[0].strip()
        for wanted in outputs:
            if not any(os.path.exists(os.path.join(out, w)) for w in wanted.split("|")):
                return False, seconds, f"did not write {wanted}"
        return True, seconds, ""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=pathlib.Path)
    parser.add_argument("names", nargs="*", help=f"examples (default: {', '.join(CASES)})")
    parser.add_argument("--arch", default="cpu", help="comma-separated backends (default cpu)")
    opts = parser.parse_intermixed_args(argv)
    names = opts.names or list(CASES)
    failures = 0
    for arch in opts.arch.split(","):
        for name in names:
            path = opts.checkout / EXAMPLES / f"{name}.py"
            args, outputs = CASES.get(name, ([], []))
            if arch not in EXAMPLE_ARCHES and name in CPU_ONLY:
                print(f"SKIP {arch:7s} {name:24s}           {CPU_ONLY[name]}")
                continue
            ok, seconds, detail = run_one(path, arch, args, outputs)
            failures += not ok
            print(f"{'PASS' if ok else 'FAIL'} {arch:7s} {name:24s} {seconds:6.1f} s  {detail}")
    print(f"{failures} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
