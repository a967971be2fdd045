"""`cuda.fp16`: half-precision arithmetic, comparisons and math on float16 values.

Each function rounds its result to float16, as the GPU's half instructions do; the
compiled back-end maps them to those instructions (fp16_lowering.py). Comparisons are
ordered (False with a NaN) and max/min let NaN lose, as CUDA's __heq ... __hmax do.
"""
from __future__ import annotations

import numpy as np

_h = np.float16


def hadd(a, b):
    return _h(_h(a) + _h(b))


def hsub(a, b):
    return _h(_h(a) - _h(b))


def hmul(a, b):
    return _h(_h(a) * _h(b))


def hdiv(a, b):
    return _h(np.float32(_h(a)) / np.float32(_h(b)))


def hneg(a):
    return _h(-_h(a))


def habs(a):
    return _h(abs(_h(a)))


def hfma(a, b, c):
    """a * b + c with one rounding."""
    return _h(np.float64(_h(a)) * np.float64(_h(b)) + np.float64(_h(c)))


def hmax(a, b):
    """The larger; NaN loses (CUDA's __hmax)."""
    return _h(np.fmax(_h(a), _h(b)))


def hmin(a, b):
    """The smaller; NaN loses (CUDA's __hmin)."""
    return _h(np.fmin(_h(a), _h(b)))


def heq(a, b):
    return bool(_h(a) == _h(b))


def hne(a, b):
    """Ordered, as CUDA's __hne: False when either is NaN."""
    a, b = _h(a), _h(b)
    return bool(a == a and b == b and a != b)


def hgt(a, b):
    return bool(_h(a) > _h(b))


def hge(a, b):
    return bool(_h(a) >= _h(b))


def hlt(a, b):
    return bool(_h(a) < _h(b))


def hle(a, b):
    return bool(_h(a) <= _h(b))


def _unary(name, fn):
    def half(a):
        return _h(fn(np.float32(_h(a))))
    half.__name__ = half.__qualname__ = name
    half.__doc__ = f"{fn.__name__} of a float16, rounded to float16."
    return half


hsqrt = _unary("hsqrt", np.sqrt)
hrsqrt = _unary("hrsqrt", lambda x: 1 / np.sqrt(x))
hrcp = _unary("hrcp", np.reciprocal)
hexp = _unary("hexp", np.exp)
hexp2 = _unary("hexp2", np.exp2)
hexp10 = _unary("hexp10", lambda x: np.float32(10) ** x)
hlog = _unary("hlog", np.log)
hlog2 = _unary("hlog2", np.log2)
hlog10 = _unary("hlog10", np.log10)
hsin = _unary("hsin", np.sin)
hcos = _unary("hcos", np.cos)
hfloor = _unary("hfloor", np.floor)
hceil = _unary("hceil", np.ceil)
htrunc = _unary("htrunc", np.trunc)
hrint = _unary("hrint", np.rint)


def is_float16_supported() -> bool:
    """Whether kernels can use float16: always (every target kiln compiles for, sm_70 and
    later, has half instructions; the simulator computes them with NumPy), as in Numba."""
    return True
