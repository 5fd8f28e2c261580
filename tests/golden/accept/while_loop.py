# inspect: collatz --args i64[:],i32[:]
import tack


@tack.kernel
def collatz(start, steps):
    for i in range(start.shape[0]):
        n = start[i]
        c = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            c += 1
        steps[i] = c
