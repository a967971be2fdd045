"""datetime64/timedelta64 in kernels (numba-cuda's test_datetime): the same typing as on
the CPU, the values' int64 as PTX parameters, and the kernels run (on the simulator, or a
GPU with KILN_TEST_CUDA_HARDWARE=1) against NumPy."""
import struct

import numpy as np
import pytest

from kiln import cuda, types
from kiln.cuda import toolkit
from kiln.cuda.abi import Layout

D, W = types.NPDatetime("D"), types.NPTimedelta("W")


def differences(dates, target, delta, matches, shifted):
    for i in range(cuda.grid(1), matches.size, cuda.gridsize(1)):
        matches[i] = dates[i] == target
        shifted[i] = dates[i] - delta


def test_datetime_kernel_compiles_to_ptx():
    ptx, _ = cuda.compile_ptx(differences, (D[::1], types.NPDatetime("M"), W,
                                            types.boolean[::1], D[::1]), cc=(9, 0))
    if toolkit.ptxas_path() is not None:
        toolkit.check_ptx(ptx, (9, 0))


def test_datetime_parameters_are_their_int64():
    layout = Layout((D, W, types.int32))
    values = (np.datetime64("2005-02-06"), np.timedelta64("NaT", "W"), 3)
    assert struct.unpack("@qqi", layout.pack(values)) == \
        (int(values[0].view("i8")), np.iinfo(np.int64).min, 3)


@pytest.mark.cuda
def test_datetime_kernel_matches_numpy():
    kernel = cuda.jit(differences)
    dates = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    dates[3] = np.datetime64("NaT")
    target, delta = np.datetime64("2005-02", "M"), np.timedelta64(2, "W")
    matches = np.zeros(dates.size, np.bool_)
    shifted = np.zeros_like(dates)
    kernel[1, 32](dates, target, delta, matches, shifted)
    assert np.array_equal(matches, dates == target)
    assert np.array_equal(shifted.view("i8"), (dates - delta).view("i8"))
