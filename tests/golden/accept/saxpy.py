# inspect: saxpy --args f32[:],f32[:],f32
# inspect: saxpy --args f64[:],f64[:],f64
import tack


@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
