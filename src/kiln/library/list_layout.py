"""The layout of `ListType` in LLVM IR and the few primitives that touch it; every list
operation is Python on top of them (library/lists.py), and dicts and sets reuse them.

A list value is a pointer to an NRT meminfo whose data is the header
`{i64 size, i64 capacity, ptr buffer, ptr items, i64 tag}`: `buffer` is a second meminfo
holding `capacity` items in their memory layout (`items` is its data, NULL while there is
no buffer). Growing replaces the buffer, never the header, so every name bound to the list
sees its items. The list's meminfo has a destructor (one per item type, made in each module
that creates or grows such lists) that releases the items and frees the buffer; a dict can
reuse the buffer and destructor pieces. `tag` identifies the item type of a list that has
been to Python (typed/typedlist.py), so a list coming back in is checked without Python.

The primitives (`_list_*` intrinsics) do no bounds checks: the operations check indices as
Python does and raise its exceptions. Items are stored with a reference of their own
(`_list_init`, `_list_replace`) and read as borrowed values (`_list_get`).
"""
from __future__ import annotations

from functools import lru_cache

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen import families as codegen_families
from ..codegen.ownership import decref, has_refs, holds_arrays, incref, kept_alive, meminfo_family
from ..runtime import nrt
from ..typing.unify import can_convert
from . import literal_lists
from .fusion import counted_loop
from ..typing.registry import intrinsic

HEADER = ir.LiteralStructType([dm.i64, dm.i64, dm.ptr, dm.ptr, dm.i64])
SIZE, CAPACITY, BUFFER, ITEMS, TAG = range(5)
MAX_ITEMS_BYTES = 1 << 62   # larger buffers are a MemoryError before any size arithmetic
_INTLIKE = (t.Integer, t.Boolean)

meminfo_family(t.ListType)   # a list value is its meminfo


# ---- the layout in LLVM IR -------------------------------------------------------------------

def _field(b, lst, index):
    return b.gep(nrt.meminfo_data(b, lst), [ir.Constant(dm.i32, 0), ir.Constant(dm.i32, index)],
                 source_etype=HEADER)


def size_of(b, lst):
    return b.load(_field(b, lst, SIZE), typ=dm.i64)


def set_tag(b, lst, list_ty):
    """(A typed list and a Python-side list of one item type share a tag: cpu/reflection.py
    passes a Python list's typed copy as either.)"""
    b.store(ir.Constant(dm.i64, dm.type_tag(list_ty.as_typed)), _field(b, lst, TAG))


def has_tag(b, lst, list_ty):
    return b.icmp_signed("==", b.load(_field(b, lst, TAG), typ=dm.i64),
                         ir.Constant(dm.i64, dm.type_tag(list_ty.as_typed)))


def _item_address(b, lst, item_ty, index):
    items = b.load(_field(b, lst, ITEMS), typ=dm.ptr)
    return b.gep(items, [index], source_etype=dm.memory_type(item_ty))


def _itemsize(item_ty):
    return max(1, dm.memory_type(item_ty).get_abi_size(_target_data()))


def _target_data():
    from ..runtime.engine import get_engine
    return get_engine().target_machine.target_data


def _module_function(module, name, fnty, body):
    """An internal function of `module`, made on first use."""
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, fnty, name=name)
        fn.linkage = "internal"
        body(fn, ir.IRBuilder(fn.append_basic_block("entry")))
    return fn


def _destructor(module, item_ty):
    """`void destroy(meminfo)`: release every item, then free the buffer."""
    def body(fn, b):
        lst = fn.args[0]
        buffer = b.load(_field(b, lst, BUFFER), typ=dm.ptr)
        if has_refs(item_ty):
            counted_loop(b, size_of(b, lst), lambda i: decref(
                b, item_ty, dm.load_item(b, item_ty, _item_address(b, lst, item_ty, i))))
        with b.if_then(b.icmp_unsigned("!=", buffer, ir.Constant(dm.ptr, None))):
            free = module.globals.get(nrt.FREE) or ir.Function(
                module, ir.FunctionType(ir.VoidType(), [dm.ptr]), name=nrt.FREE)
            b.call(free, [buffer])
        b.ret_void()
    return _module_function(module, f"kiln.list.destroy.{item_ty}", nrt.DESTRUCTOR, body)


