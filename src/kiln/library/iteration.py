"""`for` loops. An iteration keeps its own state in stack slots (which LLVM promotes to
registers): `more` tests, `item` reads the current item, `advance` steps. Ranges, arrays,
uniform tuples, lists and strings iterate by an index; `enumerate` and `zip` compose other iterations."""
from __future__ import annotations

import operator

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen import families as codegen_families
from ..errors import TypingError
from ..typing import families
from ..typing.registry import template


class IndexIteration:
    """Walks an int64 index from `start` while `more_at(index)`, by `step`."""

    def __init__(self, context, builder, start, step, more_at, item_at, item_type):
        self.slot = context.alloca(builder, dm.i64, name="for.index")
        builder.store(start, self.slot)
        self.step, self.more_at, self.item_at, self.item_type = step, more_at, item_at, item_type

    def index(self, b):
        return b.load(self.slot, typ=dm.i64)

    def more(self, b):
        return self.more_at(b, self.index(b))

    def item(self, b):
        return self.item_at(b, self.index(b))

    def advance(self, b):
        b.store(b.add(self.index(b), self.step), self.slot)


class ZipIteration:
    def __init__(self, parts, item_type):
        self.parts, self.item_type = parts, item_type
        for p in parts:            # each step must reach the header, where all are tested
            if hasattr(p, "direct"):
                p.direct = False

    def more(self, b):
        """As Python's zip, a part is tested only while those before it have an item: a
        generator's test takes one (zip(range(3), it) leaves it past its third item)."""
        result = self.parts[0].more(b) if self.parts else ir.Constant(dm.i1, 0)   # zip()
        for p in self.parts[1:]:
            if not isinstance(p, GeneratorIteration):
                result = b.and_(result, p.more(b))
                continue
            before = b.block
            test, tested = (b.function.append_basic_block(n) for n in ("zip.test", "zip.tested"))
            b.cbranch(result, test, tested)
            b.position_at_end(test)
            more = p.more(b)
            test_end = b.block
            b.branch(tested)
            b.position_at_end(tested)
            result = b.phi(dm.i1)
            result.add_incoming(ir.Constant(dm.i1, 0), before)
            result.add_incoming(more, test_end)
        return result

    def item(self, b):
        value = ir.Constant(dm.value_type(self.item_type), ir.Undefined)
        for i, p in enumerate(self.parts):
            value = b.insert_value(value, p.item(b), i)
        return value

    def advance(self, b):
        for p in self.parts:
            p.advance(b)


ONE = ir.Constant(dm.i64, 1)


class RangeIteration:
    """`range(start, stop, step)`: the loop variable itself is the state, compared with
    `stop` (so LLVM knows `i < stop` in the body and drops checks such as negative-index
    wraparound); a step that would overflow int64 ends the loop instead of wrapping."""

    item_type = t.int64

    def __init__(self, context, b, start, stop, step):
        self.stop, self.step = stop, step
        self.slot = context.alloca(b, dm.i64, name="range.value")
        self.done = context.alloca(b, dm.i1, name="range.overflowed")
        b.store(start, self.slot)
        b.store(ir.Constant(dm.i1, 0), self.done)

    def more(self, b):
        value = b.load(self.slot, typ=dm.i64)
        up = b.icmp_signed(">", self.step, ir.Constant(dm.i64, 0))
        inside = b.select(up, b.icmp_signed("<", value, self.stop),
                          b.icmp_signed(">", value, self.stop))
        return b.and_(inside, b.not_(b.load(self.done, typ=dm.i1)))

    def item(self, b):
        return b.load(self.slot, typ=dm.i64)

    def advance(self, b):
        result = b.sadd_with_overflow(b.load(self.slot, typ=dm.i64), self.step)
        b.store(b.extract_value(result, 0), self.slot)
        b.store(b.extract_value(result, 1), self.done)


class GeneratorIteration:
    """A generator: `more` resumes it (an exception it raises propagates from the loop's
    test), `item` borrows what it yielded; it keeps its own state."""

    def __init__(self, context, generator, ty):
        self.context, self.generator, self.item_type = context, generator, ty.yield_type

    def more(self, b):
        from ..codegen.generators import resume
        return resume(self.context, b, self.generator, self.item_type)

    def item(self, b):
        from ..codegen.generators import item
        return item(b, self.generator, self.item_type)

    def advance(self, b):
        pass


