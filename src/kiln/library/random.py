"""np.random inside compiled code: seed, random, rand, randn, random_sample, standard_normal,
normal, uniform, randint, choice, shuffle, permutation.

The generator is NumPy's legacy one (MT19937 seeded by `init_genrand`, doubles from two
draws, the polar method for normals with its cached second value, masked rejection for
integers), so after `np.random.seed(s)` inside compiled code the numbers are those NumPy's
`np.random` gives after the same seed. The state is kiln's own, separate from NumPy's:
one per process (parallel code will need one per thread), seeded from the operating system
at first use.
"""
from __future__ import annotations

import ctypes
import os

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from .allocation import empty_array, flat_view
from .arrays import make_array
from ..errors import TypingError
from ..typing.registry import intrinsic, omitted, overload, register_jitable
from .sorting import search_sorted

SYMBOL = "kiln_random_state"
_N, _M = 624, 397
# Two generators of 632 words each: np.random's, then Python's `random` module's (PY_FIRST,
# py_random.py). Of each, words 0..623: the Mersenne Twister; 624: the position;
# 626..629: the cached normal (a flag, then the value), as float64 slots 313 and 314
_WORDS, PY_FIRST = 632, 632
_STATE = (ctypes.c_uint32 * (2 * _WORDS))()
_POSITION, _GAUSS_SLOT = 624, 313


def _init_genrand(seed):
    state = [seed & 0xFFFFFFFF]
    for i in range(1, _N):
        state.append((1812433253 * (state[-1] ^ (state[-1] >> 30)) + i) & 0xFFFFFFFF)
    return state


def bind_symbols():
    """Give compiled code the state (both generators seeded from the OS the first time)."""
    import llvmlite.binding as llvm
    if not getattr(bind_symbols, "done", False):
        for first in (0, PY_FIRST):
            _STATE[first:first + _N] = _init_genrand(int.from_bytes(os.urandom(4), "little"))
            _STATE[first + _POSITION] = _N
        llvm.add_symbol(SYMBOL, ctypes.addressof(_STATE))
        bind_symbols.done = True


def _state(builder):
    module = builder.module
    state = module.globals.get(SYMBOL)
    if state is None:
        state = ir.GlobalVariable(module, ir.ArrayType(ir.IntType(32), 2 * _WORDS),
                                  name=SYMBOL)
        state.linkage = "external"
    return state


def _word(builder, index, first=0):
    """The word `index` (an i32) of the generator starting at word `first`."""
    i32 = ir.IntType(32)
    if first:
        index = builder.add(index, ir.Constant(i32, first))
    return builder.gep(_state(builder), [ir.Constant(i32, 0), index], inbounds=True)


def seeding(first):
    """An intrinsic seeding the generator at word `first` by init_genrand(seed): the state
    NumPy's legacy seed(seed) makes, and the start of CPython's init_by_array."""
    @intrinsic
    def seed_(typingctx, seed):
        if not isinstance(seed, t.Integer):
            return None

        def codegen(context, builder, sig, args):
            i32 = ir.IntType(32)
            word = lambda index: _word(builder, index, first)  # noqa: E731
            value = builder.trunc(context.cast(builder, args[0], seed, t.int64), i32)
            builder.store(value, word(ir.Constant(i32, 0)))
            from .fusion import counted_loop

            def step(i):
                i = builder.trunc(i, i32)
                before = builder.load(word(builder.sub(i, ir.Constant(i32, 1))))
                mixed = builder.xor(before, builder.lshr(before, ir.Constant(i32, 30)))
                value = builder.add(builder.mul(mixed, ir.Constant(i32, 1812433253)), i)
                builder.store(value, word(i))
            counted_loop(builder, ir.Constant(dm.i64, _N), step, start=ir.Constant(dm.i64, 1))
            builder.store(ir.Constant(i32, _N), word(ir.Constant(i32, _POSITION)))
            for slot in (2 * _GAUSS_SLOT, 2 * _GAUSS_SLOT + 1):  # no cached normal
                builder.store(ir.Constant(i32, 0), word(ir.Constant(i32, slot)))
            return dm.null_value(t.none)
        return t.none(seed), codegen
    return seed_


