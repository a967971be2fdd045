"""NumPy's everyday routines in compiled code, each written as NumPy writes it (so the
numbers agree): flip, diff, outer, roll, isclose, allclose, array_equal, nonzero, argwhere,
one-argument np.where, bincount, interp, repeat, tile, digitize, histogram, convolve.
Whole-array expressions inside them are fused like the user's. (Statistics: statistics.py.)"""
from __future__ import annotations

import numpy as np

from .. import types as t
from .allocation import TOO_BIG, empty_array
from .reductions import in_c_order
from .sorting import search_sorted
from ..typing.registry import literal_flag, omitted, overload, register_jitable


def _arrays(*types):
    return all(isinstance(a, t.Array) for a in types)


def _by_ndim(a, impls):
    """The implementation for a's number of dimensions, or None when there is none."""
    return impls.get(a.ndim) if isinstance(a, t.Array) else None


@overload(np.flip)
def _flip(a):
    """Every axis reversed: a view, as in NumPy."""
    def flip1(a):
        return a[::-1]

    def flip2(a):
        return a[::-1, ::-1]

    def flip3(a):
        return a[::-1, ::-1, ::-1]
    return _by_ndim(a, {1: flip1, 2: flip2, 3: flip3})


@overload(np.diff)
def _diff(a):
    """The first difference along the last axis (of bools: where they differ, as NumPy)."""
    def diff1(a):
        return a[1:] - a[:-1]

    def diff2(a):
        return a[:, 1:] - a[:, :-1]

    def differ1(a):
        return a[1:] != a[:-1]

    def differ2(a):
        return a[:, 1:] != a[:, :-1]
    if isinstance(a, t.Array) and a.dtype == t.boolean:
        return _by_ndim(a, {1: differ1, 2: differ2})
    return _by_ndim(a, {1: diff1, 2: diff2})


@overload(np.outer)
def _outer(a, b):
    if not _arrays(a, b):
        return None

    def outer(a, b):
        return a.ravel()[:, None] * b.ravel()[None, :]
    return outer


@overload(np.roll)
def _roll(a, shift):
    """The flattened array shifted by `shift` places (wrapping), in a's shape."""
    if not isinstance(a, t.Array) or not isinstance(shift, t.Integer):
        return None
    dt = a.dtype

    def roll(a, shift):
        flat = in_c_order(a)
        n = flat.shape[0]
        out = empty_array(n, dt)
        if n:
            s = shift % n
            out[s:] = flat[:n - s]
            out[:s] = flat[n - s:]
        return out.reshape(a.shape)

    def roll_item(a, shift):
        return a.copy()     # a 0-d array: one item, nowhere to move
    return roll_item if a.ndim == 0 else roll


@overload(np.isclose)
def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    if not (isinstance(a, (t.Array, t.Number)) and isinstance(b, (t.Array, t.Number))):
        return None

    def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        x, y = _floating(a), _floating(b)   # NumPy compares in floating point
        finite = np.isfinite(x) & np.isfinite(y)
        close = np.where(finite, np.abs(x - y) <= atol + rtol * np.abs(y), x == y)
        return close | (equal_nan & np.isnan(x) & np.isnan(y))
    return isclose


def _floating(v):
    """`v` in floating point, as np.isclose converts it."""


@overload(_floating)
def _floating_overload(v):
    if isinstance(v.dtype if isinstance(v, t.Array) else v, t.Complex):
        return lambda v: v     # (`* 1.0` would multiply as complex numbers: inf*0 is NaN)
    return lambda v: v * 1.0


@overload(np.allclose)
def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    if not (_arrays(a) or _arrays(b)):
        return None

    def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        return bool(np.all(np.isclose(a, b, rtol, atol, equal_nan)))
    return allclose


@overload(np.array_equal)
def _array_equal(a, b):
    if not _arrays(a, b):
        return None
    if a.ndim != b.ndim:
        return lambda a, b: False

    def array_equal(a, b):
        return a.shape == b.shape and bool(np.all(a == b))
    return array_equal


@register_jitable
def _positions(a):
    """The flat C-order positions of a's nonzero items."""
    flat = in_c_order(a)
    out = empty_array(np.count_nonzero(flat), np.int64)
    k = 0
    for i in range(flat.shape[0]):
        if flat[i]:
            out[k] = i
            k += 1
    return out


def _nonzero(a):
    """A tuple of index arrays, one per axis (1-d and 2-d arrays)."""
    def nonzero1(a):
        return (_positions(a),)

    def nonzero2(a):
        flat = _positions(a)
        return flat // a.shape[1], flat % a.shape[1]
    return _by_ndim(a, {1: nonzero1, 2: nonzero2})


