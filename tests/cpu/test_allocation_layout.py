"""Where the runtime puts the data of an allocation (runtime/nrt.py): 64-byte aligned from
64 bytes up (the widest vector unit), 16-byte aligned right after the header below that, so
small objects stay dense. Arrays made in compiled code show the address NumPy sees."""
import numpy as np

from kiln import njit
from kiln.runtime.nrt import ALIGNMENT, allocation_stats


@njit
def filled(n):
    a = np.empty(n)
    for i in range(n):
        a[i] = i * 0.5
    return a


def test_small_data_is_16_byte_aligned_and_large_data_64():
    before = allocation_stats()
    for n in range(0, 20):
        a = filled(n)
        assert np.array_equal(a, np.arange(n) * 0.5)
        nbytes = 8 * n
        address = a.ctypes.data
        assert address % (ALIGNMENT if nbytes >= ALIGNMENT else 16) == 0, (n, address)
        del a
    assert allocation_stats().live == before.live
