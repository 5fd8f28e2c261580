"""tack.math: shader-style device helpers with their GLSL definitions (fract, mix, clamp,
saturate, smoothstep, step, sign, length, distance, normalize), usable only inside kernels."""

from ._intrinsics import _device_only

fract = _device_only("math.fract")
mix = _device_only("math.mix")
clamp = _device_only("math.clamp")
saturate = _device_only("math.saturate")
smoothstep = _device_only("math.smoothstep")
step = _device_only("math.step")
sign = _device_only("math.sign")
length = _device_only("math.length")
distance = _device_only("math.distance")
normalize = _device_only("math.normalize")

for _f in (fract, mix, clamp, saturate, smoothstep, step, sign, length, distance, normalize):
    _f.__name__ = _f.__qualname__ = _f.__name__.split(".")[-1]
del _f
