"""Start-up figures: `import kiln`, and the first call of a cached function in a new
process, for kiln and Numba in the same run (`python -m bench.startup [--repeats N]`).

Each compiler's functions live in a module of their own in a temporary folder; one process
fills the cache (and Python's bytecode cache, kept in the temporary folder), then each
timed process imports the compiler (timed: "import"), then imports the module and calls
one function once (timed: decorating and the first call, i.e. what a cached first call
costs beyond the import). Medians, in ms, of the wall time and of the process's CPU time
(user and system, all its threads: on a loaded machine the wall time also counts the
waits for a core, which the CPU time leaves out; a parallel call's CPU time counts its
threads' waits in the team's barrier).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

KERNELS = textwrap.dedent("""
    import numpy as np
    from {backend} import njit, prange

    @njit(cache=True)
    def sum_of_squares(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i] * x[i]
        return s

    @njit(cache=True)
    def dot(a, b):
        return np.dot(a, b) + 1.0

    @njit(cache=True, parallel=True)
    def parallel_sum(x):
        s = 0.0
        for i in prange(x.shape[0]):
            s += x[i] * x[i]
        return s
""")

CHILD = textwrap.dedent("""
    import json, resource, sys, time
    import numpy as np

    def cpu():
        used = resource.getrusage(resource.RUSAGE_SELF)
        return used.ru_utime + used.ru_stime
    t0, c0 = time.perf_counter(), cpu()
    import {backend}
    t1, c1 = time.perf_counter(), cpu()
    x, a = np.arange(1000.0), np.ones((50, 50))
    args = {{"sum_of_squares": (x,), "dot": (a, a), "parallel_sum": (x,)}}[sys.argv[1]]
    import kernels
    getattr(kernels, sys.argv[1])(*args)
    t2, c2 = time.perf_counter(), cpu()
    print(json.dumps([t1 - t0, t2 - t1, c1 - c0, c2 - c1]))
""")

FUNCTIONS = ("sum_of_squares", "dot", "parallel_sum")


def measure(backend: str, repeats: int) -> dict:
    """{"import" or function name: median ms of wall time, "cpu": {the same: median ms of
    CPU time}} for `backend` ("kiln" or "numba"), each function's first call in processes
    of its own, or {"error": line}."""
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "kernels.py"), "w") as f:
            f.write(KERNELS.format(backend=backend))
        # bytecode cached (in the temporary folder), as in a user's install
        env = dict(os.environ, KILN_CACHE_DIR=os.path.join(folder, "cache"),
                   NUMBA_CACHE_DIR=os.path.join(folder, "cache"),
                   PYTHONPYCACHEPREFIX=os.path.join(folder, "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)

        def run(function):
            done = subprocess.run(
                [sys.executable, "-c", CHILD.format(backend=backend), function],
                cwd=folder, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError((done.stderr.strip().splitlines() or ["?"])[-1])
            return json.loads(done.stdout.splitlines()[-1])
        figures = {}   # "import" or function name -> [(wall, CPU), ...]
        try:
            for function in FUNCTIONS:   # fills the caches
                run(function)
            # the folder left settled, as a user's is: kiln keeps what it reads from the
            # files it depends on across processes once they are 2 s old (runtime/cache.py)
            time.sleep(2.5)
            for function in FUNCTIONS:
                for _ in range(repeats):
                    imported, called, imported_cpu, called_cpu = run(function)
                    figures.setdefault("import", []).append((imported, imported_cpu))
                    figures.setdefault(function, []).append((called, called_cpu))
        except RuntimeError as e:
            return {"error": str(e)}
    median = statistics.median
    return {**{name: 1e3 * median(wall for wall, _ in times)
               for name, times in figures.items()},
            "cpu": {name: 1e3 * median(cpu for _, cpu in times)
                    for name, times in figures.items()}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--backends", default="kiln,numba",
                        help="comma-separated: kiln, numba (default: both)")
    parser.add_argument("--json", help="also write the figures, the date and the load "
                        "average (uptime's) before and after to this file")
    args = parser.parse_args(argv)
    load = [os.getloadavg()]
    results = {backend: measure(backend, args.repeats)
               for backend in args.backends.split(",")}
    load.append(os.getloadavg())
    print(f"{'ms (median of ' + str(args.repeats) + ')':24}" +
          "".join(f"{b + ' wall':>12}{b + ' CPU':>12}" for b in results))
    for figure in ("import",) + FUNCTIONS:
        label = "import" if figure == "import" else f"cached first call: {figure}"
        cells = [f"{r[figure]:12.1f}{r['cpu'][figure]:12.1f}" if figure in r else
                 f"{'error':>12}{'':12}" for r in results.values()]
        print(f"{label:24}" + "".join(cells) if len(label) <= 24 else
              f"{label}\n{'':24}" + "".join(cells))
    print(f"load average {load[0][0]:.1f} before, {load[1][0]:.1f} after")
    for backend, r in results.items():
        if "error" in r:
            print(f"{backend}: {r['error']}")
    if args.json:
        import datetime
        with open(args.json, "w") as f:
            json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                           timespec="seconds"),
                       "repeats": args.repeats, "load_average": load, "ms": results}, f,
                      indent=1)
    return results


if __name__ == "__main__":
    main()
