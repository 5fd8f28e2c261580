"""`python -m tack` and the wheel's tackc script (python/tack/__main__.py): the core's command
line run inside the extension, checked against what the package itself reports."""

import subprocess
import sys

import tack
import tack.__main__

from conftest import python_env


def run_module(*args, env=None):
    return subprocess.run([sys.executable, "-m", "tack", *args], capture_output=True, text=True,
                          env=env or python_env(), timeout=120)


def test_info_names_the_version_the_build_the_cache_and_every_backend(tmp_path):
    env = python_env()
    env["TACK_CACHE_DIR"] = str(tmp_path)
    done = run_module(env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"tack {tack.__version__}"
    assert "build:" in lines and "disk cache:" in lines and "backends:" in lines
    assert f"  path: {tmp_path}" in lines
    for arch in ("cpu", "opencl", "cuda", "hip", "level_zero", "metal"):
        assert any(line.startswith(f"  {arch} (") for line in lines), arch
    assert "  cpu (CPU): available" in lines


def test_cache_clear_removes_what_a_kernel_wrote(tmp_path):
    env = python_env()
    env["TACK_CACHE_DIR"] = str(tmp_path)
    script = tmp_path / "k.py"
    script.write_text("import tack\n\n@tack.kernel\ndef k(x):\n    for i in range(x.shape[0]):\n"
                      "        x[i] = x[i] + 1.0\n\nk(tack.zeros(tack.f32, 4))\n")
    subprocess.run([sys.executable, str(script)], env=env, check=True, timeout=120)
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p != script]
    assert files
    done = run_module("cache", "clear", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"removed {len(files)} files from {tmp_path}\n"
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == [script]


def test_check_reports_a_located_error_with_tackcs_exit_status(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import tack\n\n@tack.kernel\ndef k(x):\n    for i in range(x.shape[0]):\n"
                   "        assert x[i] > 0\n")
    done = run_module("check", str(bad))
    assert done.returncode == 1
    assert done.stdout.startswith(f"{bad}:6:9: UnsupportedSyntaxError: Kernel 'k': unsupported "
                                  "Assert at line 6, column 9: ")
    assert run_module("no-such-command").returncode == 2


def test_the_console_script_is_the_same_command_line(capfd, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["tackc", "--version"])
    try:
        tack.__main__.tackc()
    except SystemExit as e:
        assert e.code == 0
    assert capfd.readouterr().out == f"tackc {tack.__version__}\n"
