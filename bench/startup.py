"""Start-up figures: `import kiln`, and the first call of a cached function in a new
process, for kiln and Numba in the same run (`python -m bench.startup [--repeats N]`).

Each compiler's functions live in a module of their own in a temporary folder; one process
fills the cache (and Python's bytecode cache, kept in the temporary folder), then each
timed process imports the compiler (timed: "import"), then imports the module and calls
one function once (timed: decorating and the first call, i.e. what a cached first call
costs beyond the import). Medians, in ms.
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
    import json, sys, time
    import numpy as np
    t0 = time.perf_counter()
    import {backend}
    t1 = time.perf_counter()
    x, a = np.arange(1000.0), np.ones((50, 50))
    args = {{"sum_of_squares": (x,), "dot": (a, a), "parallel_sum": (x,)}}[sys.argv[1]]
    import kernels
    getattr(kernels, sys.argv[1])(*args)
    print(json.dumps([t1 - t0, time.perf_counter() - t1]))
""")

FUNCTIONS = ("sum_of_squares", "dot", "parallel_sum")


def measure(backend: str, repeats: int) -> dict:
    """{"import" or function name: median ms} for `backend` ("kiln" or "numba"), each
    function's first call in processes of its own, or {"error": line}."""
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "kernels.py"), "w") as f:
            f.write(KERNELS.format(backend=backend))
        # bytecode cached (in the temporary folder), as in a user's install
        env = dict(os.environ, KILN_CACHE_DIR=os.path.join(folder, "cache"),
                   NUMBA_CACHE_DIR=os.path.join(folder, "cache"),
                   PYTHONPYCACHEPREFIX=os.path.join(folder, "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        imports, calls = [], {}
        for function in FUNCTIONS:
            for _ in range(repeats + 1):   # the first fills the cache
                done = subprocess.run(
                    [sys.executable, "-c", CHILD.format(backend=backend), function],
                    cwd=folder, env=env, capture_output=True, text=True)
                if done.returncode != 0:
                    return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
                imported, called = json.loads(done.stdout.splitlines()[-1])
                imports.append(imported)
                calls.setdefault(function, []).append(called)
    return {"import": 1e3 * statistics.median(imports),
            **{f: 1e3 * statistics.median(times[1:]) for f, times in calls.items()}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", help="also write the figures, the date and the load "
                        "average (uptime's) before and after to this file")
    args = parser.parse_args(argv)
    load = [os.getloadavg()]
    results = {backend: measure(backend, args.repeats) for backend in ("kiln", "numba")}
    load.append(os.getloadavg())
    print(f"{'ms (median of ' + str(args.repeats) + ')':24}" +
          "".join(f"{b:>10}" for b in results))
    for figure in ("import",) + FUNCTIONS:
        label = "import" if figure == "import" else f"cached first call: {figure}"
        cells = [f"{r[figure]:10.1f}" if figure in r else f"{'error':>10}"
                 for r in results.values()]
        print(f"{label:24}" + "".join(cells) if len(label) <= 24 else
              f"{label}\n{'':24}" + "".join(cells))
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
