# inspect: jacobi --args f32[:,:],f32[:,:]
import tack


@tack.kernel
def jacobi(u, out):
    for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
