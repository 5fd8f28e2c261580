"""Cell averages of point data with templates: one kernel, two kinds of cell set.

A structured grid computes each cell's corner points from its (i, j, k) index and stores no
connectivity; an explicit cell set reads them from a connectivity array. Both are
@tack.data_oriented classes with the same methods, so one kernel runs over either: `for c in
cells` runs over the cell set's own index space (`__tack_iterate__`: the three cell counts of
the grid, launched as a 3-D range with no division, or the cell count of the explicit set), and
`cells.POINTS`, a class constant, is compiled in as the corner loop's trip count (8 for
hexahedra, 4 for tetrahedra). Checked against NumPy.

    python examples/cell_average.py [--cells 64]
"""

import argparse
import os
import time

import numpy as np

import tack


@tack.data_oriented
class StructuredCells:
    """The nx * ny * nz hexahedra of a grid of (nx+1) * (ny+1) * (nz+1) points, x fastest."""

    POINTS = 8
    __tack_iterate__ = ("nx", "ny", "nz")

    def __init__(self, nx, ny, nz):
        self.nx, self.ny, self.nz = nx, ny, nz  # runtime values: a new size never recompiles

    @tack.func
    def point_id(self, c, v):
        # Corner v = (dx, dy, dz) in binary, VTK's voxel order.
        i = c[0] + (v & 1)
        j = c[1] + ((v >> 1) & 1)
        k = c[2] + ((v >> 2) & 1)
        return i + (self.nx + 1) * (j + (self.ny + 1) * k)

    @tack.func
    def cell_id(self, c):
        return c[0] + self.nx * (c[1] + self.ny * c[2])


@tack.data_oriented
class ExplicitCells:
    """Cells given by a (count, POINTS) array of point ids."""

    POINTS = 8
    __tack_iterate__ = "count"

    def __init__(self, connectivity):
        self.count = connectivity.shape[0]
        self.connectivity = tack.field(tack.i32, connectivity.shape)
        self.connectivity.from_numpy(connectivity.astype(np.int32))

    @tack.func
    def point_id(self, c, v):
        return self.connectivity[c, v]

    @tack.func
    def cell_id(self, c):
        return c


@tack.data_oriented
class ExplicitTetrahedra(ExplicitCells):
    POINTS = 4  # overrides the constant: the corner loop runs 4 times


@tack.kernel
def cell_average(cells, point_data, cell_data):
    for c in cells:
        total = 0.0
        for v in range(cells.POINTS):
            total += point_data[cells.point_id(c, v)]
        cell_data[cells.cell_id(c)] = total / cells.POINTS


def structured_reference(points, nx, ny, nz):
    p = points.reshape(nz + 1, ny + 1, nx + 1)
    total = np.zeros((nz, ny, nx), np.float64)
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                total += p[dz : dz + nz, dy : dy + ny, dx : dx + nx]
    return (total / 8).ravel()


def hexahedra(nx, ny, nz):
    """The structured grid's cells as explicit connectivity, same corner order."""
    i, j, k = np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij")
    i, j, k = (a.transpose(2, 1, 0).ravel() for a in (i, j, k))  # cell id order: x fastest
    corners = []
    for v in range(8):
        ci, cj, ck = i + (v & 1), j + ((v >> 1) & 1), k + ((v >> 2) & 1)
        corners.append(ci + (nx + 1) * (cj + (ny + 1) * ck))
    return np.stack(corners, axis=1)


def tetrahedra(hexes):
    """Five tetrahedra per hexahedron (a standard split of the voxel corners)."""
    split = [(0, 1, 3, 5), (0, 3, 2, 6), (0, 5, 4, 6), (3, 5, 6, 7), (0, 3, 5, 6)]
    return np.concatenate([hexes[:, list(t)] for t in split])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", type=int, default=64, help="cells along x (y, z: 3/4 and 1/2)")
    args = ap.parse_args()
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    nx, ny, nz = args.cells, max(1, args.cells * 3 // 4), max(1, args.cells // 2)
    n_points, n_cells = (nx + 1) * (ny + 1) * (nz + 1), nx * ny * nz
    rng = np.random.default_rng(7)
    values = rng.random(n_points, dtype=np.float32)
    point_data = tack.field(tack.f32, (n_points,))
    point_data.from_numpy(values)

    structured = tack.field(tack.f32, (n_cells,))
    start = time.perf_counter()
    cell_average(StructuredCells(nx, ny, nz), point_data, structured)
    tack.sync()
    t_structured = time.perf_counter() - start
    expected = structured_reference(values.astype(np.float64), nx, ny, nz)
    np.testing.assert_allclose(structured.to_numpy(), expected, rtol=1e-5, atol=1e-6)

    # The same cells as an explicit set, in a shuffled order: the same averages, permuted.
    hexes = hexahedra(nx, ny, nz)
    order = rng.permutation(n_cells)
    explicit = tack.field(tack.f32, (n_cells,))
    start = time.perf_counter()
    cell_average(ExplicitCells(hexes[order]), point_data, explicit)
    tack.sync()
    t_explicit = time.perf_counter() - start
    np.testing.assert_allclose(explicit.to_numpy(), expected[order], rtol=1e-5, atol=1e-6)

    tets = tetrahedra(hexes)
    tet_data = tack.field(tack.f32, (tets.shape[0],))
    cell_average(ExplicitTetrahedra(tets), point_data, tet_data)
    np.testing.assert_allclose(tet_data.to_numpy(), values[tets].astype(np.float64).mean(1),
                               rtol=1e-5, atol=1e-6)

    # Another grid size reuses the structured variant: nx, ny, nz are runtime values.
    before = cell_average._num_variants()
    small = tack.field(tack.f32, (2 * 3 * 4,))
    cell_average(StructuredCells(2, 3, 4), point_data, small)
    np.testing.assert_allclose(small.to_numpy(),
                               structured_reference(values[:60].astype(np.float64), 2, 3, 4),
                               rtol=1e-5, atol=1e-6)
    assert cell_average._num_variants() == before
    print(
        f"cell averages: {nx}x{ny}x{nz} grid ({n_cells} cells) structured "
        f"{t_structured * 1e3:.1f} ms, explicit {t_explicit * 1e3:.1f} ms (first calls, with "
        f"compilation), {tets.shape[0]} tetrahedra; all match NumPy"
    )


if __name__ == "__main__":
    main()