overload(np.nonzero)(_nonzero)


@overload(np.where)
def _where_one(condition):
    return _nonzero(condition)


@overload(np.where)
def _where_of_scalars(condition, x, y):
    """np.where always gives an array: of scalars only, a 0-d one (whose dtype then counts
    in NumPy's promotion as a Python scalar's would not). The elementwise np.where
    (ufuncs.py) takes operands of which one is an array."""
    if any(isinstance(o, t.Array) for o in (condition, x, y)):
        return None
    return lambda condition, x, y: np.where(np.asarray(condition), x, y)


@overload(np.argwhere)
def _argwhere(a):
    if not isinstance(a, t.Array) or a.ndim == 0:
        return None

    def argwhere(a):
        flat = _positions(a)
        out = empty_array((flat.shape[0], a.ndim), np.int64)
        for k in range(flat.shape[0]):
            rest = flat[k]
            for d in range(a.ndim - 1, -1, -1):
                out[k, d] = rest % a.shape[d]
                rest //= a.shape[d]
        return out
    return argwhere


@overload(np.bincount)
def _bincount(x, minlength=0):
    if not (isinstance(x, t.Array) and x.ndim == 1 and isinstance(x.dtype, (t.Integer,
                                                                            t.Boolean))):
        return None

    def bincount(x, minlength=0):
        if minlength < 0:
            raise ValueError("'minlength' must not be negative")
        top = -1
        for v in x:   # as NumPy, cast to intp: a uint64 above int64's range is negative
            if np.int64(v) < 0:
                raise ValueError("'list' argument must have no negative elements")
            top = max(top, np.int64(v))
        if top == np.iinfo(np.int64).max:   # top + 1 counts would wrap (NumPy 2.4 corrupts
            raise ValueError(TOO_BIG)       # its heap there)
        out = np.zeros(max(top + 1, minlength), np.int64)
        for v in x:
            out[np.int64(v)] += 1
        return out
    return bincount


@register_jitable
def _interp_one(v, xp, fp):
    n = xp.shape[0]
    if v > xp[n - 1]:
        return fp[n - 1]
    if v < xp[0]:
        return fp[0]
    if v == xp[n - 1]:
        return fp[n - 1]
    if v != v:
        return v
    low, high = 0, n - 1
    while high - low > 1:  # xp[low] <= v < xp[high]
        middle = (low + high) // 2
        if xp[middle] <= v:
            low = middle
        else:
            high = middle
    if xp[low] == v:
        return fp[low]
    slope = (fp[low + 1] - fp[low]) / (xp[low + 1] - xp[low])
    result = slope * (v - xp[low]) + fp[low]
    if result != result:  # NumPy's second try from the right end of the interval
        result = slope * (v - xp[low + 1]) + fp[low + 1]
        if result != result and fp[low] == fp[low + 1]:
            result = fp[low]
    return result


@overload(np.interp)
def _interp(x, xp, fp):
    if not (_arrays(xp, fp) and xp.ndim == fp.ndim == 1):
        return None
    if isinstance(x, t.Number):
        def interp_one(x, xp, fp):
            if xp.shape[0] == 0 or xp.shape[0] != fp.shape[0]:
                raise ValueError("fp and xp are not of the same length, or are empty")
            return _interp_one(np.float64(x), xp * 1.0, fp * 1.0)
        return interp_one
    if not isinstance(x, t.Array):
        return None

    def interp(x, xp, fp):
        if xp.shape[0] == 0 or xp.shape[0] != fp.shape[0]:
            raise ValueError("fp and xp are not of the same length, or are empty")
        xs, xq, fq = in_c_order(x), xp * 1.0, fp * 1.0
        out = empty_array(xs.shape[0], np.float64)
        for i in range(xs.shape[0]):
            out[i] = _interp_one(np.float64(xs[i]), xq, fq)
        return out.reshape(x.shape)
    return interp


@overload(np.repeat)
def _repeat(a, repeats):
    """Each item of the flattened array `repeats` times."""
    if not isinstance(a, t.Array) or not isinstance(repeats, t.Integer):
        return None
    dt = a.dtype

    def repeat(a, repeats):
        if repeats < 0:
            raise ValueError("negative dimensions are not allowed")
        x = in_c_order(a)
        out = empty_array(x.shape[0] * repeats, dt)
        for i in range(x.shape[0]):
            for k in range(repeats):
                out[i * repeats + k] = x[i]
        return out
    return repeat


@overload(np.tile)
def _tile(a, reps):
    """A 1-d array repeated `reps` times end to end."""
    if not (isinstance(a, t.Array) and a.ndim == 1 and isinstance(reps, t.Integer)):
        return None
    dt = a.dtype

    def tile(a, reps):
        n = a.shape[0]
        out = empty_array(n * max(reps, 0), dt)
        for k in range(max(reps, 0)):
            out[k * n:(k + 1) * n] = a
        return out
    return tile


