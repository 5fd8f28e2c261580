# inspect: k --args f32[:]
import tack


@tack.func
def bump(field, idx, v):
    field[idx] = field[idx] + v


@tack.kernel
def k(a):
    for i in range(a.shape[0]):
        bump(a, i, 1.0)
