"""2-D heat equation decomposed over MPI ranks: each rank owns a band of rows plus one halo row
above and below, exchanges halos with mpi4py, and runs its step as a Tack kernel.

    mpirun -n 4 python examples/mpi_heat.py [--ny 64 --nx 48 --steps 200] [--out heat.npy]
    python examples/mpi_heat.py            # one rank: the reference the others must match

Tack fields and MPI share memory without copies: each block is a NumPy array that the kernel's
fields wrap (tack.from_dlpack), so halo rows go to MPI as array rows, and rank 0 gathers straight
into a Tack field (mpi4py reads __dlpack__). TACK_EXAMPLES_ARCH=opencl runs the steps on OpenCL.
Every cell is computed with the same expression whatever the decomposition, so any number of
ranks gives the one-rank result bit for bit. The kernel lives in examples/kernels/heat_step.py
and is shared with the C++ version (examples/cpp_mpi), which writes the same bytes.
"""

import argparse
import hashlib
import os
import sys

import numpy as np
from mpi4py import MPI

import tack

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels"))
from heat_step import heat_step  # noqa: E402

ALPHA = 0.2


def initial(ny, nx):
    """The global initial state: a hot top edge and a warm square; the edges stay fixed."""
    u = np.zeros((ny, nx))
    u[0, :] = 100.0
    u[ny // 4 : ny // 2, nx // 4 : nx // 2] = 50.0
    return u


def band(ny, size, rank):
    """Rows [start, start + count) of the global grid that `rank` owns."""
    base, extra = divmod(ny, size)
    count = base + (1 if rank < extra else 0)
    return rank * base + min(rank, extra), count


def run(comm, ny, nx, steps):
    rank, size = comm.Get_rank(), comm.Get_size()
    start, count = band(ny, size, rank)
    if count < 1:
        raise SystemExit(f"mpi_heat: {size} ranks for {ny} rows leaves rank {rank} empty")
    # Local rows 1..count are global rows start..start+count-1; rows 0 and count+1 are halos.
    block = np.zeros((count + 2, nx))
    g = initial(ny, nx)
    lo_g, hi_g = max(start - 1, 0), min(start + count + 1, ny)
    block[lo_g - (start - 1) : hi_g - (start - 1)] = g[lo_g:hi_g]
    # The blocks are NumPy arrays that the fields wrap (tack.from_dlpack): one memory, seen by
    # the kernels as fields and by MPI as arrays, on the CPU and on OpenCL devices alike (an
    # OpenCL field Tack allocates itself may live in device memory and cannot be exported).
    ua, va = block, block.copy()  # v carries the same fixed edges
    u, v = tack.from_dlpack(ua), tack.from_dlpack(va)
    # The global first and last rows are boundary: never updated.
    row_lo = 2 if start == 0 else 1
    row_hi = count if start + count == ny else count + 1
    up = rank - 1 if rank > 0 else MPI.PROC_NULL
    down = rank + 1 if rank < size - 1 else MPI.PROC_NULL

    for _ in range(steps):
        tack.sync()  # queued launches finish before MPI reads the memory (no-op on the CPU)
        comm.Sendrecv(ua[1], dest=up, recvbuf=ua[count + 1], source=down)
        comm.Sendrecv(ua[count], dest=down, recvbuf=ua[0], source=up)
        heat_step(u, v, row_lo, row_hi, ALPHA)
        u, v, ua, va = v, u, va, ua
    tack.sync()

    counts = [band(ny, size, r)[1] * nx for r in range(size)]
    displs = [band(ny, size, r)[0] * nx for r in range(size)]
    # Rank 0 receives straight into a field: mpi4py reads its __dlpack__.
    full = tack.from_dlpack(np.zeros((ny, nx))) if rank == 0 else None
    recv = [full, counts, displs, MPI.DOUBLE] if rank == 0 else None
    comm.Gatherv(ua[1 : count + 1], recv, root=0)
    return full


def reference(ny, nx, steps):
    u = initial(ny, nx)
    for _ in range(steps):
        c = u[1:-1, 1:-1]
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * c
        u[1:-1, 1:-1] = c + ALPHA * lap
    return u


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ny", type=int, default=64)
    parser.add_argument("--nx", type=int, default=48)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--out", default=None, help="write the final grid (rank 0) as .npy")
    args = parser.parse_args()
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    comm = MPI.COMM_WORLD
    full = run(comm, args.ny, args.nx, args.steps)
    if comm.Get_rank() != 0:
        return
    result = full.to_numpy()
    ref = reference(args.ny, args.nx, args.steps)
    assert np.allclose(result, ref, rtol=1e-12, atol=1e-12), "differs from the NumPy reference"
    if args.out:
        np.save(args.out, result)
    digest = hashlib.sha256(result.tobytes()).hexdigest()[:16]
    print(f"mpi_heat: {comm.Get_size()} rank(s), {args.ny}x{args.nx}, {args.steps} steps, "
          f"sum {result.sum():.6f}, sha256 {digest}")


if __name__ == "__main__":
    main()
