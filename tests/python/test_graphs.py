"""Launch graphs (issue 25): `with tack.capture() as g:` records launches and fills, g() and
g.replay(n) run them from C++. A replay must give bit for bit what the same launches give
from a Python loop, on every backend; what a graph cannot replay is refused at capture."""

import numpy as np
import pytest

import tack


@tack.kernel
def heat(u, v, alpha):
    for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        v[i, j] = u[i, j] + alpha * lap


@tack.kernel
def step(x, s):
    for i in range(x.shape[0]):
        x[i] = x[i] * 3 + s


@tack.kernel
def total(x) -> float:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def grid(n, seed=0):
    return np.random.default_rng(seed).random((n, n), dtype=np.float32)


def heat_loop(u0, steps, alpha=0.2):
    u, v = tack.field_like(u0), tack.field_like(u0)
    for _ in range(steps):
        heat(u, v, alpha)
        u, v = v, u
    return u.to_numpy()


@pytest.mark.parametrize("n", [8, 64, 130])
def test_a_replay_is_bit_identical_to_the_python_loop(backend, n):
    u0 = grid(n)
    u, v = tack.field_like(u0), tack.field_like(u0)
    with tack.capture() as g:
        heat(u, v, 0.2)
        heat(v, u, 0.2)
    assert len(g) == 2
    np.testing.assert_array_equal(u.to_numpy(), u0)  # capturing ran nothing
    g.replay(25)
    assert np.array_equal(u.to_numpy(), heat_loop(u0, 50))
    g()
    assert np.array_equal(u.to_numpy(), heat_loop(u0, 52))


def test_integer_launches_and_fills_replay_in_order(backend):
    x = tack.zeros(tack.i64, 4096)
    with tack.capture() as g:
        x.fill(7)
        for s in range(5):
            step(x, s)
    g.replay(3)
    want = 7
    for s in range(5):
        want = want * 3 + s
    assert (x.to_numpy() == want).all()


def test_a_parameter_changes_between_replays(backend):
    u0 = grid(32)
    u, v = tack.field_like(u0), tack.field_like(u0)
    with tack.capture() as g:
        a = g.param("alpha", 0.1)
        heat(u, v, a)
        heat(v, u, a)
    assert g.params == {"alpha": 0.1}
    g.replay(3)
    g.replay(2, alpha=0.25)
    assert g.params == {"alpha": 0.25}
    g()  # keeps 0.25
    ref_u, ref_v = tack.field_like(u0), tack.field_like(u0)
    for alpha in [0.1] * 3 + [0.25] * 3:
        heat(ref_u, ref_v, alpha)
        heat(ref_v, ref_u, alpha)
    assert np.array_equal(u.to_numpy(), ref_u.to_numpy())


def test_integer_parameters_and_parameter_fills(backend):
    x = tack.zeros(tack.i32, 1000)
    with tack.capture() as g:
        x.fill(g.param("start", 2))
        step(x, g.param("s", 1))
    g()
    assert (x.to_numpy() == 7).all()
    g(start=1, s=-4)
    assert (x.to_numpy() == -1).all()
    with pytest.raises(TypeError, match="integer"):
        g(s=0.5)
    with pytest.raises(ValueError, match=r"no parameter 'sx' \(it has 'start', 's'\)"):
        g(sx=1)


def test_empty_and_zero_replays(backend):
    x = tack.zeros(tack.f32, 10)
    with tack.capture() as g:
        pass
    assert len(g) == 0
    g.replay(10)
    with tack.capture() as g:
        x.fill(1.0)
    g.replay(0)
    assert (x.to_numpy() == 0).all()
    with pytest.raises(ValueError, match="non-negative"):
        g.replay(-1)


@pytest.mark.parametrize(
    "what, message",
    [
        (lambda x: tack.zeros(tack.f32, 4), "allocating or wrapping an array"),
        (lambda x: x.to_numpy(), "reading an array on the host"),
        (lambda x: x[0], "reading an array on the host"),
        (lambda x: x.from_numpy(np.zeros(16, np.float32)), "writing host data into an array"),
        (lambda x: x.sum(), "reducing an array to a host value"),
        (lambda x: total(x), "calling kernel 'total', which returns a value to the host"),
    ],
)
def test_what_a_graph_cannot_replay_is_refused_at_capture(backend, what, message):
    x = tack.zeros(tack.f32, 16)
    with pytest.raises(RuntimeError, match="tack.capture: " + message) as e:
        with tack.capture():
            step(x, 1.0)
            what(x)
    assert "a graph replays launches and fills only" in str(e.value)
    step(x, 1.0)  # the failed capture left nothing behind: launches run again
    assert (x.to_numpy() == 1).all()


def test_debug_mode_launches_are_refused(backend):
    x = tack.zeros(tack.f32, 16)
    with tack.debug():
        with pytest.raises(RuntimeError, match="debug mode"):
            with tack.capture():
                step(x, 1.0)


def test_misuse_is_explained():
    x = tack.zeros(tack.f32, 16)
    g = tack.capture()
    with pytest.raises(RuntimeError, match="nothing was captured"):
        g()
    with g:
        with pytest.raises(RuntimeError, match="still being captured"):
            g()
        with pytest.raises(RuntimeError, match="do not nest"):
            with tack.capture():
                pass
        with pytest.raises(ValueError, match="already has a parameter 'a'"):
            g.param("a", 1)
            g.param("a", 2)
        step(x, 1.0)
    with pytest.raises(RuntimeError, match="captured once"):
        with g:
            pass
    with pytest.raises(RuntimeError, match="inside the graph's capture block"):
        g.param("b", 1)
    with pytest.raises(TypeError, match="takes a number"):
        with tack.capture() as h:
            h.param("c", "one")
    assert "2 nodes" not in repr(g) and "1 nodes" in repr(g)


def test_a_launch_on_another_device_is_refused():
    other = tack.device("cpu", num_threads=1)
    tack.init("cpu")
    x = tack.zeros(tack.f32, 16)
    with pytest.raises(RuntimeError, match="one device it was captured on"):
        with tack.capture(device=other):
            step(x, 1.0)


def test_an_exception_in_the_block_records_nothing():
    x = tack.zeros(tack.f32, 16)
    g = tack.capture()
    with pytest.raises(KeyError):
        with g:
            step(x, 1.0)
            raise KeyError("boom")
    with pytest.raises(RuntimeError, match="nothing was captured"):
        g()


def test_the_graph_keeps_its_arrays_alive(backend):
    def make():
        x = tack.zeros(tack.i32, 64)
        with tack.capture() as g:
            step(x, 2)
        return g, x.to_numpy  # the array itself goes out of scope but for its method

    g, read = make()
    g.replay(2)
    assert (read() == 8).all()
