# Kernels defined inside host functions, methods and blocks are checked too, with the
# constants and imports of the functions around them in scope (issue 12, item 9).
import tack

SCALE = tack.constant(2.0)


def make_kernels():
    M = tack.constant(3)
    import math as m

    @tack.func
    def times_m(v):
        return v * M

    @tack.kernel
    def fine(x: tack.f32[:]):
        for i in range(x.shape[0]):
            x[i] = times_m(x[i]) * SCALE + m.pi

    @tack.kernel
    def tuple_value(x: tack.f32[:]):
        for i in range(x.shape[0]):
            x[i] = (1, 2) + M

    return fine, tuple_value


class Solver:
    LIMIT = tack.constant(4)

    def build(self):
        @tack.kernel
        def class_names_unseen(x: tack.f32[:]):
            for i in range(x.shape[0]):
                x[i] = LIMIT

        return class_names_unseen


def test_in_a_block():
    if True:
        for _ in range(1):

            @tack.kernel
            def scalar_matmul(x: tack.f32[:]):
                for i in range(x.shape[0]):
                    x[i] = 1.0 @ 2.0
