"""Many processes compiling the same new kernel into one fresh disk-cache directory at once (the
shared-file-system case of docs/scaling.md): every result must be right, the directory must
hold only whole, verifiable entries afterwards, and a later process must load them unchanged.

    python tests/scaleout/cache_race.py [--procs 8]
"""

import argparse
import hashlib
import os
import struct
import subprocess
import sys
import tempfile
import time
import uuid

KERNEL = '''import math

import tack


@tack.kernel
def race_{tag}(x, y):
    for i in range(x.shape[0]):
        t = x[i]
        acc = 0.0
        for k in range(8):
            acc = acc + math.sin(t * (k + 1)) * {seed}
        y[i] = acc
'''

WORKER = """
import os, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
import tack
mod = __import__(sys.argv[2])
kernel = getattr(mod, sys.argv[2])
x = tack.field_like(np.linspace(0.0, 1.0, 1000))
y = tack.zeros(tack.f64, 1000)
open(sys.argv[3] + "." + str(os.getpid()), "w").close()  # ready
while not os.path.exists(sys.argv[3]):  # every process starts compiling at the same moment
    time.sleep(0.001)
kernel(x, y)
print(y.to_numpy().tobytes().hex())
"""

HEADER = struct.Struct("<8sIIQ32s")  # magic, format version, key length, payload length, digest


def check_entries(cache):
    """Every file is a complete entry named by its key's digest; no temp file is left over."""
    names = sorted(os.listdir(cache))
    stray = [n for n in names if not n.endswith(".bin")]
    assert not stray, f"leftover files in the cache: {stray}"
    for name in names:
        data = open(os.path.join(cache, name), "rb").read()
        magic, version, key_len, payload_len, digest = HEADER.unpack_from(data)
        assert magic == b"TACKCACH" and version == 1, f"{name}: bad header"
        assert HEADER.size + key_len + payload_len == len(data), f"{name}: truncated"
        key = data[HEADER.size : HEADER.size + key_len]
        payload = data[HEADER.size + key_len :]
        assert hashlib.sha256(payload).digest() == digest, f"{name}: checksum mismatch"
        assert hashlib.sha256(key).hexdigest() + ".bin" == name, f"{name}: not its key's name"
    return {n: os.stat(os.path.join(cache, n)).st_ino for n in names}


def wait_ready(tmp, procs):
    """Until every process has imported tack and read its kernel (or one has died)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if all(os.path.exists(os.path.join(tmp, f"go.{p.pid}")) for p in procs):
            return
        if any(p.poll() is not None for p in procs):
            return  # its error is reported below
        time.sleep(0.01)
    raise TimeoutError("workers did not start")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--procs", type=int, default=8)
    args = parser.parse_args()
    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        tag = uuid.uuid4().hex[:12]  # a kernel no cache has seen
        seed = 1.0 + int(tag[:6], 16) / 2**24
        name = f"race_{tag}"
        with open(os.path.join(tmp, name + ".py"), "w") as f:
            f.write(KERNEL.format(tag=tag, seed=repr(seed)))
        cache, go = os.path.join(tmp, "cache"), os.path.join(tmp, "go")
        env = dict(os.environ, TACK_CACHE_DIR=cache)
        cmd = [sys.executable, "-c", WORKER, tmp, name, go]
        procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(args.procs)]
        wait_ready(tmp, procs)
        open(go, "w").close()
        outs = [p.communicate(timeout=120) for p in procs]
        for p, (_, err) in zip(procs, outs):
            assert p.returncode == 0, f"worker failed ({p.returncode}): {err}"

        x = np.linspace(0.0, 1.0, 1000)
        expected = sum(np.sin(x * (k + 1)) * seed for k in range(8))
        results = {out.strip() for out, _ in outs}
        assert len(results) == 1, "the processes disagree"
        got = np.frombuffer(bytes.fromhex(results.pop()), dtype=np.float64)
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-12), "wrong result"
        before = check_entries(cache)
        assert before, "nothing was written to the cache"

        # A later process loads what the race left: same result, no entry rewritten.
        os.remove(go)
        late = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
        wait_ready(tmp, [late])
        open(go, "w").close()
        out, _ = late.communicate(timeout=60)
        assert late.returncode == 0 and np.array_equal(
            np.frombuffer(bytes.fromhex(out.strip()), dtype=np.float64), got)
        after = check_entries(cache)
        assert after == before, "a later process rewrote the entries instead of loading them"
        print(f"cache_race: {args.procs} processes, {len(before)} entries intact, "
              "a later process loaded them")


if __name__ == "__main__":
    main()
