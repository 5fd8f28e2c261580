# inspect: k --args f32[:],f32[:],i32
import tack


@tack.kernel
def k(a: tack.f32, out: "f32 field", n: int) -> None:
    for i in range(n):
        out[i] = a[i]
