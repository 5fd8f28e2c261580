"""A volume rendered through a 3-D texture: rays marched through tack.texture3d, written to a PNG.

A scalar field (three soft blobs inside a wavy shell) is sampled on a grid and turned into a
texture; every pixel's ray is clipped to the unit cube and marched front to back in a fixed
number of steps, each sample trilinearly filtered by `tex.sample(u, v, w)` and composited by
emission and absorption. The camera and the volume are @tack.data_oriented objects (the
texture is an attribute of the volume). The image is checked against the same render in NumPy
and written as a PNG with the standard library alone (zlib).

    python examples/volume_render.py [--size 320x240] [--volume 64] [--steps 160]
                                     [--out volume.png]
"""

import argparse
import math
import os
import struct
import zlib

import numpy as np

import tack


@tack.data_oriented
class Camera:
    """A pinhole camera: its position and the world directions of its image axes."""

    def __init__(self, azimuth, elevation, distance, fov_degrees, width, height):
        ca, sa, ce, se = (math.cos(azimuth), math.sin(azimuth), math.cos(elevation),
                          math.sin(elevation))
        eye = np.array([0.5 + distance * ce * sa, 0.5 + distance * se, 0.5 + distance * ce * ca])
        forward = np.array([0.5, 0.5, 0.5]) - eye
        forward /= np.linalg.norm(forward)
        right = np.cross(forward, [0.0, 1.0, 0.0])
        right /= np.linalg.norm(right)
        up = np.cross(right, forward)
        scale = math.tan(math.radians(fov_degrees) / 2)
        right, up = right * scale * width / height, up * scale
        self.ex, self.ey, self.ez = (float(x) for x in eye)  # runtime scalars
        self.fx, self.fy, self.fz = (float(x) for x in forward)
        self.rx, self.ry, self.rz = (float(x) for x in right)
        self.ux, self.uy, self.uz = (float(x) for x in up)
        self.width, self.height = width, height

    @tack.func
    def direction(self, i, j):
        # Pixel centres, x to the right and y up, in [-1, 1].
        sx = (tack.f32(i) + 0.5) / tack.f32(self.width) * 2.0 - 1.0
        sy = 1.0 - (tack.f32(j) + 0.5) / tack.f32(self.height) * 2.0
        d = tack.Vector([self.fx + sx * self.rx + sy * self.ux,
                         self.fy + sx * self.ry + sy * self.uy,
                         self.fz + sx * self.rz + sy * self.uz])
        return d / d.norm()


@tack.data_oriented
class Volume:
    STEPS = 160  # class constants: compiled in
    DENSITY = 14.0

    def __init__(self, texture, steps=None):
        self.texture = texture  # a texture attribute: sampled like a texture argument
        if steps is not None:
            self.STEPS = steps  # shadows the class constant: another compiled variant

    @tack.func
    def color(self, v):
        return tack.Vector([1.6 * v, 1.4 * v * v + 0.1, 0.3 + 0.5 * (1.0 - v)])


@tack.func
def slab(o, d):
    """Where the ray o + t d enters and leaves the unit cube (t_near > t_far: a miss)."""
    inv = 1.0 / d
    a = (0.0 - o) * inv
    b = (1.0 - o) * inv
    lo = min(a, b)
    hi = max(a, b)
    return max(max(lo.x, lo.y), max(lo.z, 0.0)), min(min(hi.x, hi.y),
                                                                           hi.z)


@tack.kernel
def render(cam, vol, image):
    for j, i in tack.ndrange(image.shape[0], image.shape[1]):
        o = tack.Vector([cam.ex, cam.ey, cam.ez])
        d = cam.direction(i, j)
        t0, t1 = slab(o, d)
        rgb = tack.Vector([0.0, 0.0, 0.0])
        opacity = 0.0
        if t0 < t1:
            dt = (t1 - t0) / vol.STEPS
            for s in range(vol.STEPS):
                p = o + d * (t0 + (tack.f32(s) + 0.5) * dt)
                v = vol.texture.sample(p.x, p.y, p.z)
                alpha = 1.0 - math.exp(-vol.DENSITY * v * dt)
                rgb += vol.color(v) * ((1.0 - opacity) * alpha)
                opacity += (1.0 - opacity) * alpha
        background = 0.08 + 0.12 * tack.f32(j) / tack.f32(image.shape[0])
        image[j, i] = rgb + (1.0 - opacity) * background


# ---- the scene and the reference ----------------------------------------------------------


def scalar_field(n):
    """Values in [0, 1] at the texel centres of an n^3 grid, x fastest (index [z, y, x])."""
    c = np.linspace(0.0, 1.0, n)
    z, y, x = np.meshgrid(c, c, c, indexing="ij")
    blobs = sum(np.exp(-((x - a) ** 2 + (y - b) ** 2 + (z - e) ** 2) / 0.012)
                for a, b, e in ((0.35, 0.4, 0.5), (0.65, 0.55, 0.4), (0.5, 0.7, 0.65)))
    r = np.sqrt((x - 0.5) ** 2 + (y - 0.5) ** 2 + (z - 0.5) ** 2)
    shell = np.exp(-((r - 0.4 - 0.03 * np.sin(14 * x) * np.sin(14 * y)) ** 2) / 0.0008)
    return np.clip(0.9 * blobs + 0.35 * shell, 0.0, 1.0).astype(np.float32)


