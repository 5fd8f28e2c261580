# inspect: mandelbrot --args i32[:,:],i32,i32,i32
import tack


@tack.kernel
def mandelbrot(out, width, height, max_iter):
    for py, px in tack.ndrange(height, width):
        x0 = (px / width) * 3.5 - 2.5
        y0 = (py / height) * 2.0 - 1.0
        x = 0.0
        y = 0.0
        it = 0
        while x * x + y * y <= 4.0 and it < max_iter:
            xt = x * x - y * y + x0
            y = 2.0 * x * y + y0
            x = xt
            it += 1
        out[py, px] = it