def uint32_draws(first):
    """An intrinsic drawing from the generator at word `first` (see _STATE)."""
    @intrinsic
    def draw(typingctx):
        return t.int64(), lambda context, builder, sig, args: _next_uint32(builder, first)
    return draw


def _next_uint32(builder, first):
    """The next 32 bits of MT19937 (as an int64), regenerating the state every 624 draws."""
    from .fusion import counted_loop
    i32 = ir.IntType(32)
    c = lambda v: ir.Constant(i32, v)  # noqa: E731
    load = lambda index: builder.load(_word(builder, index, first))  # noqa: E731
    position_ptr = _word(builder, c(_POSITION), first)
    with builder.if_then(builder.icmp_unsigned(">=", builder.load(position_ptr), c(_N)),
                         likely=False):
        def twist(k):
            k = builder.trunc(k, i32)
            following = builder.urem(builder.add(k, c(1)), c(_N))
            y = builder.or_(builder.and_(load(k), c(0x80000000)),
                            builder.and_(load(following), c(0x7FFFFFFF)))
            source = load(builder.urem(builder.add(k, c(_M)), c(_N)))
            odd = builder.sub(c(0), builder.and_(y, c(1)))
            value = builder.xor(builder.xor(source, builder.lshr(y, c(1))),
                                builder.and_(odd, c(0x9908B0DF)))
            builder.store(value, _word(builder, k, first))
        counted_loop(builder, ir.Constant(dm.i64, _N), twist)
        builder.store(c(0), position_ptr)
    position = builder.load(position_ptr)
    y = load(position)
    builder.store(builder.add(position, c(1)), position_ptr)
    y = builder.xor(y, builder.lshr(y, c(11)))
    y = builder.xor(y, builder.and_(builder.shl(y, c(7)), c(0x9D2C5680)))
    y = builder.xor(y, builder.and_(builder.shl(y, c(15)), c(0xEFC60000)))
    y = builder.xor(y, builder.lshr(y, c(18)))
    return builder.zext(y, dm.i64)


def state_view(first, count, dtype):
    """An intrinsic viewing `count` items of `dtype` from word `first` of the state as a
    1-d array (the cached normal; Python's generator, which py_random.py seeds itself)."""
    result = t.Array(dtype, 1, "C")

    @intrinsic
    def view(typingctx):
        def codegen(context, builder, sig, args):
            data = _word(builder, ir.Constant(ir.IntType(32), first))
            itemsize = dtype.np_dtype.itemsize
            return make_array(context, builder, result, data, [ir.Constant(dm.i64, count)],
                              [ir.Constant(dm.i64, itemsize)])
        return result(), codegen
    return view


def gauss_cache_of(first):
    """The cached second normal of the generator at word `first`: [has one, its value]."""
    return state_view(first + 2 * _GAUSS_SLOT, 2, t.float64)


random_seed = seeding(0)
random_uint32 = uint32_draws(0)
gauss_cache = gauss_cache_of(0)


@register_jitable
def random_double():
    a = random_uint32() >> 5
    b = random_uint32() >> 6
    return (a * 67108864.0 + b) / 9007199254740992.0


@register_jitable
def gauss():
    cache = gauss_cache()
    if cache[0] != 0.0:
        cache[0] = 0.0
        return cache[1]
    while True:
        x1 = 2.0 * random_double() - 1.0
        x2 = 2.0 * random_double() - 1.0
        r2 = x1 * x1 + x2 * x2
        if r2 < 1.0 and r2 != 0.0:
            break
    f = np.sqrt(-2.0 * np.log(r2) / r2)
    cache[0], cache[1] = 1.0, f * x1
    return f * x2


@register_jitable
def _masked_below(bound):
    """A uniform integer in [0, bound] by masked rejection, as NumPy's legacy interval."""
    if bound == 0:
        return 0
    mask = bound
    shift = 1
    while shift < 64:
        mask |= mask >> shift
        shift *= 2
    if bound <= 0xFFFFFFFF:
        while True:
            value = random_uint32() & mask
            if value <= bound:
                return value
    while True:
        value = ((random_uint32() << 32) | random_uint32()) & mask
        if value <= bound:
            return value


