"""Compiled launch entries: `kernel[grid, block](args)` in machine code, as a CPU
dispatcher's calls are.

A configured kernel on the driver back-end is called through the CPU dispatcher's
trampoline (cpu/callable.py) over a table whose header is its launch configuration
(`Config`). An entry is compiled by the CPU engine for one KnownLaunch (launcher.py) at its
second use, for the steps it has: device arrays, scalars (as they are, or converted as a
signature says), and C-contiguous foreign arrays (their `__cuda_array_interface__` dict is
read in the entry; a PyTorch tensor's own C attributes are, as its interface is a Python
property). It checks each argument's Python type (and a device array's kiln type:
devicearray.py interns them, so identity decides), packs the values into the entry's own
parameter buffer (the GIL is held throughout, so one buffer serves every thread), checks
that the thread's current CUDA context is the one the kernel was loaded in and that the
dynamic shared memory asked for is allowed (`Loaded.shared_allowed`), and calls
cuLaunchKernel through the pointer cuGetProcAddress gave. Whatever else it meets it
answers NotImplemented, and the table's fallback takes the Python path, which also raises
the driver's error when a launch fails (the entry leaves a failed launch to it, which
tries it once more)."""
from __future__ import annotations

import ctypes
import itertools

import numpy as np
from llvmlite import ir

from ...codegen import datamodel as dm
from ...runtime.pyapi import VECTORCALL_OFFSET_MASK
from ...runtime.pyapi import OB_TYPE, SCALAR_VALUE, TUPLE_ITEMS, TUPLE_SIZE
from .. import host
from ..devicearray import DeviceNDArray


class Config(ctypes.Structure):
    """A launch configuration as entries read it, before the trampoline's slots.
    `legacy_ordered`: the launch's stream waits for the legacy default stream, so a foreign
    array made there (`stream: 1`) needs no synchronization (host.wait_for_producer)."""
    _fields_ = [("grid", ctypes.c_int64 * 3), ("block", ctypes.c_int64 * 3),
                ("shared", ctypes.c_int64), ("stream", ctypes.c_int64),
                ("legacy_ordered", ctypes.c_int64)]


_CONFIG_WORDS = ctypes.sizeof(Config) // 8
_SHARED, _STREAM, _LEGACY_ORDERED = 6, 7, 8   # (the words of Config)


def config_of(config) -> Config:
    return Config((ctypes.c_int64 * 3)(*config.griddim), (ctypes.c_int64 * 3)(*config.blockdim),
                  config.sharedmem, int(config.stream) if config.stream else 0,
                  host.waits_for_legacy_stream(config.stream))


_CONVERSIONS = frozenset(   # (Python class, the signature's NumPy type) entries convert
    [(int, t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                        np.uint32, np.uint64, np.float32, np.float64)] +
    [(source, t) for source in (float, np.float64, np.float32)
     for t in (np.float32, np.float64)])
_I32 = ir.IntType(32)
_LAUNCH = ir.FunctionType(_I32, [dm.ptr] + [_I32] * 7 + [dm.ptr] * 3)   # cuLaunchKernel
_CURRENT = ir.FunctionType(_I32, [dm.ptr])                               # cuCtxGetCurrent
_numbers = itertools.count()
_HELD = []   # per entry: the Python objects and the Loaded its code reads by address


