"""Image processing: a 3x3 box blur and a Sobel edge magnitude on an 8-bit image, with
clamped borders and u8 output, checked against NumPy."""

import os

import numpy as np

import tack


@tack.func
def pixel(img, i, j):
    ii = min(max(i, 0), img.shape[0] - 1)
    jj = min(max(j, 0), img.shape[1] - 1)
    return tack.f32(img[ii, jj])


@tack.kernel
def blur(src, dst):
    for i, j in tack.ndrange(src.shape[0], src.shape[1]):
        acc = 0.0
        for di in range(-1, 2):
            for dj in range(-1, 2):
                acc += pixel(src, i + di, j + dj)
        dst[i, j] = tack.u8(acc / 9.0 + 0.5)


@tack.kernel
def sobel(src, mag):
    for i, j in tack.ndrange(src.shape[0], src.shape[1]):
        gx = (pixel(src, i - 1, j + 1) + 2.0 * pixel(src, i, j + 1) + pixel(src, i + 1, j + 1)
              - pixel(src, i - 1, j - 1) - 2.0 * pixel(src, i, j - 1) - pixel(src, i + 1, j - 1))
        gy = (pixel(src, i + 1, j - 1) + 2.0 * pixel(src, i + 1, j) + pixel(src, i + 1, j + 1)
              - pixel(src, i - 1, j - 1) - 2.0 * pixel(src, i - 1, j) - pixel(src, i - 1, j + 1))
        mag[i, j] = sqrt(gx * gx + gy * gy)  # noqa: F821


def shifted(img, di, dj):
    p = np.pad(img.astype(np.float32), 1, mode="edge")
    h, w = img.shape
    return p[1 + di : 1 + di + h, 1 + dj : 1 + dj + w]


def main():
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    yy, xx = np.mgrid[0:120, 0:160]
    img = (((xx // 20 + yy // 20) % 2) * 200 + 20).astype(np.uint8)
    src = tack.field_like(img)
    out = tack.field(tack.u8, img.shape)
    blur(src, out)
    acc = sum(shifted(img, di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1))
    want_blur = (acc / np.float32(9.0) + np.float32(0.5)).astype(np.uint8)
    assert np.abs(out.to_numpy().astype(int) - want_blur).max() <= 1

    mag = tack.field(tack.f32, img.shape)
    sobel(src, mag)
    s = lambda di, dj: shifted(img, di, dj)  # noqa: E731
    gx = s(-1, 1) + 2 * s(0, 1) + s(1, 1) - s(-1, -1) - 2 * s(0, -1) - s(1, -1)
    gy = s(1, -1) + 2 * s(1, 0) + s(1, 1) - s(-1, -1) - 2 * s(-1, 0) - s(-1, 1)
    assert np.allclose(mag.to_numpy(), np.sqrt(gx * gx + gy * gy), rtol=1e-5)
    print(f"image processing: {int((mag.to_numpy() > 100).sum())} edge pixels")


if __name__ == "__main__":
    main()
