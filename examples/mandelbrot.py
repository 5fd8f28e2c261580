"""Mandelbrot set on the CPU through Python: writes a PNG (Pillow) and prints its timings.

    python examples/mandelbrot.py [--size 800x600] [--out mandelbrot.png]
"""

import argparse
import os
import time

import numpy as np

import tack

MAX_ITER = tack.constant(256)


@tack.kernel
def mandelbrot(image, x0, y0, step):
    for py, px in tack.ndrange(image.shape[0], image.shape[1]):
        cr = x0 + px * step
        ci = y0 + py * step
        zr = 0.0
        zi = 0.0
        n = 0
        while n < MAX_ITER and zr * zr + zi * zi <= 4.0:
            zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
            n += 1
        image[py, px] = n


def reference(height, width, x0, y0, step):
    """The same iteration in NumPy, in float32 like the kernel."""
    f = np.float32
    cr = f(x0) + np.arange(width, dtype=f)[None, :] * f(step)
    ci = f(y0) + np.arange(height, dtype=f)[:, None] * f(step)
    cr, ci = np.broadcast_to(cr, (height, width)), np.broadcast_to(ci, (height, width))
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    n = np.zeros((height, width), np.int32)
    for _ in range(256):
        active = zr * zr + zi * zi <= f(4.0)
        n += active
        zr, zi = (np.where(active, zr * zr - zi * zi + cr, zr),
                  np.where(active, f(2.0) * zr * zi + ci, zi))
    return n


def colorize(counts):
    t = np.sqrt(counts.astype(np.float64) / 256.0)
    rgb = np.stack([9 * (1 - t) * t**3, 15 * (1 - t) ** 2 * t**2, 8.5 * (1 - t) ** 3 * t], -1)
    return (np.clip(rgb, 0, 1) * 255).astype(np.uint8)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="800x600")
    parser.add_argument("--out", default="mandelbrot.png")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    x0, y0, step = -2.2, -1.2 * height / width * 1.25, 3.2 / width
    image = tack.field(tack.i32, (height, width))

    t = time.perf_counter()
    mandelbrot(image, x0, y0, step)
    first = time.perf_counter() - t
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        mandelbrot(image, x0, y0, step)
        runs.append(time.perf_counter() - t)
    counts = image.to_numpy()

    small = tack.field(tack.i32, (60, 80))
    mandelbrot(small, x0, y0, step * 10)
    agree = np.mean(small.to_numpy() == reference(60, 80, x0, y0, step * 10))
    assert agree > 0.999, f"only {agree:.4f} of pixels match NumPy"

    from PIL import Image

    Image.fromarray(colorize(counts)).save(args.out)
    print(f"mandelbrot {width}x{height}: first call {first * 1000:.1f} ms (compile + run), "
          f"warm median {sorted(runs)[2] * 1000:.2f} ms; wrote {args.out}")


if __name__ == "__main__":
    main()