@overload(np.digitize)
def _digitize(x, bins, right=False):
    """The bin of each value for increasing `bins` (searchsorted, as NumPy does)."""
    if not (isinstance(bins, t.Array) and bins.ndim == 1):
        return None

    def digitize_one(x, bins, right=False):
        for i in range(1, bins.shape[0]):
            if bins[i] < bins[i - 1]:
                raise ValueError("kiln's digitize needs increasing bins")
        return search_sorted(bins, x, not right)

    def digitize(x, bins, right=False):
        out = np.empty(x.shape, np.int64)
        flat, values = out.reshape(-1), in_c_order(x)
        for i in range(values.shape[0]):
            flat[i] = digitize_one(values[i], bins, right)
        return out
    register_jitable(digitize_one)
    return digitize if isinstance(x, t.Array) else digitize_one


BLOCK = 65536   # NumPy's histogram works through the data in blocks of this many items


@register_jitable
def _equal_bin(v, low, high, scale, edges):
    """The bin of `v` among equal bins over [low, high] (the last bin closed), or -1 outside
    (or NaN), as NumPy computes it: from the scaled value, corrected against the edges."""
    if not (v >= low and v <= high):
        return -1
    bins = edges.shape[0] - 1
    k = int((v - low) * scale)
    if k == bins:
        k -= 1
    if v < edges[k]:
        k -= 1
    elif k + 1 < bins and v >= edges[k + 1]:
        k += 1
    return k


@register_jitable
def _equal_edges(bins, low, high):
    if low == high:
        low, high = low - 0.5, high + 0.5
    return low, high, np.linspace(low, high, bins + 1), bins / (high - low)


@register_jitable
def _equal_bin_counts(x, bins, low, high):
    """Counts in `bins` equal bins over [low, high], and the edges."""
    low, high, edges, scale = _equal_edges(bins, low, high)
    counts = np.zeros(bins, np.int64)
    for v in x:
        k = _equal_bin(v, low, high, scale, edges)
        if k >= 0:
            counts[k] += 1
    return counts, edges


@register_jitable
def _equal_bin_weights(x, w, bins, low, high, totals):
    """`totals` (zeros of the weights' dtype) filled with the weights in each of `bins`
    equal bins, summed as NumPy sums them: in float64 per block of data, in data order,
    each block's sums then cast and added. Returns them and the edges."""
    low, high, edges, scale = _equal_edges(bins, low, high)
    block = np.zeros(bins, np.float64)
    for start in range(0, x.shape[0], BLOCK):
        block[:] = 0.0
        for i in range(start, min(start + BLOCK, x.shape[0])):
            k = _equal_bin(x[i], low, high, scale, edges)
            if k >= 0:
                block[k] += w[i]
        totals += block.astype(totals.dtype)
    return totals, edges


@register_jitable
def _check_increasing(edges):
    for k in range(edges.shape[0] - 1):
        if edges[k] > edges[k + 1]:
            raise ValueError("`bins` must increase monotonically, when an array")


@register_jitable
def _edge_bin_counts(x, edges):
    n = max(edges.shape[0] - 1, 0)
    counts = np.zeros(n, np.int64)
    if n == 0:
        return counts
    first, last = edges[0], edges[n]
    for v in x:
        if v >= first and v <= last:
            counts[min(search_sorted(edges, v, True) - 1, n - 1)] += 1
    return counts


@register_jitable
def _edge_bin_weights(x, w, edges, cumulative, prefix):
    """The weights between given edges as NumPy finds them: per block of data, the
    prefix sums (in `prefix`'s dtype, as `cumsum` sums) of the weights in sorted order,
    taken at each edge, added into `cumulative` (zeros of the weights' dtype, one per
    edge); the histogram is its difference."""
    last = edges.shape[0] - 1
    for start in range(0, x.shape[0], BLOCK):
        stop = min(start + BLOCK, x.shape[0])
        order = np.argsort(x[start:stop])
        values = x[start:stop][order]
        prefix[0] = 0
        for j in range(order.shape[0]):
            prefix[j + 1] = prefix[j] + w[start + order[j]]
        for e in range(last + 1):
            cumulative[e] += prefix[search_sorted(values, edges[e], e == last)]
    return np.diff(cumulative)


@register_jitable
def _positive_bins(bins):
    if bins < 1:
        raise ValueError("`bins` must be positive, when an integer")


