"""A Dask job against one process: a chunked stencil (`map_blocks` with an @njit kernel)
over a LocalCluster of 2 worker processes, and the same kernel over the whole array in
this process (chunk edges are not exchanged: it times the work, not a halo). `python
bench/dask_job.py [n]` prints both times (medians of 5) and the ratio.
Needs `pip install -e '.[dask]'`."""
from __future__ import annotations

import statistics
import sys
import time

import numpy as np


def stencil(block):
    out = np.empty_like(block)
    out[0], out[-1] = block[0], block[-1]
    for _ in range(20):      # enough work per element to be worth shipping
        out[1:-1] = 0.25 * block[:-2] + 0.5 * block[1:-1] + 0.25 * block[2:]
        block = out.copy()
    return out


def median_time(run, repeats=5):
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    import dask.array as da
    from dask.distributed import Client, LocalCluster
    from kiln import njit

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000_000
    kernel = njit(stencil)
    x = np.random.default_rng(0).standard_normal(n)
    one = median_time(lambda: kernel(x).sum())
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster):
        chunks = da.from_array(x, chunks=n // 2).persist()
        two = median_time(lambda: chunks.map_blocks(kernel, dtype=x.dtype).sum().compute())
    print(f"stencil of {n} float64 (20 sweeps): one process {one * 1e3:.1f} ms; "
          f"Dask, 2 worker processes, 2 chunks {two * 1e3:.1f} ms; ratio {two / one:.2f}")


if __name__ == "__main__":
    main()