def trilinear(vol, p):
    """tex.sample in NumPy: texel centres at 0 and 1, clamped, x along the last axis."""
    f32 = np.float32
    idx, frac = [], []
    for axis, n in zip(range(3), vol.shape[::-1], strict=True):
        x = np.clip(p[..., axis], f32(0), f32(1)) * f32(n - 1)
        i0 = np.minimum(np.floor(x).astype(np.int64), max(n - 2, 0))
        idx.append((i0, np.minimum(i0 + 1, n - 1)))
        frac.append((x - i0.astype(f32)).astype(f32))
    (x0, x1), (y0, y1), (z0, z1) = idx
    tx, ty, tz = frac

    def lerp(a, b, t):
        return a + (b - a) * t

    def plane(z):
        return lerp(lerp(vol[z, y0, x0], vol[z, y0, x1], tx),
                    lerp(vol[z, y1, x0], vol[z, y1, x1], tx), ty)

    return lerp(plane(z0), plane(z1), tz)


def reference(cam, vol, steps, density, width, height):
    f32 = np.float32
    j, i = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    sx = (i.astype(f32) + f32(0.5)) / f32(width) * f32(2) - f32(1)
    sy = f32(1) - (j.astype(f32) + f32(0.5)) / f32(height) * f32(2)
    axes = [np.array(v, f32) for v in ((cam.fx, cam.fy, cam.fz), (cam.rx, cam.ry, cam.rz),
                                        (cam.ux, cam.uy, cam.uz))]
    d = axes[0] + sx[..., None] * axes[1] + sy[..., None] * axes[2]
    d = d / np.sqrt((d * d).sum(-1, keepdims=True))
    o = np.array([cam.ex, cam.ey, cam.ez], f32)
    with np.errstate(divide="ignore"):
        inv = f32(1) / d
    a, b = (f32(0) - o) * inv, (f32(1) - o) * inv
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    t0 = np.maximum(np.maximum(lo[..., 0], lo[..., 1]), np.maximum(lo[..., 2], f32(0)))
    t1 = np.minimum(np.minimum(hi[..., 0], hi[..., 1]), hi[..., 2])
    hit = t0 < t1
    dt = np.where(hit, (t1 - t0) / f32(steps), f32(0)).astype(f32)
    rgb = np.zeros((height, width, 3), f32)
    opacity = np.zeros((height, width), f32)
    for s in range(steps):
        p = o + d * (t0 + (f32(s) + f32(0.5)) * dt)[..., None]
        v = trilinear(vol, p)
        alpha = np.where(hit, f32(1) - np.exp(-f32(density) * v * dt), f32(0)).astype(f32)
        red, green = f32(1.6) * v, f32(1.4) * v * v + f32(0.1)
        color = np.stack([red, green, f32(0.3) + f32(0.5) * (f32(1) - v)], -1)
        rgb += color * ((f32(1) - opacity) * alpha)[..., None]
        opacity += (f32(1) - opacity) * alpha
    background = f32(0.08) + f32(0.12) * j.astype(f32) / f32(height)
    return rgb + ((f32(1) - opacity) * background)[..., None]


def write_png(path, rgb):
    """An 8-bit RGB PNG from an (height, width, 3) array in [0, 1], with zlib alone."""
    pixels = (np.clip(rgb, 0, 1) * 255 + 0.5).astype(np.uint8)
    h, w, _ = pixels.shape
    raw = b"".join(b"\x00" + row.tobytes() for row in pixels)  # filter type 0 per row

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8 bits, truecolour
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="320x240", help="image WIDTHxHEIGHT")
    ap.add_argument("--volume", type=int, default=64, help="texels per side")
    ap.add_argument("--steps", type=int, default=Volume.STEPS, help="samples per ray")
    ap.add_argument("--out", default="volume.png")
    args = ap.parse_args()
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    width, height = (int(x) for x in args.size.split("x"))
    n = args.volume
    values = scalar_field(n)
    data = tack.field(tack.f32, (n * n * n,))
    data.from_numpy(values.ravel())
    texture = tack.texture3d(data, shape=(n, n, n))  # a snapshot of `data`
    cam = Camera(azimuth=0.6, elevation=0.35, distance=1.9, fov_degrees=40, width=width,
                 height=height)
    steps = None if args.steps == Volume.STEPS else args.steps
    vol = Volume(texture, steps)
    image = tack.Vector.field(3, tack.f32, shape=(height, width))
    render(cam, vol, image)
    got = image.to_numpy(vectors=True)
    expected = reference(cam, values, args.steps, Volume.DENSITY, width, height)
    err = np.abs(got - expected).max()
    # The same f32 operations in the same order; exp and the ray's 1/d may differ by an ulp.
    assert err < 2e-3, err
    write_png(args.out, got)
    print(f"volume render: {width}x{height} image of a {n}^3 texture, {args.steps} samples per "
          f"ray, max |tack - numpy| = {err:.1e}, mean brightness {got.mean():.3f}, "
          f"image {args.out}")


if __name__ == "__main__":
    main()