@register_jitable
def _given_range(x, bins, range):
    _positive_bins(bins)
    low, high = range[0] * 1.0, range[1] * 1.0
    if low > high:
        raise ValueError("max must be larger than min in range parameter.")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError("supplied range is not finite")
    return low, high


@register_jitable
def _data_range(x, bins, range):
    _positive_bins(bins)
    low, high = (np.min(x) * 1.0, np.max(x) * 1.0) if x.shape[0] else (0.0, 1.0)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError("autodetected range of the data is not finite")
    return low, high


@overload(np.histogram)
def _histogram(a, bins=10, range=None, density=None, weights=None):
    """np.histogram with `bins` a count (over the data's range or `range`) or an array of
    increasing edges (then `range` is ignored, as in NumPy), `weights` of a real dtype
    (the histogram then has the weights' dtype, as in NumPy) and a constant `density`."""
    if not isinstance(a, t.Array):
        return None
    normalized = literal_flag(density, "np.histogram's density")
    weighted = not omitted(weights)
    if weighted and not (isinstance(weights, t.Array)
                         and isinstance(weights.dtype, (t.Integer, t.Float))):
        return None
    wt = weights.dtype if weighted else None
    # cumsum's accumulator: NumPy's default integer for integers narrower than 64 bits
    acc = (t.int64 if getattr(wt, "signed", False) else t.uint64) \
        if isinstance(wt, t.Integer) else wt
    edges_given = isinstance(bins, t.Array) and bins.ndim == 1
    if not edges_given and not isinstance(bins, (int, t.Integer)):
        return None
    no_range = omitted(range)
    if not (no_range or edges_given or isinstance(range, t.BaseTuple) and len(range.types) == 2
            and all(isinstance(e, t.Number) for e in range.types)):
        return None

    bin_range = _data_range if no_range else _given_range

    def by_count(a, bins=10, range=None, density=None, weights=None):
        x = in_c_order(a)
        low, high = bin_range(x, bins, range)
        return _equal_bin_counts(x, bins, low, high)

    def by_count_weighted(a, bins=10, range=None, density=None, weights=None):
        x, w = in_c_order(a), _flat_weights(a, weights)
        low, high = bin_range(x, bins, range)
        return _equal_bin_weights(x, w, bins, low, high, np.zeros(bins, wt))

    def by_edges(a, bins=10, range=None, density=None, weights=None):
        _check_increasing(bins)
        return _edge_bin_counts(in_c_order(a), bins), bins

    def by_edges_weighted(a, bins=10, range=None, density=None, weights=None):
        x, w = in_c_order(a), _flat_weights(a, weights)
        _check_increasing(bins)
        return _edge_bin_weights(x, w, bins, np.zeros(bins.shape[0], wt),
                                 np.empty(min(x.shape[0], BLOCK) + 1, acc)), bins
    if edges_given:
        counted = by_edges_weighted if weighted else by_edges
    else:
        counted = by_count_weighted if weighted else by_count
    if not normalized:
        return counted
    register_jitable(counted)

    def density_histogram(a, bins=10, range=None, density=None, weights=None):
        n, edges = counted(a, bins, range, None, weights)
        return n / np.diff(edges).astype(np.float64) / n.sum(), edges
    return density_histogram


@register_jitable
def _flat_weights(a, weights):
    if weights.shape != a.shape:
        raise ValueError("weights should have the same shape as a.")
    return in_c_order(weights)


@overload(np.convolve)
def _convolve(a, v):
    """The full discrete convolution of two 1-d arrays."""
    if not (_arrays(a, v) and a.ndim == v.ndim == 1):
        return None
    dt = t.from_dtype(np.result_type(a.dtype.np_dtype, v.dtype.np_dtype))

    def convolve(a, v):
        n, m = a.shape[0], v.shape[0]
        if n == 0 or m == 0:
            raise ValueError("v cannot be empty")
        out = np.zeros(n + m - 1, dt)
        for i in range(n + m - 1):
            total = out[i]
            for k in range(max(0, i - n + 1), min(i + 1, m)):
                total += a[i - k] * v[k]
            out[i] = total
        return out
    return convolve


@overload(np.angle)
def _angle(z, deg=False):
    """The argument of complex numbers (0 or pi of real ones), in radians or degrees, as
    NumPy computes it: arctan2(imag, real), scaled by 180/pi."""
    if not isinstance(z, (t.Array, t.Number)):
        return None
    if isinstance(t.unliteral(z.dtype if isinstance(z, t.Array) else z), t.Complex):
        def angle(z, deg=False):
            a = np.arctan2(z.imag, z.real)
            return a * (180 / np.pi) if deg else a
    else:
        def angle(z, deg=False):
            a = np.arctan2(0, z)
            return a * (180 / np.pi) if deg else a
    return angle
