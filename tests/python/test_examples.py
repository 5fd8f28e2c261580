"""Every example under examples/ is a runnable script that checks its own result against
NumPy; run each one as the user would."""

import subprocess
import sys

import pytest

from conftest import BACKENDS, ROOT, python_env

EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py"))
ARGS = {
    "mandelbrot.py": ["--size", "200x150", "--out", "mandelbrot.png"],
    "heat.py": ["--steps", "100", "--out", "heat.png"],
    "cell_average.py": ["--cells", "10"],
    "volume_render.py": ["--size", "64x48", "--volume", "20", "--steps", "40", "--out",
                         "volume.png"],
}
# Examples whose kernels compute in f64: a backend without it (Metal) refuses them with the
# contract's TypeError, so they run where f64 exists.
F64_ON_DEVICE = {"device_functions", "heat", "math_builtins", "matmul", "nbody", "reductions",
                 "scalar_arguments", "wave"}
# Examples that need a package the test venv lacks; `make scaleout` runs them with mpirun.
NEEDS = {"mpi_heat.py": "mpi4py"}


def test_the_examples_cover_the_issue_list():
    names = {p.stem for p in EXAMPLES}
    assert {"hello", "math_builtins", "scalar_arguments", "control_flow", "ndrange",
            "device_functions", "atomics", "reductions", "mandelbrot", "nbody", "jacobi",
            "matmul", "game_of_life", "heat", "wave", "image_processing",
            "inspect_kernel", "cell_average", "volume_render"} <= names


# The sweep runs on every backend that initializes here (CONTRACT C29 TACK_EXAMPLES_ARCH).
@pytest.mark.parametrize("arch", list(BACKENDS))
@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_and_checks_itself(script, arch, tmp_path):
    if script.name in NEEDS:
        pytest.importorskip(NEEDS[script.name])
    if not BACKENDS[arch].supports_f64 and script.stem in F64_ON_DEVICE:
        pytest.skip(f"{script.stem} computes in f64 on the device, which {arch} lacks (E1)")
    env = dict(python_env(), TACK_EXAMPLES_ARCH=arch)
    r = subprocess.run([sys.executable, str(script), *ARGS.get(script.name, [])], cwd=tmp_path,
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip()
    for name in ARGS.get(script.name, []):
        if name.endswith(".png"):
            from PIL import Image

            with Image.open(tmp_path / name) as img:
                assert img.size[0] > 0