def compile_entry(known, driver_functions):
    """(the CompiledModule, the entry's address) for a KnownLaunch, or None when some of
    its steps are not for an entry (a conversion it does not make)."""
    from ...runtime.engine import get_engine
    from .launcher import _ARRAY, _Foreign
    layout, steps = known.loaded.layout, known.steps
    if any(not (step is _ARRAY or step is None or type(step) is _Foreign or
                (source, step) in _CONVERSIONS) for source, step in zip(known.kinds, steps)):
        return None
    name = f"kiln_launch_{next(_numbers)}"   # (one engine holds every entry)
    module = ir.Module(name=name)
    fn = ir.Function(module, ir.FunctionType(dm.ptr, [dm.ptr, dm.ptr, dm.i64]), name=name)
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    mismatch = fn.append_basic_block("mismatch")
    emit = _Emitter(module, builder, mismatch, layout)
    table, args, nargsf = fn.args
    nargs = builder.and_(nargsf, ir.Constant(dm.i64, VECTORCALL_OFFSET_MASK))
    emit.unless(builder.icmp_unsigned("==", nargs, ir.Constant(dm.i64, len(steps))))
    slot = builder.alloca(dm.ptr)
    current = builder.call(emit.pointer(driver_functions["cuCtxGetCurrent"], _CURRENT), [slot])
    emit.unless(builder.icmp_unsigned("==", current, ir.Constant(_I32, 0)))
    emit.unless(builder.icmp_unsigned("==", builder.ptrtoint(builder.load(slot, typ=dm.ptr),
                                                             dm.i64),
                                      ir.Constant(dm.i64, int(known.context.handle))))
    config = [builder.load(builder.gep(table, [ir.Constant(dm.i64, i - _CONFIG_WORDS)],
                                       source_etype=dm.i64), typ=dm.i64)
              for i in range(_CONFIG_WORDS)]
    allowed = builder.load(emit.address(ctypes.addressof(known.loaded.shared_allowed)),
                           typ=dm.i64)
    emit.unless(builder.icmp_signed("<=", config[_SHARED], allowed))
    units = iter(layout.offsets)
    for i, (step, kind, ty) in enumerate(zip(steps, known.kinds, layout.argtypes)):
        value = builder.load(builder.gep(args, [ir.Constant(dm.i64, i)], source_etype=dm.ptr),
                             typ=dm.ptr)
        if step is _ARRAY:
            emit.device_array(value, kind, units)
        elif type(step) is _Foreign and step.tensor is not None:
            emit.torch_tensor(value, kind, step, units)
        elif type(step) is _Foreign:
            emit.foreign_array(value, kind, step, units, config[_LEGACY_ORDERED])
        elif step is None:
            emit.scalar(value, ty, next(units))
        else:
            emit.converted(value, kind, ty, next(units))
    launched = builder.call(emit.pointer(driver_functions["cuLaunchKernel"], _LAUNCH), [
        emit.address(int(known.loaded.function)),
        *[builder.trunc(v, _I32) for v in config[:_STREAM]],
        builder.inttoptr(config[_STREAM], dm.ptr), emit.pointers, ir.Constant(dm.ptr, None)])
    emit.unless(builder.icmp_unsigned("==", launched, ir.Constant(_I32, 0)))
    builder.ret(emit.new_reference(None))
    builder.position_at_end(mismatch)
    builder.ret(emit.new_reference(NotImplemented))
    compiled = get_engine().compile(str(module), level=2)
    # The engine keeps the code for the life of the process, and a dispatch table may call
    # it after its KnownLaunch was replaced (a foreign array of another kind): what the code
    # reads by address lives as long.
    _HELD.append((emit.keep, known.loaded))
    return compiled, compiled.address(name)