@codegen_families.answers("iteration_for")
def iteration_for(context, builder, value, ty):
    """The iteration of `value` (of type `ty`) for a `for` loop."""
    b = builder
    if isinstance(ty, t.Buffer):   # a bytearray, memoryview or array.array: its array view
        ty = ty.as_array
    if isinstance(ty, t.RangeType):
        return RangeIteration(context, b, *(b.extract_value(value, i) for i in range(3)))
    if isinstance(ty, t.Array):
        from .arrays import ArrayValue
        arr = ArrayValue(context, b, value, ty)
        length = arr.shape(0)
        item_type = item_type_of(ty)
        if ty.ndim == 1:
            def item(b, index):
                return arr.with_builder(b).load_element([index])
        else:
            def item(b, index):
                return arr.with_builder(b).subarray(index, item_type)
        return IndexIteration(context, b, ir.Constant(dm.i64, 0), ONE,
                              lambda b, index: b.icmp_signed("<", index, length), item, item_type)
    if isinstance(ty, t.Tuple) and item_type_of(ty) is not None:   # as a tuple of one type
        same = t.UniTuple(item_type_of(ty), len(ty))
        value = context.make_tuple(b, same, [
            context.cast(b, b.extract_value(value, i), x, same.dtype)
            for i, x in enumerate(ty.types)])
        ty = same
    if isinstance(ty, t.UniTuple):
        slot = context.alloca(b, dm.value_type(ty))
        b.store(value, slot)

        def item(b, index):
            address = b.gep(slot, [ir.Constant(dm.i64, 0), index], source_etype=slot.allocated_type)
            return b.load(address, typ=dm.value_type(ty.dtype))
        count = ir.Constant(dm.i64, ty.count)
        return IndexIteration(context, b, ir.Constant(dm.i64, 0), ONE,
                              lambda b, index: b.icmp_signed("<", index, count), item, ty.dtype)
    if isinstance(ty, t.ListType):
        from .list_layout import list_iteration
        return list_iteration(context, b, value, ty)
    if isinstance(ty, (t.UnicodeType, t.StringLiteral)):
        from .strings import string_iteration
        return string_iteration(context, b, context.cast(b, value, ty, t.unicode_type))
    if isinstance(ty, t.Bytes):
        from .bytes_values import bytes_iteration
        return bytes_iteration(context, b, value)
    from .dicts import DictViewType, dict_iteration
    if isinstance(ty, (t.DictType, t.SetType, DictViewType)):
        return dict_iteration(context, b, value, ty)
    if isinstance(ty, EnumerateType):
        counter = IndexIteration(context, b, b.extract_value(value, 1), ONE,
                                 lambda b, index: ir.Constant(dm.i1, 1),
                                 lambda b, index: index, t.int64)
        inner = iteration_for(context, b, b.extract_value(value, 0), ty.inner)
        return ZipIteration([counter, inner], item_type_of(ty))
    if isinstance(ty, ZipType):
        parts = [iteration_for(context, b, b.extract_value(value, i), inner)
                 for i, inner in enumerate(ty.inners)]
        return ZipIteration(parts, item_type_of(ty))
    if isinstance(ty, (NDIndexType, FlatType, NDEnumerateType)):
        return _positions(context, b, value, ty)
    from .nditer import NDIterType, nditer_iteration
    if isinstance(ty, NDIterType):
        return nditer_iteration(context, b, value, ty)
    if isinstance(ty, t.GeneratorType):
        return GeneratorIteration(context, value, ty)
    raise TypeError(f"kiln cannot iterate over {ty}")


def unravel(builder, position, shape):
    """The C-order index tuple (a list of int64 values) of a flat position in `shape`."""
    index = []
    for size in reversed(shape):
        safe = builder.select(builder.icmp_signed("==", size, ir.Constant(dm.i64, 0)), ONE,
                              size)
        index.insert(0, builder.srem(position, safe))
        position = builder.sdiv(position, safe)
    return index


