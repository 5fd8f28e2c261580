"""`import tack` time in fresh processes: wall-clock and CPU (user + system) milliseconds, the
median of N runs each. CPU time is what the check uses: on a loaded machine the wall clock
mostly measures waiting for a core.

    python scripts/import_time.py [N]     (run with the interpreter whose tack is measured)
"""

import statistics
import subprocess
import sys

PROBE = (
    "import time; w = time.perf_counter(); c = time.process_time(); import tack; "
    "print((time.perf_counter() - w) * 1e3, (time.process_time() - c) * 1e3)"
)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    runs = [subprocess.run([sys.executable, "-c", PROBE], check=True, capture_output=True,
                           text=True).stdout.split() for _ in range(n)]
    wall = statistics.median(float(r[0]) for r in runs)
    cpu = statistics.median(float(r[1]) for r in runs)
    print(f"{wall:.1f} {cpu:.1f}")


if __name__ == "__main__":
    main()
