"""Monte Carlo with tack.random: the volume of the unit ball from uniform points in the cube
[-1, 1]^3 and the mean of |x| for standard normal x, each thread drawing its own stream of
counter-based random numbers. Prints each estimate's error against the exact value, and checks
one thread's draws against the NumPy mirrors bit for bit.

    python examples/monte_carlo.py [--threads 65536] [--samples 64]
"""

import argparse
import math
import os

import numpy as np

import tack
from tack import random


@tack.kernel
def estimate(inside, abs_normal, samples, stream):
    for i in range(inside.shape[0]):
        state = random.seed(i, stream)
        hits = 0
        total = 0.0
        for _ in range(samples):
            u, state = random.uniform(state)
            v, state = random.uniform(state)
            w, state = random.uniform(state)
            p = tack.Vector([u, v, w]) * 2.0 - 1.0
            if p.norm_sqr() <= 1.0:
                hits += 1
            z, state = random.normal(state)
            total += abs(z)
        inside[i] = hits
        abs_normal[i] = total


def first_thread_in_numpy(samples, stream):
    """Thread 0's hit count, drawn with the NumPy mirrors."""
    state = random.np_seed(np.uint32(0), stream)
    hits = 0
    for _ in range(samples):
        u, state = random.np_uniform(state)
        v, state = random.np_uniform(state)
        w, state = random.np_uniform(state)
        p = np.float32([u, v, w]) * np.float32(2) - np.float32(1)
        hits += int((p * p).sum(dtype=np.float32) <= 1)
        _, state = random.np_normal(state)
    return hits


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=65536)
    ap.add_argument("--samples", type=int, default=64)
    args = ap.parse_args()
    tack.init(arch=os.environ.get("TACK_EXAMPLES_ARCH", tack.cpu))
    inside = tack.field(tack.i32, (args.threads,))
    abs_normal = tack.field(tack.f32, (args.threads,))
    estimate(inside, abs_normal, args.samples, 2026)
    n = args.threads * args.samples
    hits = inside.to_numpy().astype(np.int64)
    assert hits[0] == first_thread_in_numpy(args.samples, 2026)
    p = hits.sum() / n
    ball, ball_exact = 8.0 * p, 4.0 * math.pi / 3.0
    ball_sigma = 8.0 * math.sqrt(p * (1 - p) / n)
    mean_abs, mean_abs_exact = (
        abs_normal.to_numpy().astype(np.float64).sum() / n,
        math.sqrt(2 / math.pi),
    )
    mean_abs_sigma = math.sqrt((1 - 2 / math.pi) / n)
    for name, got, exact, sigma in (
        ("unit ball volume", ball, ball_exact, ball_sigma),
        ("E|z|, z ~ N(0,1)", mean_abs, mean_abs_exact, mean_abs_sigma),
    ):
        err = got - exact
        print(
            f"{name:18s} {got:.6f}  exact {exact:.6f}  error {err:+.2e} ({err / sigma:+.2f} sigma)"
        )
        assert abs(err) < 5 * sigma, (name, got, exact)
    print(f"monte carlo: {n} samples on {args.threads} threads; thread 0 matches the NumPy mirrors")


if __name__ == "__main__":
    main()
