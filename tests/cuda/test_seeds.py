"""The seed programs: what kiln's CUDA users write first."""
import math

import numpy as np
import pytest

from kiln import cuda

pytestmark = pytest.mark.cuda


@cuda.jit
def increment_by_one(an_array):
    pos = cuda.grid(1)
    if pos < an_array.size:
        an_array[pos] += 1


@cuda.jit
def double_2d(an_array):
    x, y = cuda.grid(2)
    if x < an_array.shape[0] and y < an_array.shape[1]:
        an_array[x, y] *= 2


def test_increment_1d_host_array_is_copied_back():
    a = np.arange(100, dtype=np.float64)
    threadsperblock = 32
    blockspergrid = (a.size + threadsperblock - 1) // threadsperblock
    increment_by_one[blockspergrid, threadsperblock](a)
    np.testing.assert_array_equal(a, np.arange(100) + 1)


def test_increment_1d_device_array_stays_on_device():
    d = cuda.to_device(np.zeros(50, np.int32))
    increment_by_one[2, 32](d)
    increment_by_one[2, 32](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.full(50, 2))


def test_double_2d():
    a = np.arange(24 * 20, dtype=np.float32).reshape(24, 20)
    expected = a * 2
    threadsperblock = (16, 16)
    blockspergrid = (math.ceil(a.shape[0] / 16), math.ceil(a.shape[1] / 16))
    double_2d[blockspergrid, threadsperblock](a)
    np.testing.assert_array_equal(a, expected)


@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    return rho * math.cos(theta), rho * math.sin(theta)


@cuda.jit
def polar_kernel(rho, theta, x, y):
    i = cuda.grid(1)
    if i < x.size:
        x[i], y[i] = polar_to_cartesian(rho[i], theta[i])


def test_device_function_called_from_kernel():
    rho = np.linspace(0.5, 2, 40)
    theta = np.linspace(0, 3, 40)
    x, y = np.zeros(40), np.zeros(40)
    polar_kernel[2, 32](rho, theta, x, y)
    np.testing.assert_allclose(x, rho * np.cos(theta))
    np.testing.assert_allclose(y, rho * np.sin(theta))


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_saxpy_timed_with_events():
    n = 256
    x = cuda.to_device(np.arange(n, dtype=np.float32))
    y = cuda.to_device(np.ones(n, dtype=np.float32))
    out = cuda.device_array_like(x)
    start, end = cuda.event(), cuda.event()
    start.record()
    saxpy[(n + 127) // 128, 128](np.float32(2.0), x, y, out)
    end.record()
    end.synchronize()
    ms = cuda.event_elapsed_time(start, end)
    assert ms > 0 and start.elapsed_time(end) == ms
    np.testing.assert_allclose(out.copy_to_host(), 2 * np.arange(n) + 1)


TPB = 16


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=cuda.float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=cuda.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = 0.0
    for i in range(bpg):
        sA[tx, ty] = 0
        sB[tx, ty] = 0
        if x < A.shape[0] and (ty + i * TPB) < A.shape[1]:
            sA[tx, ty] = A[x, ty + i * TPB]
        if y < B.shape[1] and (tx + i * TPB) < B.shape[0]:
            sB[tx, ty] = B[tx + i * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = tmp


def test_tiled_matmul_shared_memory_and_syncthreads():
    rng = np.random.default_rng(0)
    A = rng.random((64, 64), dtype=np.float32)
    B = rng.random((64, 64), dtype=np.float32)
    C = np.zeros((64, 64), dtype=np.float32)
    matmul_tiled[(4, 4), (TPB, TPB)](A, B, C)  # about 1.2 s under the simulator (docs/cuda.md)
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)


@cuda.jit
def bubblesort(values):
    n = values.size
    for i in range(n):
        for j in range(n - i - 1):
            if values[j] > values[j + 1]:
                values[j], values[j + 1] = values[j + 1], values[j]


def test_single_thread_bubblesort():
    rng = np.random.default_rng(1)
    values = rng.integers(-100, 100, 40).astype(np.int64)
    expected = np.sort(values)
    bubblesort[1, 1](values)
    np.testing.assert_array_equal(values, expected)


@cuda.jit
def sum_with_atomics(values, total):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(total, 0, values[i])


@cuda.jit
def block_sum_then_atomic(values, total):
    partial = cuda.shared.array(64, cuda.int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    partial[tid] = values[i] if i < values.size else 0
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if tid < step:
            partial[tid] += partial[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        cuda.atomic.add(total, 0, partial[0])


def test_reduction_with_atomics():
    values = np.arange(1, 1001, dtype=np.int64)
    total = np.zeros(1, np.int64)
    sum_with_atomics[8, 128](values, total)
    assert total[0] == values.sum()
    total[0] = 0
    block_sum_then_atomic[16, 64](values, total)
    assert total[0] == values.sum()
