import tack


@tack.kernel
def heat_step(u, v, row_lo, row_hi, alpha):
    """One explicit step of the 2-D heat equation on rows [row_lo, row_hi) of a block.

    Shared by examples/mpi_heat.py and examples/cpp_mpi/heat_mpi.cpp, so the Python and C++
    runs compute every cell with the same expression in the same order.
    """
    for i, j in tack.ndrange((row_lo, row_hi), (1, u.shape[1] - 1)):
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        v[i, j] = u[i, j] + alpha * lap
