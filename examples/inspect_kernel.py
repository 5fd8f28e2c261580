"""tack.inspect: the typed IR and the generated code of the variant a call would use, without
running it: LLVM IR on the CPU (and after O3), OpenCL C on the OpenCL backend."""

import os

import numpy as np

import tack


@tack.kernel
def scale(x, out, factor):
    for i in range(x.shape[0]):
        out[i] = x[i] * factor


def main():
    device = tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    x = tack.field_like(np.arange(8, dtype=np.float32))
    out = tack.field(tack.f32, 8)
    ir = tack.inspect(scale, x, out, 2.0, mode="ir")
    source = tack.inspect(scale, x, out, 2.0, mode="source")
    assert "f32" in ir
    if device.name == "cpu":
        optimized = tack.inspect(scale, x, out, 2.0, mode="optimized")
        assert "define" in source and "define" in optimized
        summary = f"LLVM IR: {len(source.splitlines())} lines, after O3: "
        summary += str(len(optimized.splitlines()))
    else:  # a C dialect; "optimized" is CPU only
        assert "tack_kernel_scale" in source
        summary = f"{device.label} source: {len(source.splitlines())} lines"
    assert out.to_numpy().tolist() == [0.0] * 8  # inspect never runs the kernel
    scale(x, out, 2.0)
    assert np.array_equal(out.to_numpy(), np.arange(8, dtype=np.float32) * 2)
    print(ir)
    print(summary)


if __name__ == "__main__":
    main()
