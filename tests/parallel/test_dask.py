"""kiln on Dask: dispatchers, ufuncs and gufuncs pickled to 2 worker processes on loopback
and run there, checked against NumPy on the same data."""
import math

import numpy as np
import pytest

import kiln
from kiln import guvectorize, njit, prange, vectorize

da = pytest.importorskip("dask.array", reason="Dask is not installed: pip install "
                                                "'kiln[dask]' to run the Dask tests")
distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed: "
                                                        "pip install 'kiln[dask]'")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_map_blocks_with_an_allocating_njit_kernel(client):
    @njit
    def smooth(block):
        out = np.empty_like(block)
        out[0], out[-1] = block[0], block[-1]
        out[1:-1] = (block[:-2] + block[1:-1] + block[2:]) / 3.0
        return out

    x = np.sin(np.linspace(0, 20, 10_000))
    got = da.from_array(x, chunks=2_500).map_blocks(smooth, dtype=x.dtype).compute()
    expected = np.concatenate([smooth.py_func(b) for b in np.split(x, 4)])
    assert np.allclose(got, expected, rtol=1e-15)


def test_ufunc_on_a_dask_array_and_apply_gufunc(client):
    @vectorize(["float64(float64, float64)"])
    def hyp(a, b):
        return math.sqrt(a * a + b * b)

    @guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
    def dot(a, b, res):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i] * b[i]
        res[0] = s

    x = np.random.default_rng(0).standard_normal((400, 8))
    dx = da.from_array(x, chunks=(100, 8))
    assert np.allclose(hyp(dx, dx).compute(), np.hypot(x, x), rtol=1e-15)
    got = da.apply_gufunc(dot, "(n),(n)->()", dx, dx, output_dtypes=float).compute()
    assert np.allclose(got, np.einsum("ij,ij->i", x, x), rtol=1e-14)


def test_client_map_of_a_parallel_dispatcher_within_the_worker_budget(client):
    @njit(parallel=True)
    def total(n):
        s = 0.0
        for i in prange(n):
            s += math.sqrt(i)
        return s, kiln.get_num_threads()

    results = client.gather(client.map(total, [10, 1000, 100_000]))
    for n, (s, threads) in zip([10, 1000, 100_000], results):
        assert math.isclose(s, sum(math.sqrt(i) for i in range(n)), rel_tol=1e-12)
        assert threads == 1      # Dask's workers set OMP_NUM_THREADS=1: no oversubscription


def test_exception_reaches_the_client_with_type_and_message(client):
    @njit
    def checked(x):
        if x < 0:
            raise ValueError("x must not be negative")
        return math.sqrt(x)

    assert client.submit(checked, 4.0).result() == 2.0
    with pytest.raises(ValueError, match="x must not be negative"):
        client.submit(checked, -1.0).result()


CACHED_MODULE = '''
import numpy as np
from kiln import njit


@njit(cache=True)
def cached_norm(n):
    x = np.arange(n) * 0.5
    return np.sqrt((x * x).sum())


def from_cache():
    spec = next(iter(cached_norm._specializations.values()))
    return spec.result.compiled.from_cache
'''


def test_cache_true_compiled_on_two_workers_at_once(client, tmp_path):
    import importlib
    import os
    import sys
    (tmp_path / "kiln_cached_job.py").write_text(CACHED_MODULE)
    cache = str(tmp_path / "cache")

    def setup(path, cache_dir):
        sys.path.insert(0, path)
        os.environ["KILN_CACHE_DIR"] = cache_dir

    def call_and_report(n):
        module = importlib.import_module("kiln_cached_job")
        return module.cached_norm(n), module.from_cache()

    client.run(setup, str(tmp_path), cache)
    try:
        workers = sorted(client.scheduler_info()["workers"])
        futures = [client.submit(call_and_report, 1000, workers=[w], pure=False)
                   for w in workers]                      # both compile and write at once
        results = client.gather(futures)
        expected = math.sqrt(sum((i * 0.5) ** 2 for i in range(1000)))
        assert all(math.isclose(value, expected, rel_tol=1e-14) for value, _ in results)
        entries = [f for _, _, files in os.walk(cache) for f in files]
        assert entries and not any(f.startswith(".tmp-") for f in entries)
        # a new process takes the machine code from the cache the workers wrote
        import subprocess
        env = dict(os.environ, KILN_CACHE_DIR=cache,
                   PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
        out = subprocess.run([sys.executable, "-c", "import kiln_cached_job as m; "
                              "m.cached_norm(1000); print(m.from_cache())"],
                             env=env, capture_output=True, text=True)
        assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr
    finally:
        client.run(teardown, str(tmp_path))


def teardown(path):
    import os
    import sys
    sys.path.remove(path)
    os.environ.pop("KILN_CACHE_DIR", None)
    sys.modules.pop("kiln_cached_job", None)