class OdometerIteration:
    """Every position of a shape in C order, as nested loops over the shape give them: the
    last digit steps, and carries into the one before it when it reaches its length (no
    division per item, as unravelling a flat counter needs). `item_at(b, digits)` makes
    the item from the current digits (int64 values, outer axis first)."""

    def __init__(self, context, b, shape, item_at, item_type):
        self.shape, self.item_at, self.item_type = shape, item_at, item_type
        # The loop's body block (where `item` is read). A `for` loop's own iteration steps
        # the last digit straight back to it: the loop over the last axis is then an inner
        # loop of its own to LLVM (counted, and vectorizable), nested in the loop the
        # carries make. Inside zip/enumerate, whose other parts must be tested and stepped
        # too, every step goes through the loop's header (`direct` is False).
        self.body, self.direct = None, True
        self.digits = []
        for d in range(len(shape)):
            slot = context.alloca(b, dm.i64, name=f"nd.digit{d}")
            b.store(ir.Constant(dm.i64, 0), slot)
            self.digits.append(slot)
        self.alive = context.alloca(b, dm.i1, name="nd.alive")
        alive = ir.Constant(dm.i1, 1)
        for size in shape:                       # nothing to visit when an axis is empty
            alive = b.and_(alive, b.icmp_signed(">", size, ir.Constant(dm.i64, 0)))
        b.store(alive, self.alive)

    def more(self, b):
        return b.load(self.alive, typ=dm.i1)

    def item(self, b):
        if self.body is None:
            self.body = b.block
        return self.item_at(b, [b.load(slot, typ=dm.i64) for slot in self.digits])

    def advance(self, b):
        done = b.function.append_basic_block("nd.next")
        last = len(self.shape) - 1
        for d in reversed(range(len(self.shape))):
            following = b.add(b.load(self.digits[d], typ=dm.i64), ONE)
            fits = b.icmp_signed("<", following, self.shape[d])
            carry = b.function.append_basic_block(f"nd.carry{d}")
            step = b.function.append_basic_block(f"nd.step{d}")
            b.cbranch(fits, step, carry)
            b.position_at_end(step)
            b.store(following, self.digits[d])
            direct = d == last and self.direct and self.body is not None
            b.branch(self.body if direct else done)
            b.position_at_end(carry)
            b.store(ir.Constant(dm.i64, 0), self.digits[d])
        b.store(ir.Constant(dm.i1, 0), self.alive)   # the outermost axis ran out
        b.branch(done)
        b.position_at_end(done)


def _positions(context, b, value, ty):
    """np.ndindex / a.flat / np.ndenumerate: every position of a shape in C order. A
    C-contiguous (or 1-d) array's a.flat is a counted loop over its memory; the rest walk
    the shape as nested loops would (OdometerIteration)."""
    from .arrays import ArrayValue
    if isinstance(ty, NDIndexType):
        shape = [b.extract_value(value, i) for i in range(ty.ndim)]
        arr = None
    else:
        arr = ArrayValue(context, b, b.extract_value(value, 0), ty.array)
        shape = [arr.shape(d) for d in range(ty.array.ndim)]
    index_ty = t.UniTuple(t.int64, len(shape))
    if arr is not None and not isinstance(ty, NDEnumerateType) and \
            (ty.array.layout == "C" or ty.array.ndim == 1):
        count = ONE
        for size in shape:
            count = b.mul(count, size)
        item_lt = dm.memory_type(ty.array.dtype)
        record = isinstance(ty.array.dtype, t.Record)

        def flat_item(b, position):
            view = arr.with_builder(b)
            if ty.array.ndim == 1:
                return view.load_element([position])
            address = b.gep(view.field(dm.ARRAY_DATA), [position], source_etype=item_lt,
                            inbounds=True)
            return dm.load_item(b, ty.array.dtype, address,
                                meminfo=view.field(dm.ARRAY_MEMINFO) if record else None)
        return IndexIteration(context, b, ir.Constant(dm.i64, 0), ONE,
                              lambda b, position: b.icmp_signed("<", position, count),
                              flat_item, item_type_of(ty))

    def item(b, index):
        if arr is None:
            return context.make_tuple(b, index_ty, index)
        element = arr.with_builder(b).load_element(index)
        if not isinstance(ty, NDEnumerateType):
            return element
        return context.make_tuple(b, item_type_of(ty), [context.make_tuple(b, index_ty, index),
                                                        element])
    return OdometerIteration(context, b, shape, item, item_type_of(ty))


