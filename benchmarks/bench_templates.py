"""Issue 9's template benchmark, in one run (CPU backend): templates cost nothing at run time.

Cell averages of point data over a 256^3 structured grid written with a @tack.data_oriented cell
set (`for c in cells`, corner ids from a method, the corner count a class constant), against the
same kernel written with plain fields and scalars (an ndrange and the same index arithmetic
inline); and the same for an explicit cell set (a connectivity field in the object) against a
kernel taking the connectivity as an argument. Results are compared (bit for bit: the same
operations in the same order) before anything is timed; the ratio is the plain kernel's time
over the template kernel's, best of interleaved rounds.

    PYTHONPATH=python .venv/bin/python benchmarks/bench_templates.py [--quick] [--cells N]
"""

import argparse
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "examples"))

from cell_average import ExplicitCells, StructuredCells  # noqa: E402  (the example's cell sets)

import tack  # noqa: E402


@tack.kernel
def average_template(cells, point_data, cell_data):
    for c in cells:
        total = 0.0
        for v in range(cells.POINTS):
            total += point_data[cells.point_id(c, v)]
        cell_data[cells.cell_id(c)] = total / cells.POINTS


@tack.kernel
def average_plain(point_data, cell_data, nx, ny, nz):
    for k, j, i in tack.ndrange(nz, ny, nx):
        total = 0.0
        for v in range(8):
            pi = i + (v & 1)
            pj = j + ((v >> 1) & 1)
            pk = k + ((v >> 2) & 1)
            total += point_data[pi + (nx + 1) * (pj + (ny + 1) * pk)]
        cell_data[i + nx * (j + ny * k)] = total / 8


@tack.kernel
def average_plain_explicit(connectivity, point_data, cell_data, count):
    for c in range(count):
        total = 0.0
        for v in range(8):
            total += point_data[connectivity[c, v]]
        cell_data[c] = total / 8


def best_of_interleaved(calls, rounds):
    """Best time of each call over `rounds` rounds; the order alternates from round to round
    (A B, B A, ...), so neither call always runs first after the other."""
    best = [float("inf")] * len(calls)
    for r in range(rounds):
        order = list(enumerate(calls))
        for k, call in order if r % 2 == 0 else reversed(order):
            start = time.perf_counter()
            call()
            tack.sync()
            best[k] = min(best[k], time.perf_counter() - start)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cells", type=int, default=256, help="cells per side (default 256)")
    ap.add_argument("--threads", type=int, default=0,
                    help="CPU threads (default: all; 1 takes the scheduler out of the ratio)")
    args = ap.parse_args()
    n = 64 if args.quick and args.cells == 256 else args.cells
    rounds = 3 if args.quick else 21
    tack.init(tack.cpu, **({"num_threads": args.threads} if args.threads else {}))
    n_points, n_cells = (n + 1) ** 3, n**3
    rng = np.random.default_rng(1)
    point_data = tack.field(tack.f32, (n_points,))
    point_data.from_numpy(rng.random(n_points, dtype=np.float32))
    a, b = tack.field(tack.f32, (n_cells,)), tack.field(tack.f32, (n_cells,))
    cells = StructuredCells(n, n, n)

    average_template(cells, point_data, a)
    average_plain(point_data, b, n, n, n)
    if not np.array_equal(a.to_numpy(), b.to_numpy()):
        print("bench_templates: template and plain structured kernels differ")
        return 1

    # Timed into one output field: two fields' pages may sit differently in memory.
    def run_template():
        average_template(cells, point_data, a)

    def run_plain():
        average_plain(point_data, a, n, n, n)
    t_tmpl, t_plain = best_of_interleaved([run_template, run_plain], rounds)
    print(f"cell averages over a {n}^3 structured grid, {n_cells} cells, CPU "
          f"({os.cpu_count()} CPUs; best of {rounds} interleaved rounds; results identical)")
    print(f"  {'template (for c in cells)':34s} {t_tmpl * 1e3:8.2f} ms  "
          f"{n_cells / t_tmpl * 1e-6:7.1f} Mcell/s")
    print(f"  {'plain fields and scalars':34s} {t_plain * 1e3:8.2f} ms  "
          f"{n_cells / t_plain * 1e-6:7.1f} Mcell/s")
    print(f"  template / plain (speed)           {t_plain / t_tmpl:6.3f}   (target >= 0.95)")

    # The explicit cell set: connectivity in the object vs as an argument (a smaller grid:
    # the connectivity is 8 ids per cell).
    m = max(2, n // 2)
    i, j, k = np.meshgrid(np.arange(m), np.arange(m), np.arange(m), indexing="ij")
    i, j, k = (x.transpose(2, 1, 0).ravel() for x in (i, j, k))
    conn = np.stack([(i + (v & 1)) + (m + 1) * ((j + ((v >> 1) & 1)) + (m + 1) * (k + (v >> 2)))
                     for v in range(8)], axis=1).astype(np.int32)
    conn = conn[rng.permutation(conn.shape[0])]
    explicit = ExplicitCells(conn)
    connectivity = explicit.connectivity  # the plain kernel reads the same field
    ea, eb = tack.field(tack.f32, (m**3,)), tack.field(tack.f32, (m**3,))

    def run_template_explicit():
        average_template(explicit, point_data, ea)

    def run_plain_explicit():
        average_plain_explicit(connectivity, point_data, eb, m**3)

    run_template_explicit()
    run_plain_explicit()
    if not np.array_equal(ea.to_numpy(), eb.to_numpy()):
        print("bench_templates: template and plain explicit kernels differ")
        return 1
    t_tmpl, t_plain = best_of_interleaved([run_template_explicit, run_plain_explicit], rounds)
    print(f"cell averages over an explicit set of {m**3} hexahedra (shuffled)")
    print(f"  {'template (connectivity in object)':34s} {t_tmpl * 1e3:8.2f} ms")
    print(f"  {'plain (connectivity argument)':34s} {t_plain * 1e3:8.2f} ms")
    print(f"  template / plain (speed)           {t_plain / t_tmpl:6.3f}   (target >= 0.95)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