def _fill(draw):
    """An implementation of `f(size)`: one draw, or an array of them (size an int or a
    tuple; None for one draw)."""
    def ov(size=None):
        if omitted(size):
            return lambda size=None: draw()

        def fill(size=None):
            out = empty_array(size, np.float64)
            flat = flat_view(out)
            for i in range(flat.shape[0]):
                flat[i] = draw()
            return out
        return fill
    return ov


def _draws(draw, *keys):
    for key in keys:
        overload(key)(_fill(draw))


_draws(random_double, np.random.random, np.random.random_sample, np.random.sample)
_draws(gauss, np.random.standard_normal)


def _by_dimensions(fill):
    """rand(d0, d1, ...) / randn(...): dimensions as arguments, none for one draw; `fill`
    is the NumPy function taking a size."""
    def ov(*dims):
        if not all(isinstance(d, t.Integer) for d in dims) or len(dims) > 3:
            return None
        def one():
            return fill()

        def vector(d0):
            return fill(d0)

        def matrix(d0, d1):
            return fill((d0, d1))

        def cube(d0, d1, d2):
            return fill((d0, d1, d2))
        return (one, vector, matrix, cube)[len(dims)]
    return ov


overload(np.random.rand)(_by_dimensions(np.random.random))
overload(np.random.randn)(_by_dimensions(np.random.standard_normal))


@overload(np.random.seed)
def _seed(seed):
    if not isinstance(seed, t.Integer):
        return None

    def seed_(seed):
        if seed < 0 or seed > 0xFFFFFFFF:
            raise ValueError("Seed must be between 0 and 2**32 - 1")
        random_seed(seed)
    return seed_


def _scaled(draw, shift_scale):
    """uniform(low, high, size) / normal(loc, scale, size)."""
    def ov(a=0.0, b=1.0, size=None):
        if omitted(size):
            return lambda a=0.0, b=1.0, size=None: shift_scale(a, b, draw())

        def fill(a=0.0, b=1.0, size=None):
            out = empty_array(size, np.float64)
            flat = flat_view(out)
            for i in range(flat.shape[0]):
                flat[i] = shift_scale(a, b, draw())
            return out
        return fill
    return ov


@register_jitable
def _uniform(low, high, u):
    return low + (high - low) * u


@register_jitable
def _normal(loc, scale, g):
    return loc + scale * g


overload(np.random.uniform)(_scaled(random_double, _uniform))
overload(np.random.normal)(_scaled(gauss, _normal))


@register_jitable
def _integer(low, high):
    if high <= low:
        raise ValueError("high <= low")
    return low + _masked_below(high - low - 1)


@register_jitable
def _below(high, unused):
    return _integer(0, high)


@overload(np.random.randint)
def _randint(low, high=None, size=None):
    if not isinstance(low, t.Integer) or not (high is None or isinstance(high, (t.Integer,
                                                                               t.NoneType))):
        return None
    bounded = high is not None and not isinstance(high, t.NoneType)
    one = _integer if bounded else _below
    if omitted(size):
        return lambda low, high=None, size=None: one(low, high)

    def fill(low, high=None, size=None):
        out = empty_array(size, np.int64)
        flat = flat_view(out)
        for i in range(flat.shape[0]):
            flat[i] = one(low, high)
        return out
    return fill


@register_jitable
def _shuffle_1d(x):
    for i in range(x.shape[0] - 1, 0, -1):
        j = _masked_below(i)
        x[i], x[j] = x[j], x[i]


@overload(np.random.shuffle)
def _shuffle(x):
    if not (isinstance(x, t.Array) and x.ndim == 1):
        return None
    return lambda x: _shuffle_1d(x)


@overload(np.random.permutation)
def _permutation(x):
    if isinstance(x, t.Integer):
        def of_range(x):
            out = np.arange(x)
            _shuffle_1d(out)
            return out
        return of_range
    if isinstance(x, t.Array) and x.ndim == 1:
        def of_array(x):
            out = x.copy()
            _shuffle_1d(out)
            return out
        return of_array
    return None


