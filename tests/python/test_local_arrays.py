"""Local arrays (CONTRACT A35; hardening round three, defect 2): they start zeroed on every
backend, the CPU holds ones larger than a thread's stack, a size past the target's bound is a
located error, and a heap that cannot hold them is a RuntimeError, never a crash."""

import textwrap

import pytest

import tack

from conftest import run_script


@tack.kernel
def zeroed(out):
    for i in range(out.shape[0]):
        a = tack.local_array(tack.f32, 4096)
        a[4095] = 1.0 * i
        a[i % 4096] = 2.0
        out[i] = a[4095] + a[0]


def test_local_arrays_start_zeroed_on_every_backend(backend):
    # OpenCL's arrays were uninitialized: the first work-item of each later group read 2.0,
    # what the first work-item of the launch had written.
    n = 1000
    out = tack.field(tack.f32, n)
    zeroed(out)
    expected = []
    for i in range(n):
        a = {4095: float(i)}
        a[i % 4096] = 2.0
        expected.append(a[4095] + a.get(0, 0.0))
    assert out.to_numpy().tolist() == expected


@tack.kernel
def large(out):
    for i in range(out.shape[0]):
        a = tack.local_array(tack.f32, 4194304)  # 16 MiB: twice a thread's stack
        a[4194303] = 1.0 * i
        a[i] = 3.0
        out[i] = a[4194303] + a[0] + a[1]


def large_expected(n):
    return [float(i) + (3.0 if i == 0 else 0.0) + (3.0 if i == 1 else 0.0) for i in range(n)]


@pytest.mark.parametrize("lanes", ["on", "off"])
def test_large_local_array_runs_on_the_cpu(monkeypatch, lanes):
    monkeypatch.setenv("TACK_CPU_LANES", lanes)
    tack.init("cpu")
    out = tack.field(tack.f32, 6)
    large(out)
    assert out.to_numpy().tolist() == large_expected(6)


def test_graph_of_a_heap_array_kernel_replays(cpu_backend):
    out = tack.field(tack.f32, 4)
    with tack.capture() as g:
        large(out)
    out.fill(-1.0)
    g.replay()
    tack.sync()
    assert out.to_numpy().tolist() == large_expected(4)


@tack.kernel
def past_every_bound(out):
    for i in range(out.shape[0]):
        a = tack.local_array(tack.f32, 536870912)  # 2 GiB
        out[i] = a[i]


@tack.kernel
def two_arrays(out):
    for i in range(out.shape[0]):
        a = tack.local_array(tack.f64, 100000000)
        b = tack.local_array(tack.f64, 100000000)
        out[i] = a[i] + b[i]


def test_local_array_past_the_bound_is_located(backend):
    out = tack.field(tack.f32, 4)
    with pytest.raises(ValueError, match=r"local_array 'a' needs 2 GiB, more than the") as e:
        past_every_bound(out)
    assert "a = tack.local_array(tack.f32, 536870912)" in str(e.value)


def test_the_bound_is_over_one_iterations_arrays_together(cpu_backend):
    with pytest.raises(ValueError, match=r"local_array 'b' \(762.9 MiB \(800000000 bytes\)\) "
                       r"brings one iteration's local arrays to 1.4 GiB"):
        two_arrays(tack.field(tack.f64, 4))


@tack.kernel
def sixty_four_kib(out):
    for i in range(out.shape[0]):
        a = tack.local_array(tack.f32, 16384)
        a[i] = 1.0 * i
        out[i] = a[i] + a[16383]


def test_a_size_a_device_cannot_hold_is_refused_not_a_crash(backend):
    # PoCL ended the process at 32 KiB per work-item; the CPU, CUDA and HIP hold 64 KiB.
    out = tack.field(tack.f32, 300)
    try:
        sixty_four_kib(out)
    except ValueError as e:
        assert "local_array 'a' needs 64 KiB" in str(e)
        return
    assert out.to_numpy().tolist() == [float(i) for i in range(300)]


def test_a_heap_out_of_memory_is_a_runtime_error(tmp_path):
    # The address space is capped after the kernel compiled: its 1 GiB block cannot be had.
    script = textwrap.dedent("""
        import resource
        import tack

        @tack.kernel
        def k(out, n: int):
            for i in range(n):
                a = tack.local_array(tack.f32, 268435456)
                a[i] = 5.0
                out[i] = a[i] + a[268435455]

        tack.init("cpu")
        out = tack.field(tack.f32, 4)
        k(out, 0)
        size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
        limit = size + (256 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
        try:
            k(out, 4)
        except RuntimeError as e:
            print("raised:", e)
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        k(out, 4)
        print("then:", out.to_numpy().tolist())
    """)
    run = run_script(tmp_path, script)
    raised = "raised: Kernel 'k' failed on CPUBackend: out of memory for its local arrays"
    assert raised in run.stdout
    assert "then: [5.0, 5.0, 5.0, 5.0]" in run.stdout
