# inspect: matmul --args f32[:,:],f32[:,:],f32[:,:]
# inspect: matmul --args f64[:,:],f64[:,:],f64[:,:]
import tack


@tack.kernel
def matmul(a, b, c):
    for i, j in tack.ndrange(c.shape[0], c.shape[1]):
        acc = 0.0
        for l in range(a.shape[1]):
            acc += a[i, l] * b[l, j]
        c[i, j] = acc
