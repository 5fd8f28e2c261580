# inspect: k --args f32[:],f32[:],f32[:]
import tack


@tack.kernel
def k(a, b, out):
    for i in range(out.shape[0]):
        out[i] = mix(a[i], b[i], 0.25) + clamp(a[i], 0.0, 1.0) + fract(a[i]) + step(0.5, a[i]) + smoothstep(0.0, 1.0, a[i]) + sign(a[i]) + saturate(b[i])