def _common_function(tuple_ty):
    """The FunctionType a loop over a tuple of different functions gives (Numba's
    first-class functions; see typing/unify.py), or None."""
    from ..typing.unify import unify
    if not all(isinstance(x, (t.Dispatcher, t.FunctionType)) for x in tuple_ty.types):
        return None
    common = tuple_ty.types[0]
    for x in tuple_ty.types[1:]:
        common = common and unify(common, x)
    return common


@families.answers("item_type_of")
def item_type_of(ty):
    """The type of the items a `for` loop over `ty` gives, or None if it is not iterable."""
    if isinstance(ty, t.Buffer):   # (Python's N-d memoryview has no sub-views to give)
        ty = ty.as_array if ty.ndim == 1 else None
    if isinstance(ty, t.RangeType):
        return t.int64
    if isinstance(ty, t.Array) and ty.ndim >= 1:
        if ty.ndim == 1:
            return ty.dtype
        return ty.copy(ndim=ty.ndim - 1, layout="C" if ty.layout == "C" else "A")
    if isinstance(ty, t.UniTuple):
        return ty.dtype
    if isinstance(ty, t.Tuple):
        return _common_function(ty)
    if isinstance(ty, t.ListType):
        return ty.item_type
    if isinstance(ty, (t.UnicodeType, t.StringLiteral)):
        return t.unicode_type
    if isinstance(ty, t.Bytes):
        return t.int64
    if isinstance(ty, t.SetType):
        return None if ty.is_undefined else ty.item_type
    from .dicts import view_item_type
    if view_item_type(ty) is not None:
        return view_item_type(ty)
    if isinstance(ty, EnumerateType):
        return t.Tuple((t.int64, item_type_of(ty.inner)))
    if isinstance(ty, ZipType):
        return t.tuple_of(item_type_of(i) for i in ty.inners)
    if isinstance(ty, NDIndexType):
        return t.UniTuple(t.int64, ty.ndim)
    if isinstance(ty, NDEnumerateType):
        return t.Tuple((t.UniTuple(t.int64, ty.array.ndim), ty.array.dtype))
    if isinstance(ty, FlatType):
        return ty.array.dtype
    from .nditer import NDIterType
    if isinstance(ty, NDIterType):
        return ty.item_type
    if isinstance(ty, t.GeneratorType):
        return ty.yield_type
    return None


class EnumerateType(t.Type):
    """The value of `enumerate(iterable, start)`: the iterable and the first count."""

    def __init__(self, inner):
        self.inner = inner
        self.fields = (inner, t.int64)
        self.name = f"enumerate({inner})"

    @property
    def key(self):
        return (self.inner,)


class ZipType(t.Type):
    """The value of `zip(a, b, ...)`: the iterables, walked together to the shortest."""

    def __init__(self, inners):
        self.inners = tuple(inners)
        self.fields = self.inners
        self.name = f"zip({', '.join(map(str, self.inners))})"

    @property
    def key(self):
        return self.inners


class NDIndexType(t.Type):
    """The value of `np.ndindex(shape)`: the shape, walked in C order."""

    def __init__(self, ndim):
        self.ndim = ndim
        self.fields = (t.int64,) * ndim
        self.name = f"ndindex({ndim})"

    @property
    def key(self):
        return (self.ndim,)


class FlatType(t.Type):
    """`a.flat`: the array's elements in C order (iterated, or indexed by a flat position)."""

    def __init__(self, array):
        self.array = array
        self.fields = (array,)
        self.name = f"flat({array})"

    @property
    def key(self):
        return (self.array,)


class NDEnumerateType(FlatType):
    """`np.ndenumerate(a)`: (index tuple, element) pairs in C order."""

    def __init__(self, array):
        super().__init__(array)
        self.name = f"ndenumerate({array})"


@template(np.ndindex)
def _ndindex(tctx, *shape):
    if len(shape) == 1 and isinstance(shape[0], t.BaseTuple):
        items = shape[0].types
    else:
        items = shape
    if not all(isinstance(i, (t.Integer, t.Boolean)) for i in items):
        return None
    rt = NDIndexType(len(items))

    def codegen(context, builder, sig, args):
        values = [builder.extract_value(args[0], i) for i in range(len(items))] \
            if len(shape) == 1 and isinstance(shape[0], t.BaseTuple) else list(args)
        dims = [context.cast(builder, v, ty, t.int64) for v, ty in zip(values, items)]
        return context.make_tuple(builder, sig.return_type, dims)   # (NDIndexType's struct)
    return rt(*shape), codegen


