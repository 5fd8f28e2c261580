# inspect: compact --args f32[:],f32[:],i32[:]
import tack


@tack.kernel
def compact(a, out, count):
    for i in range(a.shape[0]):
        if a[i] > 0.0:
            slot = tack.atomic_add(count, 0, 1)
            out[slot] = a[i]