def _grow(module, item_ty):
    """`i1 grow(list, i64 n)`: a buffer for at least n items (doubling, so appends are
    amortized O(1)); false when memory is exhausted."""
    itemsize = _itemsize(item_ty)

    def body(fn, b):
        lst, n = fn.args
        capacity = b.load(_field(b, lst, CAPACITY), typ=dm.i64)
        doubled = b.mul(capacity, ir.Constant(dm.i64, 2))
        new_capacity = b.select(b.icmp_signed(">", doubled, n), doubled, n)
        new_capacity = b.select(b.icmp_signed("<", new_capacity, ir.Constant(dm.i64, 4)),
                                ir.Constant(dm.i64, 4), new_capacity)
        too_many = b.icmp_unsigned(">", new_capacity,
                                   ir.Constant(dm.i64, MAX_ITEMS_BYTES // itemsize))
        with b.if_then(too_many, likely=False):
            b.ret(ir.Constant(dm.i1, 0))
        buffer = nrt.emit_allocate(b, b.mul(new_capacity, ir.Constant(dm.i64, itemsize)))
        with b.if_then(b.icmp_unsigned("==", buffer, ir.Constant(dm.ptr, None)), likely=False):
            b.ret(ir.Constant(dm.i1, 0))
        items = nrt.meminfo_data(b, buffer)
        old_buffer = b.load(_field(b, lst, BUFFER), typ=dm.ptr)
        with b.if_then(b.icmp_unsigned("!=", old_buffer, ir.Constant(dm.ptr, None))):
            old_items = b.load(_field(b, lst, ITEMS), typ=dm.ptr)
            nbytes = b.mul(size_of(b, lst), ir.Constant(dm.i64, itemsize))
            b.call(module.declare_intrinsic("llvm.memcpy", [dm.ptr, dm.ptr, dm.i64]),
                   [items, old_items, nbytes, ir.Constant(dm.i1, 0)])
            b.call(module.globals.get(nrt.FREE) or ir.Function(
                module, ir.FunctionType(ir.VoidType(), [dm.ptr]), name=nrt.FREE), [old_buffer])
        b.store(buffer, _field(b, lst, BUFFER))
        b.store(items, _field(b, lst, ITEMS))
        b.store(new_capacity, _field(b, lst, CAPACITY))
        # a list made as `[]` learns its item type here, with its first item
        nrt.set_destructor(b, lst, _destructor(module, item_ty))
        b.ret(ir.Constant(dm.i1, 1))
    fnty = ir.FunctionType(dm.i1, [dm.ptr, dm.i64])
    return _module_function(module, f"kiln.list.grow.{item_ty}", fnty, body)


def reserve(context, b, list_ty, lst, n):
    """Room for n items (MemoryError when there is none)."""
    capacity = b.load(_field(b, lst, CAPACITY), typ=dm.i64)
    with b.if_then(b.icmp_signed(">", n, capacity), likely=False):
        grown = b.call(_grow(context.module, list_ty.item_type), [lst, n])
        context.guard(b, b.not_(grown), MemoryError, "cannot allocate the list's items")


def new_list(context, b, list_ty, capacity):
    """A new, empty list (one reference) with room for `capacity` items."""
    lst = nrt.emit_allocate(b, ir.Constant(dm.i64, HEADER.get_abi_size(_target_data())))
    context.guard(b, b.icmp_unsigned("==", lst, ir.Constant(dm.ptr, None)), MemoryError,
                  "cannot allocate a list")
    b.store(ir.Constant(HEADER, None), nrt.meminfo_data(b, lst))
    if not list_ty.is_undefined:
        nrt.set_destructor(b, lst, _destructor(context.module, list_ty.item_type))
        slot = context.hold_until_done(b, lst, list_ty)  # released if reserving raises
        reserve(context, b, list_ty, lst, capacity)
        context.done_holding(b, slot)
    return lst


def _store_new(context, b, item_ty, value, address):
    """Store `value` in an empty slot with a reference of the list's own."""
    if holds_arrays(item_ty):
        value = kept_alive(context, b, item_ty, value)
    incref(b, item_ty, value)
    dm.store_item(b, item_ty, value, address)


def replace_item(context, b, item_ty, value, address):
    """Store `value` over the item at `address` (the list's own reference), releasing the
    item that was there."""
    old = dm.load_item(b, item_ty, address) if has_refs(item_ty) else None
    _store_new(context, b, item_ty, value, address)
    if old is not None:
        decref(b, item_ty, old)


@codegen_families.display("list")
def build_list(context, b, list_ty, values, types_):
    """The list display `[a, b, ...]`: a new list holding its own references to `values`."""
    if isinstance(list_ty, t.LiteralList):   # items of mixed types
        return literal_lists.build(context, b, list_ty, values, types_)
    lst = new_list(context, b, list_ty, ir.Constant(dm.i64, len(values)))
    for i, (value, ty) in enumerate(zip(values, types_)):
        item = context.cast(b, value, ty, list_ty.item_type)
        _store_new(context, b, list_ty.item_type, item,
                   _item_address(b, lst, list_ty.item_type, ir.Constant(dm.i64, i)))
    b.store(ir.Constant(dm.i64, len(values)), _field(b, lst, SIZE))
    return lst


def list_iteration(context, b, lst, list_ty):
    """`for x in l`: by index while it is below the current length, as Python's iterator."""
    from .iteration import ONE, IndexIteration

    def item(b, index):
        return dm.load_item(b, list_ty.item_type, _item_address(b, lst, list_ty.item_type, index))
    return IndexIteration(context, b, ir.Constant(dm.i64, 0), ONE,
                          lambda b, index: b.icmp_signed("<", index, size_of(b, lst)), item,
                          list_ty.item_type)


# ---- primitives --------------------------------------------------------------------------

def _defined(lst):
    return isinstance(lst, t.ListType) and not lst.is_undefined


def _new_reference(codegen):
    codegen.new_reference = True
    return codegen


@intrinsic
def _list_len(tctx, lst):
    if not isinstance(lst, t.ListType):
        return None
    return t.int64(lst), lambda context, b, sig, args: size_of(b, args[0])


@intrinsic
def _list_set_size(tctx, lst, n):
    if not isinstance(lst, t.ListType):
        return None

    def codegen(context, b, sig, args):
        b.store(args[1], _field(b, args[0], SIZE))
        return dm.null_value(t.none)
    return t.none(lst, t.int64), codegen


@intrinsic
def _list_reserve(tctx, lst, n):
    if not _defined(lst):
        return None

    def codegen(context, b, sig, args):
        reserve(context, b, lst, args[0], args[1])
        return dm.null_value(t.none)
    return t.none(lst, t.int64), codegen


@intrinsic
def _list_get(tctx, lst, i):
    """The item at i, borrowed from the list."""
    if not _defined(lst):
        return None
    item = lst.item_type
    return item(lst, t.int64), lambda context, b, sig, args: \
        dm.load_item(b, item, _item_address(b, args[0], item, args[1]))


@intrinsic
def _list_take(tctx, lst, i):
    """The item at i with the list's reference to it (the slot is then empty)."""
    if not _defined(lst):
        return None
    item = lst.item_type
    return item(lst, t.int64), _new_reference(lambda context, b, sig, args: dm.load_item(
        b, item, _item_address(b, args[0], item, args[1])))


def _storing(replace, name):
    def typer(tctx, lst, i, value):
        if not _defined(lst) or not can_convert(value, lst.item_type):
            return None
        item = lst.item_type

        def codegen(context, b, sig, args):
            address = _item_address(b, args[0], item, args[1])
            (replace_item if replace else _store_new)(context, b, item, args[2], address)
            return dm.null_value(t.none)
        return t.none(lst, t.int64, item), codegen
    typer.__name__ = typer.__qualname__ = name
    return typer


_list_init = intrinsic(_storing(False, "_list_init"))          # into a slot with no item
_list_replace = intrinsic(_storing(True, "_list_replace"))     # over the item there


@intrinsic
def _list_move(tctx, lst, dst, src, count):
    """Move `count` items from index src to index dst (overlapping is fine)."""
    if not _defined(lst):
        return None
    itemsize = _itemsize(lst.item_type)

    def codegen(context, b, sig, args):
        l, dst, src, count = args
        size = ir.Constant(dm.i64, itemsize)
        with b.if_then(b.icmp_signed(">", count, ir.Constant(dm.i64, 0))):
            items = b.load(_field(b, l, ITEMS), typ=dm.ptr)
            to = b.gep(items, [b.mul(dst, size)], source_etype=dm.i8)
            from_ = b.gep(items, [b.mul(src, size)], source_etype=dm.i8)
            b.call(context.module.declare_intrinsic("llvm.memmove", [dm.ptr, dm.ptr, dm.i64]),
                   [to, from_, b.mul(count, size), ir.Constant(dm.i1, 0)])
        return dm.null_value(t.none)
    return t.none(lst, t.int64, t.int64, t.int64), codegen


@intrinsic
def _list_release(tctx, lst, start, stop):
    """Drop the list's references to the items in [start, stop) (their slots are then empty)."""
    if not _defined(lst):
        return None
    item = lst.item_type

    def codegen(context, b, sig, args):
        if has_refs(item):
            counted_loop(b, args[2], lambda i: decref(
                b, item, dm.load_item(b, item, _item_address(b, args[0], item, i))), start=args[1])
        return dm.null_value(t.none)
    return t.none(lst, t.int64, t.int64), codegen


@intrinsic
def _list_new_like(tctx, lst, capacity):
    if not isinstance(lst, t.ListType):
        return None
    return lst(lst, t.int64), _new_reference(
        lambda context, b, sig, args: new_list(context, b, lst, args[1]))


@lru_cache(maxsize=None)
def list_maker(item_ty, python=True):
    """An intrinsic `make(capacity)` giving a new empty list of `item_ty` items: a list that
    is a Python list once returned (t.List, what `list()` and `[]` make), or with
    `python=False` a kiln.typed.List (t.ListType)."""
    list_ty = (t.List if python else t.ListType)(item_ty)

    def make(tctx, capacity):
        if not isinstance(capacity, _INTLIKE):
            return None
        return list_ty(t.int64), _new_reference(
            lambda context, b, sig, args: new_list(context, b, list_ty, args[0]))
    make.__name__ = make.__qualname__ = f"make_{'list' if python else 'typed_list'}_of_{item_ty}"
    return intrinsic(make)


@intrinsic
def _list_items(tctx, lst):
    """The items of a list of numbers as a 1-d array viewing its buffer (valid while the
    list is neither grown nor freed: for algorithms that work on the items in place)."""
    if not _defined(lst) or not isinstance(lst.item_type, t.Number):
        return None
    rt = t.Array(lst.item_type, 1, "C")

    def codegen(context, b, sig, args):
        from .arrays import make_array
        itemsize = ir.Constant(dm.i64, lst.item_type.np_dtype.itemsize)
        return make_array(context, b, rt, b.load(_field(b, args[0], ITEMS), typ=dm.ptr),
                          [size_of(b, args[0])], [itemsize])
    return rt(lst), codegen


@intrinsic
def _slice_indices(tctx, s, length):
    """(start, step, count) of the slice `s` over `length` items, as Python's slice.indices."""
    if not isinstance(s, t.SliceType):
        return None
    rt = t.UniTuple(t.int64, 3)

    def codegen(context, b, sig, args):
        from .slicing import slice_indices
        parts = [b.extract_value(args[0], i) for i in range(3)] + [args[1]]
        return context.call_python(b, slice_indices, rt(*[t.int64] * 4), parts)
    return rt(s, t.int64), codegen