@template(np.ndenumerate)
def _ndenumerate(tctx, array):
    if not isinstance(array, t.Array):
        return None
    return NDEnumerateType(array)(array), _wrap(array)


@template(("attr", "flat"))
def _flat(tctx, array):
    if not isinstance(array, t.Array):
        return None
    return FlatType(array)(array), _wrap(array)


def _wrap(array):
    """Codegen of a struct holding the array (a view: it shares the array's memory)."""
    return lambda context, builder, sig, args: context.make_tuple(builder, sig.return_type,
                                                                  [args[0]])


def _flat_element(context, builder, flat, flat_ty, position, position_ty):
    """The address of a.flat[position] (negative counts from the end)."""
    from .arrays import ArrayValue
    arr = ArrayValue(context, builder, builder.extract_value(flat, 0), flat_ty.array)
    shape = [arr.shape(d) for d in range(flat_ty.array.ndim)]
    position = context.cast(builder, position, position_ty, t.int64)
    count = ONE
    for size in shape:
        count = builder.mul(count, size)
    negative = builder.icmp_signed("<", position, ir.Constant(dm.i64, 0))
    position = builder.select(negative, builder.add(position, count), position)
    outside = builder.icmp_unsigned(">=", position, count)
    context.guard(builder, outside, IndexError, "index out of bounds for a.flat")
    return arr.element_pointer(unravel(builder, position, shape))


@template(operator.getitem)
def _flat_getitem(tctx, flat, position):
    if not isinstance(flat, FlatType) or isinstance(flat, NDEnumerateType) or \
            not isinstance(position, t.Integer):
        return None
    dtype = flat.array.dtype

    def codegen(context, builder, sig, args):
        return dm.load_item(builder, dtype, _flat_element(context, builder, args[0], flat,
                                                          args[1], position))
    return dtype(flat, position), codegen


@template(len)
def _flat_len(tctx, flat):
    """len(a.flat): the array's size, as NumPy's."""
    if not isinstance(flat, FlatType) or isinstance(flat, NDEnumerateType):
        return None

    def codegen(context, builder, sig, args):
        from .arrays import ArrayValue
        arr = ArrayValue(context, builder, builder.extract_value(args[0], 0), flat.array)
        count = ONE
        for d in range(flat.array.ndim):
            count = builder.mul(count, arr.shape(d))
        return count
    return t.int64(flat), codegen


@template(operator.setitem)
def _flat_setitem(tctx, flat, position, value):
    if not isinstance(flat, FlatType) or isinstance(flat, NDEnumerateType) or \
            not isinstance(position, t.Integer) or not isinstance(value, t.Number) or \
            flat.array.readonly:
        return None
    dtype = flat.array.dtype

    def codegen(context, builder, sig, args):
        dm.store_item(builder, dtype, args[2], _flat_element(context, builder, args[0], flat,
                                                             args[1], position))
        return dm.null_value(t.none)
    return t.none(flat, position, dtype), codegen


@template(enumerate)
def _enumerate(tctx, iterable, start=None):
    if start is not None and not isinstance(start, (t.Integer, t.Boolean)):
        raise TypingError(f"Only integers supported as start value in enumerate, not {start} "
                          "(Python: it cannot be interpreted as an integer)")
    if item_type_of(iterable) is None:
        return None
    rt = EnumerateType(iterable)

    def codegen(context, builder, sig, args):
        first = context.cast(builder, args[1], start, t.int64) if start is not None \
            else ir.Constant(dm.i64, 0)
        return context.make_tuple(builder, sig.return_type, [args[0], first])
    return (rt(iterable) if start is None else rt(iterable, start)), codegen


@template(zip)
def _zip(tctx, *iterables):
    if any(item_type_of(i) is None for i in iterables):
        return None
    rt = ZipType(iterables)
    return rt(*iterables), lambda context, builder, sig, args: \
        context.make_tuple(builder, sig.return_type, list(args))   # (ZipType's struct)
