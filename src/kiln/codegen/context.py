"""What generated code needs beyond the AST walk: conversions between types, constants,
raising exceptions, calls between compiled functions. Library code receives a
`CodegenContext` as `context` in its codegen callbacks."""
from __future__ import annotations

import importlib
from contextlib import contextmanager

import numpy as np
from llvmlite import ir

from .. import types as t
from . import datamodel as dm
from .sharing import shared_symbol
from ..typing.unify import item_wise

STATUS_OK = ir.Constant(dm.i32, 0)
STATUS_ERROR = ir.Constant(dm.i32, 1)

_CONSTANTS = {}   # type class -> constant(context, builder, ty, value)
_CASTS = {}       # (source class, target class) -> cast(context, builder, value, src, dst)


def register_constant(type_class, constant):
    """`constant(context, builder, ty, value)`: the value of a Python object frozen into
    the code as a `type_class` value, for a family whose module owns its layout (numbers,
    tuples and arrays are this module's)."""
    _CONSTANTS[type_class] = constant


def register_cast(src_class, dst_class, cast):
    """`cast(context, builder, value, src, dst)`: a conversion from a `src_class` value to
    a C pointer or function of `dst_class` that the family of `src_class` knows, or to a
    value of its own family (a datetime64 to another unit)."""
    _CASTS[src_class, dst_class] = cast


def _registered(table, cls):
    for c in cls.__mro__:
        if c in table:
            return table[c]
    return None


def _registered_cast(src_class, dst_class):
    for s in src_class.__mro__:
        for d in dst_class.__mro__:
            if (s, d) in _CASTS:
                return _CASTS[s, d]
    return None


class ModuleState:
    """One LLVM module under construction and what it must keep alive."""

    def __init__(self, name: str, tctx, target: str):
        self.module = ir.Module(name=name)
        self.module.kiln_device = target == "cuda"   # (nrt.emit_allocate refuses there)
        self.tctx = tctx
        self.target = target
        self.keepalive = []     # Python objects whose addresses the code embeds
        self.object_refs = {}   # `kiln.obj.*` symbol -> the Python object it names
        self.cacheable = True   # False once the code embeds a process-specific address
        self.fusion = []        # a line per array expression computed in one loop
        self.split_reductions = []  # the whole-array reductions library/split.py splits
        self.exc_descriptors = {}  # see exceptions.constant_descriptor
        self.device_exceptions = []   # (class, message) per code device code raises with
        self._strings = {}
        self.line_table = None        # a linetable.LineTable when lines are described
        self._device_constants = {}   # id(array) -> (array, pointer): device_constant
        self._constant_bytes = 0
        # Set by a target whose loaded code may call code loaded before (the JIT without a
        # cache): `load_alone(state, symbol)` loads a module and exports `symbol` from it,
        # so that large callees are compiled once (sharing.py).
        self.load_alone = None

    def device_exception_code(self, exc_class, message) -> int:
        """The code device code raises `exc_class(message)` with: its 1-based index in the
        module's table, which a debug kernel reports to the host (cuda/debug.py)."""
        entry = (exc_class, message)
        if entry not in self.device_exceptions:
            self.device_exceptions.append(entry)
        return self.device_exceptions.index(entry) + 1

    def object_cell(self, obj, name=None):
        """A global cell holding the address of `obj`. An object with a `name` that means it
        in every process (given, or module.qualname for an importable class or function) is
        named by a symbol bound at load time, so the code can be cached; anything else is
        embedded as an address. Device code has no Python objects."""
        if self.target == "cuda":
            from ..errors import UnsupportedError
            raise UnsupportedError(f"device code cannot use the Python object {obj!r:.60}")
        name = name or importable_name(obj)
        if name is None:
            self.keepalive.append(obj)
            self.cacheable = False
            cell = ir.GlobalVariable(self.module, dm.ptr, name=f".obj.{len(self.keepalive)}")
            cell.linkage = "private"
            cell.initializer = ir.Constant(dm.i64, id(obj)).inttoptr(dm.ptr)
            return cell
        symbol = f"kiln.obj.{name}"
        cell = self.module.globals.get(symbol)
        if cell is None:
            cell = ir.GlobalVariable(self.module, dm.ptr, name=symbol)
            cell.linkage = "external"
            self.object_refs[symbol] = obj
        return cell

    def device_constant(self, arr: np.ndarray):
        """A generic pointer to a copy of the C-contiguous `arr`'s bytes in the module: in
        the GPU's constant memory (PTX `.const`, cached for reads every thread makes) while
        the module's constants fit its 64 KiB, in global memory after that."""
        found = self._device_constants.get(id(arr))
        if found is not None:
            return found[1]
        data = arr.tobytes()
        space = 4 if self._constant_bytes + len(data) <= 65536 else 1
        if space == 4:
            self._constant_bytes += len(data)
        array_ty = ir.ArrayType(dm.i8, len(data))
        gv = ir.GlobalVariable(self.module, array_ty,
                               name=f"kiln.const.{len(self._device_constants)}",
                               addrspace=space)
        gv.global_constant = True
        gv.linkage = "internal"
        gv.align = 16
        gv.initializer = ir.Constant(array_ty, bytearray(data))
        pointer = ir.FormattedConstant(
            dm.ptr, f"addrspacecast (ptr addrspace({space}) {gv.get_reference()} to ptr)")
        self._device_constants[id(arr)] = (arr, pointer)   # arr: its id stays its own
        return pointer

    def global_string(self, text: str):
        if text not in self._strings:
            data = bytearray(text.encode("utf-8") + b"\0")
            gv = ir.GlobalVariable(self.module, ir.ArrayType(dm.i8, len(data)),
                                   name=f".str.{len(self._strings)}")
            gv.global_constant = True
            gv.linkage = "private"
            gv.initializer = ir.Constant(gv.value_type, data)
            self._strings[text] = gv
        return self._strings[text]