class _Emitter:
    """The pieces of an entry: Python objects and C functions by address (the code is this
    process's own, never cached), the parameter buffer and its pointer array."""

    def __init__(self, module, builder, mismatch, layout):
        self.module, self.builder, self.mismatch = module, builder, mismatch
        size = max(layout.size, 1)
        buffer = ir.GlobalVariable(module, ir.ArrayType(dm.i8, size), name="buffer")
        buffer.linkage = "internal"
        buffer.initializer = ir.Constant(buffer.value_type, None)
        buffer.align = 16
        self.buffer = buffer
        pointers = ir.GlobalVariable(module, ir.ArrayType(dm.ptr, max(len(layout.offsets), 1)),
                                     name="pointers")
        pointers.linkage = "internal"
        pointers.initializer = ir.Constant(pointers.value_type, [
            buffer.gep([ir.Constant(dm.i64, 0), ir.Constant(dm.i64, offset)])
            for offset in layout.offsets] or [ir.Constant(dm.ptr, None)])
        self.pointers = pointers.bitcast(dm.ptr)
        self.keep = []   # the Python objects whose addresses the code holds

    def address(self, value: int):
        return ir.Constant(dm.i64, value).inttoptr(dm.ptr)

    def pointer(self, value: int, fnty):
        return self.builder.inttoptr(ir.Constant(dm.i64, value), fnty.as_pointer())

    def object(self, obj):
        self.keep.append(obj)
        return self.address(id(obj))

    def c_api(self, name, restype, argtypes, var_arg=False):
        fn = self.module.globals.get(name)
        return fn or ir.Function(self.module, ir.FunctionType(restype, argtypes, var_arg),
                                 name=name)

    def new_reference(self, obj):
        self.builder.call(self.c_api("Py_IncRef", ir.VoidType(), [dm.ptr]), [self.object(obj)])
        return self.object(obj)

    def unless(self, ok):
        """Go on where `ok` holds; answer NotImplemented where it does not."""
        go_on = self.builder.append_basic_block("ok")
        self.builder.cbranch(ok, go_on, self.mismatch)
        self.builder.position_at_end(go_on)

    def is_type(self, value, cls):
        b = self.builder
        ob_type = b.load(b.gep(value, [ir.Constant(dm.i64, OB_TYPE)], source_etype=dm.i8),
                         typ=dm.ptr)
        return b.icmp_unsigned("==", ob_type, self.object(cls))

    def store(self, value, offset):
        b = self.builder
        address = b.add(b.ptrtoint(self.buffer, dm.i64), ir.Constant(dm.i64, offset))
        b.store(value, b.inttoptr(address, value.type.as_pointer()))

    def attribute(self, value, name):
        """A new reference to `value.name`, or to NotImplemented's path when it fails."""
        return self._succeeded(self.builder.call(
            self.c_api("PyObject_GetAttr", dm.ptr, [dm.ptr, dm.ptr]), [value, self.object(name)]))

    def _method(self, value, name):
        """A new reference to what `value.name()` returns, or to NotImplemented's path when
        it raises."""
        return self._succeeded(self.builder.call(
            self.c_api("PyObject_CallMethodObjArgs", dm.ptr, [dm.ptr, dm.ptr], var_arg=True),
            [value, self.object(name), ir.Constant(dm.ptr, None)]))

    def _succeeded(self, found):
        """`found`, what a C API call returned (a new reference, or NULL after an
        exception, which goes to NotImplemented's path, cleared)."""
        b = self.builder
        failed = b.icmp_unsigned("==", found, ir.Constant(dm.ptr, None))
        with b.if_then(failed, likely=False):
            b.call(self.c_api("PyErr_Clear", ir.VoidType(), []), [])
        self.unless(b.not_(failed))
        return found

    def device_array(self, value, kind, units):
        """A device array of the kiln type `kind` (interned, so identity decides; the
        parameter's type may be another, a signature's 'A' array): its kept values."""
        b = self.builder
        decref = self.c_api("Py_DecRef", ir.VoidType(), [dm.ptr])
        self.unless(self.is_type(value, DeviceNDArray))
        found = self.attribute(value, "_kiln_type")
        b.call(decref, [found])   # (the array's __dict__ keeps it)
        self.unless(b.icmp_unsigned("==", found, self.object(kind)))
        values = self.attribute(value, "_launch_values")
        as_int = self.c_api("PyLong_AsUnsignedLongLongMask", dm.i64, [dm.ptr])
        for j in range(5 + 2 * kind.ndim):
            offset = next(units)
            item = b.load(b.gep(values, [ir.Constant(dm.i64, TUPLE_ITEMS + 8 * j)],
                                source_etype=dm.i8), typ=dm.ptr)
            self.store(b.call(as_int, [item]), offset)
        b.call(decref, [values])

    def foreign_array(self, value, cls, step, units, legacy_ordered):
        """A C-contiguous array of another library, of the step's typestr and rank, read
        from the dict its `__cuda_array_interface__` makes (launcher._Foreign.values). Its
        producer's stream must need no synchronization: none, or the legacy default stream
        when the launch's stream waits for it."""
        b = self.builder
        self.unless(self.is_type(value, cls))
        desc = self.attribute(value, "__cuda_array_interface__")
        outer = self._releasing(desc)
        self.unless(self.is_type(desc, dict))
        for absent in ("strides", "mask"):
            self.unless(self._missing_or_none(self._item(desc, absent)))
        typestr, ndim = step.kind
        same = b.call(self.c_api("PyObject_RichCompareBool", dm.i32, [dm.ptr, dm.ptr, dm.i32]),
                      [self._present(self._item(desc, "typestr")), self.object(typestr),
                       ir.Constant(dm.i32, 2)])   # (Py_EQ)
        with b.if_then(b.icmp_signed("<", same, ir.Constant(dm.i32, 0)), likely=False):
            b.call(self.c_api("PyErr_Clear", ir.VoidType(), []), [])   # (a typestr's __eq__)
        self.unless(b.icmp_signed("==", same, ir.Constant(dm.i32, 1)))
        shape = [self._index(self._tuple_item(self._item(desc, "shape"), ndim, j))
                 for j in range(ndim)]
        pointer = b.call(self.c_api("PyLong_AsUnsignedLongLongMask", dm.i64, [dm.ptr]),
                         [self._exact(self._tuple_item(self._item(desc, "data"), 2, 0), int)])
        stream = self._item(desc, "stream")
        no_stream = self._missing_or_none(stream)
        with b.if_then(b.not_(no_stream)):
            producer = self._python_value(self._exact(stream, int), int, dm.i64)
            legacy = b.and_(b.icmp_signed("==", producer, ir.Constant(dm.i64, 1)),
                            b.icmp_signed("!=", legacy_ordered, ir.Constant(dm.i64, 0)))
            self.unless(b.or_(legacy, b.icmp_signed("==", producer, ir.Constant(dm.i64, 0))))
        self._release(desc, outer)
        self._c_contiguous(shape, pointer, step.itemsize, units)

    def torch_tensor(self, value, cls, step, units):
        """A PyTorch tensor read from its C attributes and methods, after the checks of its
        `__cuda_array_interface__` (launcher.TorchTensor); its parameters as
        foreign_array's would be from that property."""
        b = self.builder
        tensor = step.tensor
        self.unless(self.is_type(value, cls))
        overridden = b.call(self.c_api("PyObject_CallFunctionObjArgs", dm.ptr, [dm.ptr],
                                       var_arg=True),
                            [self.object(tensor.has_torch_function_unary), value,
                             ir.Constant(dm.ptr, None)])
        self._is_new_reference_to(self._succeeded(overridden), False)   # (no override)
        for name, expected in (("is_cuda", True), ("requires_grad", False),
                               ("layout", tensor.strided), ("dtype", tensor.dtype)):
            self._is_new_reference_to(self.attribute(value, name), expected)
        self._is_new_reference_to(self._method(value, "is_contiguous"), True)
        data = self._method(value, "data_ptr")
        outer = self._releasing(data)
        self.unless(self.is_type(data, int))
        pointer = b.call(self.c_api("PyLong_AsUnsignedLongLongMask", dm.i64, [dm.ptr]), [data])
        self._release(data, outer)
        shape = self.attribute(value, "shape")
        outer = self._releasing(shape)
        ndim = step.kind[1]
        extents = [self._index(self._tuple_item(shape, ndim, j, tensor.size_type))
                   for j in range(ndim)]
        self._release(shape, outer)
        self._c_contiguous(extents, pointer, step.itemsize, units)

    def _is_new_reference_to(self, found, expected):
        """Go on where `found` (a new reference, released here) is the object `expected`."""
        b = self.builder
        b.call(self.c_api("Py_DecRef", ir.VoidType(), [dm.ptr]), [found])
        self.unless(b.icmp_unsigned("==", found, self.object(expected)))

    def _releasing(self, obj):
        """Until _release: NotImplemented's path releases `obj` (a new reference) first."""
        b = self.builder
        outer, self.mismatch = self.mismatch, b.append_basic_block("release")
        with b.goto_block(self.mismatch):
            b.call(self.c_api("Py_DecRef", ir.VoidType(), [dm.ptr]), [obj])
            b.branch(outer)
        return outer

    def _release(self, obj, outer):
        self.builder.call(self.c_api("Py_DecRef", ir.VoidType(), [dm.ptr]), [obj])
        self.mismatch = outer

    def _c_contiguous(self, shape, pointer, itemsize, units):
        """The parameters of a C-contiguous array of extents `shape` at `pointer`."""
        b = self.builder
        size = ir.Constant(dm.i64, 1)
        for extent in shape:
            size = self._product(size, extent)
        has_items = b.icmp_signed("!=", size, ir.Constant(dm.i64, 0))
        strides, stride = [], ir.Constant(dm.i64, itemsize)
        for extent in reversed(shape):
            strides.insert(0, stride)
            if len(strides) < len(shape):
                at_least_one = b.select(b.icmp_signed(">", extent, ir.Constant(dm.i64, 0)),
                                        extent, ir.Constant(dm.i64, 1))
                stride = self._product(stride, at_least_one)
        for item in (0, 0, size, itemsize, b.select(has_items, pointer,
                                                    ir.Constant(dm.i64, 0)),
                     *shape, *strides):
            self.store(item if isinstance(item, ir.Value) else ir.Constant(dm.i64, item),
                       next(units))

    def _item(self, desc, key):
        """The dict's item (borrowed), or NULL."""
        return self.builder.call(self.c_api("PyDict_GetItem", dm.ptr, [dm.ptr, dm.ptr]),
                                 [desc, self.object(key)])

    def _missing_or_none(self, item):
        b = self.builder
        return b.or_(b.icmp_unsigned("==", item, ir.Constant(dm.ptr, None)),
                     b.icmp_unsigned("==", item, self.object(None)))

    def _present(self, item):
        self.unless(self.builder.icmp_unsigned("!=", item, ir.Constant(dm.ptr, None)))
        return item

    def _exact(self, item, cls):
        self.unless(self.is_type(self._present(item), cls))
        return item

    def _tuple_item(self, item, length, j, cls=tuple):
        """Item j of `item`, which must be a tuple (of exactly `cls`, tuple or a subclass
        of its layout) of `length` items."""
        b = self.builder
        self._exact(item, cls)
        size = b.load(b.gep(item, [ir.Constant(dm.i64, TUPLE_SIZE)], source_etype=dm.i8),
                      typ=dm.i64)
        self.unless(b.icmp_signed("==", size, ir.Constant(dm.i64, length)))
        return b.load(b.gep(item, [ir.Constant(dm.i64, TUPLE_ITEMS + 8 * j)],
                            source_etype=dm.i8), typ=dm.ptr)

    def _index(self, item):
        """An extent: a Python int in [0, 2**63)."""
        number = self._python_value(self._exact(item, int), int, dm.i64)
        self.unless(self.builder.icmp_signed(">=", number, ir.Constant(dm.i64, 0)))
        return number

    def _product(self, a, b):
        """a * b, which must not overflow int64 (where it would, the Python path's packing
        fails and the general path takes the launch)."""
        product = self.builder.smul_with_overflow(a, b)
        self.unless(self.builder.not_(self.builder.extract_value(product, 1)))
        return self.builder.extract_value(product, 0)

    def converted(self, value, source, ty, offset):
        """A Python int or float, or a NumPy float, converted to the parameter's NumPy type
        as the signature says (launcher._known_launch): where NumPy would raise or warn (an
        int out of range, a float32 overflow) or might round otherwise than LLVM (an int
        past the float's exact integers), the Python path converts it."""
        b = self.builder
        self.unless(self.is_type(value, source))
        target = dm.value_type(ty)
        if source is int:
            number = self._python_value(value, int, dm.i64)
            if isinstance(target, ir.IntType):
                info = np.iinfo(ty.np_dtype)
                low, high = info.min, min(info.max, np.iinfo(np.int64).max)
                converted = b.trunc(number, target) if target.width < 64 else number
            else:
                high = 2 ** (np.finfo(ty.np_dtype).nmant + 1)
                low = -high
                converted = b.sitofp(number, target)
            self.unless(b.and_(b.icmp_signed(">=", number, ir.Constant(dm.i64, int(low))),
                               b.icmp_signed("<=", number, ir.Constant(dm.i64, int(high)))))
            self.store(converted, offset)
            return
        number = self._field(value, ir.FloatType() if source is np.float32 else ir.DoubleType())
        if target.intrinsic_name == number.type.intrinsic_name:
            converted = number
        elif isinstance(target, ir.DoubleType):
            converted = b.fpext(number, target)
        else:
            converted = b.fptrunc(number, target)
            overflowed = b.and_(self._is_inf(converted), b.not_(self._is_inf(number)))
            self.unless(b.not_(overflowed))
        self.store(converted, offset)

    def _is_inf(self, value):
        b = self.builder
        magnitude = b.call(self.module.declare_intrinsic("llvm.fabs", [value.type]), [value])
        return b.fcmp_ordered("==", magnitude, ir.Constant(value.type, float("inf")))

    def scalar(self, value, ty, offset):
        """A scalar of exactly the parameter's type: a Python float, int or bool, or a NumPy
        scalar, whose value is read from the object."""
        b = self.builder
        cls = {"float64": float, "int64": int, "bool": bool}.get(str(ty))
        numpy_cls = ty.np_dtype.type
        lltype = dm.value_type(ty) if str(ty) != "bool" else dm.i8
        if cls is None:
            self.unless(self.is_type(value, numpy_cls))
            self.store(self._field(value, lltype), offset)
            return
        python = self.is_type(value, cls)
        result = b.alloca(lltype)
        with b.if_else(python) as (then, otherwise):
            with then:
                b.store(self._python_value(value, cls, lltype), result)
            with otherwise:
                self.unless(self.is_type(value, numpy_cls))
                b.store(self._field(value, lltype), result)
        self.store(b.load(result, typ=lltype), offset)

    def _field(self, value, lltype):
        b = self.builder
        return b.load(b.gep(value, [ir.Constant(dm.i64, SCALAR_VALUE)], source_etype=dm.i8),
                      typ=lltype)

    def _python_value(self, value, cls, lltype):
        b = self.builder
        if cls is float:
            return self._field(value, lltype)
        if cls is bool:
            return b.zext(b.icmp_unsigned("==", value, self.object(True)), dm.i8)
        overflow = b.alloca(ir.IntType(32))
        number = b.call(self.c_api("PyLong_AsLongLongAndOverflow", dm.i64,
                                   [dm.ptr, overflow.type]), [value, overflow])
        self.unless(b.icmp_unsigned("==", b.load(overflow), ir.Constant(ir.IntType(32), 0)))
        return number


def bind(configured, driver, context):
    """Make `configured` (a ConfiguredKernel, kept per CUDA context) call through the
    trampoline over its table: the compiled entries of its kernel's launches in `context`
    first, its Python `__call__` when none takes the arguments."""
    from ...cpu.callable import DispatchTable, vectorcall_arguments
    from ..kernel import ConfiguredKernel
    if driver.function_addresses() is None:
        return
    kernel = configured.kernel
    added = set()

    def miss(address, nargsf, kwnames):
        args, kwargs = vectorcall_arguments(address, nargsf, kwnames)
        ConfiguredKernel.__call__(configured, *args, **kwargs)
        for known in list(kernel.known_launches.values()):
            address = known is not None and known.context is context and known.entry_address
            if address and address not in added and table.add(address):
                added.add(address)

    table = DispatchTable(kernel.__name__, miss, config_of(configured.config))
    configured._table = table
    configured.__class__ = type("ConfiguredKernel", (type(configured),),
                                {"__slots__": (), "__call__": table.function})