_P_TOLERANCE = float(np.sqrt(np.finfo(np.float64).eps))   # NumPy's, for p summing to 1


@register_jitable
def _sample_count(shape):
    count = 1
    for n in shape:
        if n < 0:
            raise ValueError("negative dimensions are not allowed")
        count *= n
    return count


@register_jitable
def _checked_p(p, n):
    if p.shape[0] != n:
        raise ValueError("'a' and 'p' must have same size")
    total = 0.0
    for i in range(n):
        if not p[i] >= 0:
            raise ValueError("probabilities are not non-negative")
        total += p[i]
    if abs(total - 1.0) > _P_TOLERANCE:
        raise ValueError("probabilities do not sum to 1")
    return p.astype(np.float64)


@register_jitable
def _by_cdf(weights, draws, out, start, seen):
    """Each draw's index in the normalized cumulative sum of `weights` (NumPy's
    searchsorted, side='right'); with `seen`, only indices not taken before, in order."""
    cdf = np.cumsum(weights)
    cdf = cdf / cdf[-1]
    found = start
    for x in draws:
        k = search_sorted(cdf, x, True)
        if seen is None:
            out[found] = k
            found += 1
        elif not seen[k]:
            seen[k] = True
            out[found] = k
            found += 1
    return found


@register_jitable
def _choice_indices(n, count, replace, p, weighted):
    """`count` indices into a population of `n`, drawn as NumPy's legacy choice does (same
    stream after the same seed)."""
    out = np.empty(count, np.int64)
    if replace:
        if weighted:
            _by_cdf(p, np.random.random_sample(count), out, 0, None)
        else:
            for i in range(count):
                out[i] = _integer(0, n)
        return out
    if count > n:
        raise ValueError("Cannot take a larger sample than population when 'replace=False'")
    if not weighted:
        return np.random.permutation(n)[:count].copy()
    if np.count_nonzero(p > 0) < count:
        raise ValueError("Fewer non-zero entries in p than size")
    weights = p.copy()
    seen = np.zeros(n, np.bool_)
    found = 0
    while found < count:
        draws = np.random.random_sample(count - found)
        for j in range(found):
            weights[out[j]] = 0.0
        found = _by_cdf(weights, draws, out, found, seen)
    return out


@overload(np.random.choice)
def _choice(a, size=None, replace=True, p=None):
    if isinstance(a, t.Integer):
        def population(a):
            if a <= 0:
                raise ValueError("a must be greater than 0 unless no samples are taken")
            return a
    elif isinstance(a, t.Array) and a.ndim == 1:
        def population(a):
            if a.shape[0] == 0:
                raise ValueError("'a' cannot be empty unless no samples are taken")
            return a.shape[0]
    else:
        return None
    weighted = not omitted(p)
    if weighted and not (isinstance(p, t.Array) and p.ndim == 1 and
                         isinstance(p.dtype, (t.Float, t.Integer))):
        raise TypingError("np.random.choice(): p must be a 1-d array of probabilities")
    if weighted:
        def probabilities(p, n):
            return _checked_p(p, n)
    else:
        def probabilities(p, n):
            return np.empty(0)
    if isinstance(a, t.Integer):
        def take(a, k):        # the indices are the samples
            return k
    else:
        def take(a, k):
            return a[k]
    register_jitable(population)
    register_jitable(probabilities)
    register_jitable(take)

    if omitted(size):
        def one(a, size=None, replace=True, p=None):
            n = population(a)
            return take(a, _choice_indices(n, 1, replace, probabilities(p, n), weighted)[0])
        return one
    if isinstance(size, t.Integer):
        def shape_of(size):
            return (size,)
    elif isinstance(size, t.BaseTuple) and all(isinstance(d, t.Integer) for d in size.types):
        def shape_of(size):
            return size
    else:
        return None
    register_jitable(shape_of)

    def many(a, size=None, replace=True, p=None):
        count = _sample_count(shape_of(size))
        n = population(a) if count else 1
        indices = _choice_indices(n, count, replace, probabilities(p, n), weighted)
        return take(a, indices).reshape(shape_of(size))
    return many
