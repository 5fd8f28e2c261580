import tack


@tack.kernel
def mandelbrot(out, width, x0, dx, y0, dy, max_iter):
    """Escape-time iteration counts of a width x (len(out) // width) grid (compute-bound).

    Pixel p = row * width + col sits at c = (x0 + dx * col) + (y0 + dy * row) i; every
    operation is f32 and written in the same order as the C++ baseline, so the counts must
    match it exactly.
    """
    for p in range(out.shape[0]):
        row = p // width
        col = p % width
        cr = x0 + dx * tack.f32(col)
        ci = y0 + dy * tack.f32(row)
        zr = tack.f32(0.0)
        zi = tack.f32(0.0)
        it = 0
        while it < max_iter and zr * zr + zi * zi <= 4.0:
            t = zr * zr - zi * zi + cr
            zi = 2.0 * zr * zi + ci
            zr = t
            it += 1
        out[p] = it
