"""Functions with non-ASCII names (`def ρ_plus`, issue 32) compile for every target: symbol
names are ASCII, as LLVM's and the CUDA driver's look-ups need."""
import numpy as np

from kiln import cfunc, njit, prange, vectorize


def ρ_plus(x):
    return x + 1


def σ_total(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


def δ_twice(x):
    return x * 2.0


def test_njit_parallel_vectorize_and_cfunc():
    assert njit(ρ_plus)(2) == ρ_plus(2)
    a = np.arange(100.0)
    assert njit(parallel=True)(σ_total)(a) == σ_total(a)
    assert np.array_equal(vectorize(["f8(f8)"])(δ_twice)(a), a * 2.0)
    assert np.array_equal(vectorize(δ_twice)(a), a * 2.0)
    assert cfunc("f8(f8)")(δ_twice).ctypes(1.25) == 2.5


def test_cuda_kernel_entry_is_an_identifier():
    from kiln import cuda

    def κ_add(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1
    ptx, _ = cuda.compile_ptx(κ_add, "void(f8[:])")
    (entry,) = [line for line in ptx.splitlines() if ".entry" in line]
    assert entry.split(".entry")[1].split("(")[0].strip().isascii()