REASSOCIATE = "kiln_reassociate"   # the attribute that marks an AST node (see reassociating)


class CodegenContext:
    """The context of one function being generated (its options decide fast-math and
    bounds checking); module-wide state is shared through `state`."""

    def __init__(self, state: ModuleState, options):
        self.state = state
        self.options = options
        self.fastmath = tuple(sorted(options.fastmath))
        # Set by the function's lowerer when it owns references: how to leave it (releasing
        # them) instead of a plain `ret`, and how to hold a new reference meanwhile.
        self.function_exit = None
        self.hold_slot = None
        # Where an exception goes: the dispatch block of the enclosing `try`, if any
        # (codegen/exceptions.py); None leaves the function with the error status.
        self.unwind_to = None
        # the user's statement being lowered, (function, file, line), or None in kiln's
        # own code: an exception raised there shows it as its last traceback frame
        self.raise_site = None

    @contextmanager
    def reassociating(self, node):
        """Float operations may be reassociated while lowering `node` when the parallel
        stage marked it (`REASSOCIATE`): a chunk's reduction `s += e` is then vectorized
        with several partial sums, as the split across threads already reorders the sum."""
        saved = self.fastmath
        if getattr(node, REASSOCIATE, False):
            self.fastmath = tuple(sorted(set(saved) | {"reassoc"}))
        try:
            yield
        finally:
            self.fastmath = saved

    @property
    def module(self):
        return self.state.module

    @property
    def target(self):
        return self.state.target

    # -- functions ---------------------------------------------------------------------------
    def function_type(self, typed):
        args = [dm.value_type(a) for a in typed.argtypes]
        return ir.FunctionType(dm.i32, [dm.ptr, dm.ptr] + args)

    def lower_function(self, typed) -> ir.Function:
        """The LLVM function for `typed`, generating it into this module on first use."""
        existing = self.module.globals.get(typed.symbol)
        if existing is not None:
            return existing
        fn = ir.Function(self.module, self.function_type(typed), name=typed.symbol)
        fn.linkage = "internal"
        from .lower import FunctionLowerer
        if typed.generator:
            from .generators import lower_generator_function
            lower_generator_function(self.state, typed, fn)
        else:
            FunctionLowerer(CodegenContext(self.state, typed.options), typed, fn).lower()
        return fn

    def call_function(self, builder, typed, args):
        """Call a compiled function; an exception it raises propagates out of the caller. A
        large callee already loaded on its own is called there (sharing.py)."""
        symbol = shared_symbol(self.state, typed)
        if symbol is None:
            fn = self.lower_function(typed)
        else:
            fn = self.module.globals.get(symbol) or \
                ir.Function(self.module, self.function_type(typed), name=symbol)
        return self.call_internal(builder, fn, typed.return_type, args)

    def call_internal(self, builder, fn, return_type, args):
        """Call `fn`, a function of the internal convention `i32 f(ret*, excinfo**, args...)`
        returning `return_type`; an exception it raises propagates out of the caller."""
        retslot = self.alloca(builder, dm.value_type(return_type))
        status = builder.call(fn, [retslot, builder.function.args[1]] + list(args))
        with builder.if_then(builder.icmp_signed("!=", status, STATUS_OK), likely=False):
            self.propagate(builder, status)
        return builder.load(retslot, typ=dm.value_type(return_type))

    def call_python(self, builder, pyfunc, sig, args):
        """Compile the Python function `pyfunc` for `sig.args` (once) and call it: how the
        library writes algorithms in Python instead of IR."""
        typed = self.state.tctx.type_function(pyfunc, sig.args, options=self.options)
        result = self.call_function(builder, typed, args)
        return self.cast(builder, result, typed.return_type, sig.return_type)

    def raise_error(self, builder, exc_class, message):
        """Raise `exc_class(message)` (`exc_class()` when `message` is None) from the
        current function (the block ends here)."""
        from .exceptions import constant_descriptor
        builder.store(constant_descriptor(self.state, exc_class, message, None,
                                          self.raise_site),
                      builder.function.args[1])
        self.propagate(builder, STATUS_ERROR)

    def propagate(self, builder, status):
        """Hand on the exception stored through `excinfo`: to the enclosing `try`, else
        out of the function with `status` (the block ends here)."""
        if self.unwind_to is not None:
            builder.branch(self.unwind_to)
        else:
            self.leave(builder, status)

    def leave(self, builder, status):
        """Return `status` from the current function (the block ends here)."""
        if self.function_exit is not None:
            self.function_exit(builder, status)
        else:
            builder.ret(status)

    def hold_until_done(self, builder, value, ty):
        """Library code that made a new reference and may still raise before it hands the
        value on: held here, it is released if the function leaves through an exception.
        `done_holding` ends the hold."""
        if self.hold_slot is None:
            return None
        slot = self.hold_slot(ty)
        builder.store(value, slot)
        return slot

    def done_holding(self, builder, slot):
        if slot is not None:
            builder.store(ir.Constant(slot.allocated_type, None), slot)

    def guard(self, builder, failed, exc_class, message):
        """Raise if the i1 `failed` is true; code generation continues on the other path."""
        with builder.if_then(failed, likely=False):
            self.raise_error(builder, exc_class, message)

    def alloca(self, builder, lltype, name=""):
        """A stack slot in the entry block, so LLVM's mem2reg can promote it."""
        entry = builder.function.entry_basic_block
        with builder.goto_block(entry):
            if entry.instructions:
                builder.position_before(entry.instructions[0])
            return builder.alloca(lltype, name=name)

    def zeroed_alloca(self, builder, lltype, name=""):
        """A stack slot that holds zero from the start of the function: a slot for a value
        that owns references, which every exit releases whether or not it was assigned."""
        slot = self.alloca(builder, lltype, name)
        with builder.goto_block(builder.function.entry_basic_block):
            builder.position_after(slot)
            builder.store(ir.Constant(lltype, None), slot)
        return slot

    def declare_external(self, name, restype, argtypes, var_arg=False):
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(restype, argtypes, var_arg=var_arg),
                             name=name)
        return fn

    def declare_intrinsic(self, name, argtypes):
        """An LLVM math intrinsic such as llvm.sqrt or llvm.pow: overloaded on, and
        returning, the type of its first argument."""
        fnty = ir.FunctionType(argtypes[0], list(argtypes))
        return self.module.declare_intrinsic(name, [argtypes[0]], fnty)

    # -- values ------------------------------------------------------------------------------
    def get_constant(self, builder, ty, value):
        if isinstance(ty, t.Boolean):
            return ir.Constant(dm.i1, int(bool(value)))
        if isinstance(ty, t.Integer):
            return ir.Constant(dm.value_type(ty), int(value) & ((1 << ty.bitwidth) - 1))
        if isinstance(ty, t.Float):
            return ir.Constant(dm.value_type(ty), float(value))
        if isinstance(ty, t.Complex):
            f = dm.value_type(ty.underlying_float)
            c = complex(value)
            return ir.Constant(dm.value_type(ty), [ir.Constant(f, c.real), ir.Constant(f, c.imag)])
        if isinstance(ty, t.BaseTuple):
            return self.make_tuple(builder, ty, [self.get_constant(builder, it, v)
                                                 for it, v in zip(ty.types, value)])
        if isinstance(ty, t.Array):
            return self.constant_array(builder, ty, value)
        if isinstance(ty, t.EnumMember):
            return builder.insert_value(ir.Constant(dm.value_type(ty), ir.Undefined),
                                        self.get_constant(builder, ty.dtype, value.value), 0)
        family = _registered(_CONSTANTS, type(ty))
        if family is not None:
            return family(self, builder, ty, value)
        return dm.null_value(ty)

    def constant_array(self, builder, ty, arr: np.ndarray):
        """A global array frozen into the code: on the CPU its memory is borrowed and kept
        alive; device code gets a copy of its bytes in the module (the GPU cannot read host
        memory), which typing made C-contiguous and read-only."""
        parent = ir.Constant(dm.ptr, None)
        if self.target == "cuda":
            arr = np.ascontiguousarray(arr)
            data = self.state.device_constant(arr)
        else:   # its NumPy array is its parent: returned, it is that array, as in Python
            self.state.keepalive.append(arr)
            self.state.cacheable = False
            data = ir.Constant(dm.i64, arr.ctypes.data).inttoptr(dm.ptr)
            parent = ir.Constant(dm.i64, id(arr)).inttoptr(dm.ptr)
        i64 = dm.i64
        dims = ir.ArrayType(i64, ty.ndim)
        return ir.Constant(dm.value_type(ty), [
            ir.Constant(dm.ptr, None), parent, ir.Constant(i64, arr.size),
            ir.Constant(i64, arr.itemsize), data,
            ir.Constant(dims, [ir.Constant(i64, s) for s in arr.shape]),
            ir.Constant(dims, [ir.Constant(i64, s) for s in arr.strides])])

    def make_tuple(self, builder, ty, items):
        value = ir.Constant(dm.value_type(ty), ir.Undefined)
        for i, item in enumerate(items):
            value = builder.insert_value(value, item, i)
        return value

    def cast(self, builder, value, src, dst):
        """Convert `value` of type `src` to `dst` with Python/NumPy semantics."""
        if src == dst:
            return value
        if isinstance(src, t.LiteralArg) and not isinstance(dst, t.Opaque):  # a constant
            return self.cast(builder, value, src.type, dst)             # argument: its value
        if isinstance(dst, t.Optional) or isinstance(src, t.Optional):
            return self._cast_optional(builder, value, src, dst)
        if isinstance(dst, t.Boolean):
            return self.is_true(builder, value, src)
        if isinstance(src, t.Boolean) and isinstance(dst, t.Number):
            src, value = t.uint8, builder.zext(value, dm.i8)
        if isinstance(src, t.Integer) and isinstance(dst, t.Integer):
            lt = dm.value_type(dst)
            if dst.bitwidth < src.bitwidth:
                return builder.trunc(value, lt)
            if dst.bitwidth > src.bitwidth:
                return builder.sext(value, lt) if src.signed else builder.zext(value, lt)
            return value
        if isinstance(src, t.Integer) and isinstance(dst, t.Float):
            lt = dm.value_type(dst)
            return builder.sitofp(value, lt) if src.signed else builder.uitofp(value, lt)
        if isinstance(src, t.Float) and isinstance(dst, t.Integer):
            lt = dm.value_type(dst)
            return builder.fptosi(value, lt) if dst.signed else builder.fptoui(value, lt)
        if isinstance(src, t.Float) and isinstance(dst, t.Float):
            lt = dm.value_type(dst)
            return builder.fpext(value, lt) if dst.bitwidth > src.bitwidth \
                else builder.fptrunc(value, lt)
        if isinstance(dst, t.Complex) and isinstance(src, (t.Integer, t.Float)):
            real = self.cast(builder, value, src, dst.underlying_float)
            zero = ir.Constant(dm.value_type(dst.underlying_float), 0.0)
            return self.make_tuple(builder, dst, [real, zero])
        if isinstance(dst, t.Complex) and isinstance(src, t.Complex):
            parts = [self.cast(builder, builder.extract_value(value, i), src.underlying_float,
                               dst.underlying_float) for i in range(2)]
            return self.make_tuple(builder, dst, parts)
        if isinstance(src, t.Array) and isinstance(dst, t.Array) and \
                (src.dtype, src.ndim) == (dst.dtype, dst.ndim):
            return value  # layout and mutability are compile-time facts only
        if item_wise(src, dst):
            items = [self.cast(builder, builder.extract_value(value, i), a, b)
                     for i, (a, b) in enumerate(zip(src.types, dst.types))]
            return self.make_tuple(builder, dst, items)
        if isinstance(src, (t.ListType, t.DictType, t.SetType)) and type(dst) is type(src) and \
                src.is_undefined:
            return value  # an empty `[]` or `{}` whose item types a later use fixed
        if isinstance(src, t.ListType) and isinstance(dst, t.ListType) and \
                (src.is_undefined or src.item_type == dst.item_type):
            return value  # a list made by `[]` or list() where a typed List is wanted
        if isinstance(src, t.StringLiteral) and isinstance(dst, t.UnicodeType):
            return self.get_constant(builder, dst, src.value)
        if isinstance(src, t.SliceLiteral) and isinstance(dst, t.SliceType):
            return self.get_constant(builder, dst, src.value)
        if isinstance(dst, t.SliceLiteral) and isinstance(src, t.SliceType):
            return self.get_constant(builder, dst, dst.value)   # (typing proved it that one)
        if isinstance(dst, (t.RawPointer, t.FunctionType)):
            return self._cast_pointer(builder, value, src, dst)
        if isinstance(dst, (t.Opaque, t.NoneType)):
            return dm.null_value(dst)
        family = _registered_cast(type(src), type(dst))
        if family is not None:
            return family(self, builder, value, src, dst)
        raise TypeError(f"kiln cannot convert {src} to {dst}")

    def _cast_pointer(self, builder, value, src, dst):
        """To a C pointer or function (library/foreign.py decides what may be passed): an
        array's data, an integer address, another pointer, a function's C address, or what
        a family registered (`register_cast`: a compiled function, in ccallback.py)."""
        if isinstance(src, t.Array):
            return builder.extract_value(value, dm.ARRAY_DATA)
        if isinstance(src, t.Integer):
            return builder.inttoptr(value, dm.ptr)
        if isinstance(src, t.RawPointer):
            return value
        if isinstance(src, t.FunctionType) and isinstance(dst, t.RawPointer):
            return builder.extract_value(value, 0)
        family = _registered_cast(type(src), type(dst))
        if family is not None:
            return family(self, builder, value, src, dst)
        raise TypeError(f"kiln cannot convert {src} to {dst}")

    def _cast_optional(self, builder, value, src, dst):
        """Into an Optional: the value with its flag. Out of one: the value, or a TypeError
        when it is None (Python would fail on None there too)."""
        if isinstance(dst, t.Optional):
            if isinstance(src, t.NoneType):
                return ir.Constant(dm.value_type(dst), None)
            def pack(inner, present):   # {value, present} (datamodel.value_type)
                packed = ir.Constant(dm.value_type(dst), ir.Undefined)
                packed = builder.insert_value(packed, inner, 0)
                return builder.insert_value(packed, present, 1)
            if isinstance(src, t.Optional):
                inner = self.cast(builder, builder.extract_value(value, 0), src.type, dst.type)
                return pack(inner, builder.extract_value(value, 1))
            inner = self.cast(builder, value, src, dst.type)
            return pack(inner, ir.Constant(dm.i1, 1))
        self.guard(builder, builder.not_(builder.extract_value(value, 1)), TypeError,
                   f"expected {dst}, got None")
        return self.cast(builder, builder.extract_value(value, 0), src.type, dst)

    def is_true(self, builder, value, ty):
        """Python truthiness of a scalar as an i1."""
        if isinstance(ty, t.Boolean):
            return value
        if isinstance(ty, t.Integer):
            return builder.icmp_unsigned("!=", value, ir.Constant(value.type, 0))
        if isinstance(ty, t.Float):
            return builder.fcmp_unordered("!=", value, ir.Constant(value.type, 0.0))
        if isinstance(ty, t.Complex):
            re, im = (self.is_true(builder, builder.extract_value(value, i), ty.underlying_float)
                      for i in range(2))
            return builder.or_(re, im)
        if isinstance(ty, t.NoneType):
            return ir.Constant(dm.i1, 0)
        raise TypeError(f"kiln cannot test the truth of {ty}")


def importable_name(obj):
    """"module:qualname" if importing that gives back `obj` in any process, else None."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not module or not qualname or "<" in qualname:
        return None
    try:
        found = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return f"{module}:{qualname}" if found is obj else None
