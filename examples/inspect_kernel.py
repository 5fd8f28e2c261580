"""tack.inspect: the typed IR and the LLVM IR of the variant a call would use, without
running it."""

import numpy as np

import tack


@tack.kernel
def scale(x, out, factor):
    for i in range(x.shape[0]):
        out[i] = x[i] * factor


def main():
    tack.init(arch=tack.cpu)
    x = tack.field_like(np.arange(8, dtype=np.float32))
    out = tack.field(tack.f32, 8)
    ir = tack.inspect(scale, x, out, 2.0, mode="ir")
    llvm = tack.inspect(scale, x, out, 2.0, mode="source")
    optimized = tack.inspect(scale, x, out, 2.0, mode="optimized")
    assert "f32" in ir and "define" in llvm and "define" in optimized
    assert out.to_numpy().tolist() == [0.0] * 8  # inspect never runs the kernel
    scale(x, out, 2.0)
    assert np.array_equal(out.to_numpy(), np.arange(8, dtype=np.float32) * 2)
    print(ir)
    print(f"LLVM IR: {len(llvm.splitlines())} lines, after O3: {len(optimized.splitlines())}")


if __name__ == "__main__":
    main()
