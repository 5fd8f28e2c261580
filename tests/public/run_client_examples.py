"""Runs the examples of the public Tack libraries (tack-vis, tack-rendering) unchanged against
this package, on each requested backend, with the libraries installed beside it (see
scripts/client_libraries.sh, which runs this with its venv's Python).

    python tests/public/run_client_examples.py CHECKOUT [--arch cpu,opencl]

Passing means what tests/public/run_examples.py says: exit status 0, no FAIL/MISMATCH line, and
the files the example writes (images, meshes) written.
"""

import argparse
import importlib.util
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from run_examples import run_one  # noqa: E402

# path under packages/ -> (files it must write, the example passes --arch to tack.init itself)
CASES = {
    "tack-vis/examples/22_contour": ([], False),
    "tack-vis/examples/25_point_to_cell": ([], False),
    "tack-vis/examples/26_marching_cubes": ([], False),
    "tack-vis/examples/27_flying_edges": ([], False),
    "tack-vis/examples/28_flying_edges_trimmed": ([], False),
    "tack-vis/examples/31_multiblock_flying_edges": ([], False),
    "tack-vis/examples/40_fe_isoline": (["fe_isoline.vtu"], True),
    "tack-vis/examples/41_fe_isosurface": (["fe_isosurface.vtu"], True),
    "tack-rendering/examples/33_pathtrace_primitives": (["pathtrace_primitives.png"], False),
    "tack-rendering/examples/34_pathtrace_scale": (["pathtrace_100k.png"], False),
    "tack-rendering/examples/35_pathtrace_closeup": (["pathtrace_closeup.png"], False),
    "tack-rendering/examples/36_pathtrace_denoise": (["pathtrace_denoised.png"], False),
    "tack-rendering/examples/38_point_colors": (["pathtrace_pointcolors.png"], False),
    "tack-rendering/examples/39_scalar_coloring": (["pathtrace_scalar_viridis.png"], False),
    "tack-rendering/examples/40_multiple_lights": (["pathtrace_multilights.png"], False),
    "tack-rendering/examples/42_volume_render": (["pathtrace_gyroid_vol.png"], False),
    "tack-rendering/examples/43_annotated_render": (["pathtrace_annotated.png"], False),
}

# What cannot run here, and why. Examples missing from CASES and from this table: none.
SKIP = {
    ("tack-vis/examples/40_fe_isoline", "cpu"): (
        "uses tack.shared: workgroup memory, which the CPU backend refuses (CONTRACT, Oct 2026)"),
    "tack-vis/examples/39_vtk_interop": "needs VTK (not installed)",
    "tack-rendering/examples/41_interactive": "an interactive window (needs a display)",
    "tack-rendering/examples/tack_volrender": (
        "reads module-level fields from its functions: a Taichi-style capture that CONTRACT A6 "
        "rejects (NameError at the first call)"),
    "tack-vis/examples/tack_contour": "a library module of the examples, not an example",
    "tack-vis/examples/mc_tables": "a table module, not an example",
}
OPTIONAL_MODULES = {"tack-rendering/examples/36_pathtrace_denoise": "oidn"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=pathlib.Path)
    parser.add_argument("--arch", default="cpu", help="comma-separated backends (default cpu)")
    opts = parser.parse_args(argv)
    failures = 0
    for name, why in SKIP.items():
        if isinstance(name, str):
            print(f"SKIP {'all':7s} {name:48s} {why}")
    for arch in opts.arch.split(","):
        for name, (outputs, arch_string) in CASES.items():
            why = SKIP.get((name, arch))
            module = OPTIONAL_MODULES.get(name)
            if module and importlib.util.find_spec(module) is None:
                why = f"needs the optional module {module!r} (pip install {module})"
            if why:
                print(f"SKIP {arch:7s} {name:48s} {why}")
                continue
            path = opts.checkout / "packages" / f"{name}.py"
            ok, seconds, detail = run_one(path, arch, [], outputs, arch_string=arch_string)
            failures += not ok
            print(f"{'PASS' if ok else 'FAIL'} {arch:7s} {name:48s} {seconds:6.1f} s  {detail}")
    print(f"{failures} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
