"""A prange loop inside a `try` whose `except` can see the loop's state runs serially:
when an iteration raises, the handler sees the iterations before it done and those after
it not, as the serial loop leaves them (threads would have run some of the later ones)."""
import warnings

import numpy as np

from kiln import njit, prange


def marks(arr, x):
    out = arr.copy()
    try:
        for i in prange(arr.size):
            if i == x:
                raise ValueError
            out[i] = arr[i] + i
    except Exception:
        out[i] = -1
    return out


def test_the_handler_sees_the_serial_loops_state():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = njit(parallel=True)(marks)
        for x in (0, 6, 9, 10):
            np.testing.assert_array_equal(f(np.arange(10), x), marks(np.arange(10), x))
    report = f.overloads[next(iter(f.overloads))].typed.prange_loops[0]
    assert not report.parallel and "except" in report.reason
