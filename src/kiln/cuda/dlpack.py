"""DLPack both ways: `DeviceNDArray.__dlpack__`/`__dlpack_device__` export kiln's device
arrays, `cuda.from_dlpack` imports any `__dlpack__` object (as do `cuda.as_cuda_array`
and kernel arguments), never copying.

Devices. The simulator's device memory is host memory, so there a device array is a kDLCPU
tensor (NumPy reads it in place) and kDLCPU tensors are imported; the driver back-end
exports kDLCUDA and imports CUDA device, pinned (kDLCUDAHost) and managed memory.

Lifetimes. An export is a ctypes DLManagedTensor(Versioned) inside an `_Export` that also
holds the shape, the strides and the array (so its memory). The capsule owns one reference
to the `_Export` (its `manager_ctx`), which the deleter drops. The deleter and the
capsule's destructor are native code compiled once by kiln's engine, not ctypes callbacks:
CPython destroys a capsule, and consumers call deleters from their own destructors, while a
Python exception may be pending, and a callback would run Python code over it. An import
renames the capsule "used_dltensor" (the protocol's sign that the consumer owns it) and
calls the producer's deleter once, when the last kiln view of the memory goes.
"""
from __future__ import annotations

import ctypes
import enum
import threading
import weakref

import numpy as np

from . import backend
from .devicearray import DeviceNDArray, c_strides


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    """The legacy (pre-1.0) exchange struct, in a capsule named "dltensor"."""
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    """DLPack 1.x's exchange struct, in a capsule named "dltensor_versioned"."""
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


VERSION = (1, 0)   # the DLPack version kiln exports and reads
FLAG_READ_ONLY, FLAG_IS_COPIED = 1 << 0, 1 << 1
kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLComplex, kDLBool = 0, 1, 2, 4, 5, 6
DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_STRUCT = {False: DLManagedTensor, True: DLManagedTensorVersioned}
_NAME = {False: b"dltensor", True: b"dltensor_versioned"}
_USED = {False: b"used_dltensor", True: b"used_dltensor_versioned"}

_TO_DL = {np.dtype(t): (code, np.dtype(t).itemsize * 8) for code, types in (
    (kDLBool, [np.bool_]), (kDLInt, [np.int8, np.int16, np.int32, np.int64]),
    (kDLUInt, [np.uint8, np.uint16, np.uint32, np.uint64]),
    (kDLFloat, [np.float16, np.float32, np.float64]),
    (kDLComplex, [np.complex64, np.complex128])) for t in types}
_FROM_DL = {dl: dtype for dtype, dl in _TO_DL.items()}

# Where each back-end's arrays live (export) and what memory it can take (import).
_HOST_MEMORY = (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost, DLDeviceType.kDLCUDAManaged)
_CUDA_MEMORY = (DLDeviceType.kDLCUDA, DLDeviceType.kDLCUDAHost, DLDeviceType.kDLCUDAManaged)


def _device_name(kind) -> str:
    try:
        return DLDeviceType(kind).name
    except ValueError:
        return f"DLPack device type {kind}"


# -- native deleters and capsule destructor -------------------------------------------------
def _native_ir() -> str:
    from llvmlite import ir

    from ..codegen import datamodel as dm
    module = ir.Module(name="kiln.cuda.dlpack")
    void = ir.VoidType()
    unary = ir.FunctionType(void, [dm.ptr])

    def declare(name, result, args):
        return ir.Function(module, ir.FunctionType(result, args), name=name)

    def field(builder, pointer, offset):
        return builder.gep(pointer, [ir.Constant(dm.i64, offset)], source_etype=dm.i8)

    for name in (*_NAME.values(), *_USED.values()):
        text = bytearray(name + b"\0")
        string = ir.GlobalVariable(module, ir.ArrayType(dm.i8, len(text)),
                                   name=f"kiln_dlpack_{name.decode()}")
        string.global_constant = True
        string.initializer = ir.Constant(ir.ArrayType(dm.i8, len(text)), text)
    is_initialized = declare("Py_IsInitialized", dm.i32, [])
    ensure = declare("PyGILState_Ensure", dm.i32, [])
    release = declare("PyGILState_Release", void, [dm.i32])
    decref = declare("Py_DecRef", void, [dm.ptr])
    is_valid = declare("PyCapsule_IsValid", dm.i32, [dm.ptr, dm.ptr])
    get_pointer = declare("PyCapsule_GetPointer", dm.ptr, [dm.ptr, dm.ptr])

    # deleter(managed): drop the capsule's reference to its _Export, holding the GIL (a
    # consumer may call it from any thread); after Python's finalization, leave it.
    for versioned, struct in _STRUCT.items():
        deleter = ir.Function(module, unary,
                              name=f"kiln_dlpack_delete_{_NAME[versioned].decode()}")
        b = ir.IRBuilder(deleter.append_basic_block("entry"))
        with b.if_then(b.icmp_signed("==", b.call(is_initialized, []), ir.Constant(dm.i32, 0))):
            b.ret_void()
        context = b.load(field(b, deleter.args[0], struct.manager_ctx.offset), typ=dm.ptr)
        state = b.call(ensure, [])
        b.call(decref, [context])
        b.call(release, [state])
        b.ret_void()

    # destructor(capsule): a capsule nobody consumed still has its name; call its deleter.
    destructor = ir.Function(module, unary, name="kiln_dlpack_capsule_destructor")
    b = ir.IRBuilder(destructor.append_basic_block("entry"))
    capsule = destructor.args[0]
    for versioned, struct in _STRUCT.items():
        name = module.get_global(f"kiln_dlpack_{_NAME[versioned].decode()}")
        with b.if_then(b.icmp_signed("!=", b.call(is_valid, [capsule, name]),
                                     ir.Constant(dm.i32, 0))):
            managed = b.call(get_pointer, [capsule, name])
            delete = b.load(field(b, managed, struct.deleter.offset), typ=unary.as_pointer())
            b.call(delete, [managed])
            b.ret_void()
    b.ret_void()
    return str(module)


class _Native:
    """The compiled deleters, destructor and capsule names (static: a capsule keeps a
    pointer to its name, and may outlive every Python module)."""

    def __init__(self):
        import llvmlite.binding as llvm

        from ..runtime.cache import internal_cache
        from ..runtime.engine import get_engine
        engine = get_engine()
        for symbol in ("Py_IsInitialized", "PyCapsule_IsValid"):
            llvm.add_symbol(symbol, ctypes.cast(getattr(ctypes.pythonapi, symbol),
                                                ctypes.c_void_p).value)
        compiled = engine.compile(_native_ir(), level=2, cache=internal_cache("dlpack"))
        self.deleter = {versioned: compiled.address(f"kiln_dlpack_delete_{name.decode()}")
                        for versioned, name in _NAME.items()}
        self.destructor = compiled.address("kiln_dlpack_capsule_destructor")
        self.name = {name: compiled.engine.engine.get_global_value_address(
            f"kiln_dlpack_{name.decode()}") for name in (*_NAME.values(), *_USED.values())}


_native = None
_native_lock = threading.Lock()


def native() -> _Native:
    global _native
    with _native_lock:
        if _native is None:
            _native = _Native()
        return _native


# Private prototypes of the capsule API (ctypes.pythonapi's are shared with other modules).
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p,
                                 ctypes.c_void_p)(("PyCapsule_New", ctypes.pythonapi))
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_capsule_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p)(
    ("PyCapsule_SetName", ctypes.pythonapi))
_incref = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_IncRef", ctypes.pythonapi))


# -- export ------------------------------------------------------------------------------------
class _Export:
    """What an exported capsule keeps alive until its deleter runs."""

    __slots__ = ("managed", "shape", "strides", "owner")


def device_of(devary) -> tuple:
    """`__dlpack_device__`: (kDLCPU, 0) in the simulator, (kDLCUDA, its device) on a GPU."""
    if backend.active.simulated:
        return DLDeviceType.kDLCPU, 0
    return DLDeviceType.kDLCUDA, devary.gpu_data.device_id


def export(devary, stream=None, max_version=None, dl_device=None, copy=None):
    """`__dlpack__`: a capsule describing the array (or, when `copy` is True or `dl_device`
    asks for the host, a copy), after making the consumer's `stream` wait for the array's
    own (on CUDA: None is the legacy default stream, -1 no synchronization)."""
    own = device_of(devary)
    target = own if dl_device is None else (int(dl_device[0]), int(dl_device[1]))
    to_host = target != own and target == (DLDeviceType.kDLCPU, 0)
    if target != own and not to_host:
        raise BufferError(f"this device array is on {_device_name(own[0])} {own[1]}; it can "
                          f"be exported there or copied to the host (kDLCPU, 0), not to "
                          f"{_device_name(target[0])} {target[1]}")
    if to_host and copy is False:
        raise BufferError("exporting a device array to the host (kDLCPU) needs a copy, and "
                          "copy=False forbids it")
    _check_stream(stream, target[0])
    versioned = max_version is not None and tuple(max_version)[0] >= VERSION[0]
    if to_host:
        host = devary.copy_to_host()
        if devary.stream:
            devary.stream.synchronize()
        return _capsule(host.__array_interface__["data"][0], host.shape, host.strides,
                        host.dtype, target, host, versioned, readonly=False, copied=True)
    if copy:
        from .host import device_array
        source, devary = devary, device_array(devary.shape, devary.dtype, stream=devary.stream)
        devary.copy_to_device(source)
    elif devary.readonly and not versioned:
        raise BufferError("a read-only device array cannot be exported as a legacy DLPack "
                          "capsule, which cannot say it is read-only: ask for "
                          "max_version=(1, 0) or copy=True")
    if target[0] != DLDeviceType.kDLCPU and stream != -1:
        event = backend.active.event(timing=False)
        event.record(devary.stream)
        event.wait(1 if stream is None else stream)
    pointer = devary.gpu_data.device_pointer + devary._offset
    return _capsule(pointer, devary.shape, devary.strides, devary.dtype, own, devary,
                    versioned, readonly=devary.readonly, copied=bool(copy))


def _check_stream(stream, device_type):
    if device_type == DLDeviceType.kDLCPU:
        if stream is not None:
            raise ValueError(f"stream={stream!r}: a host (kDLCPU) tensor takes stream=None")
    elif stream is not None and (not isinstance(stream, int) or stream == 0 or stream < -1):
        raise ValueError(f"stream={stream!r}: a CUDA consumer passes its stream as an integer, "
                         "1 (legacy default), 2 (per-thread default), a stream handle or -1 "
                         "(no synchronization); 0 is ambiguous and not allowed")


def _capsule(pointer, shape, strides, dtype, device, owner, versioned, readonly, copied):
    dl_dtype = _TO_DL.get(dtype)
    if dl_dtype is None:
        raise BufferError(f"DLPack cannot describe dtype {dtype}: it exchanges booleans, "
                          "integers, floats and complex numbers in native byte order")
    if any(s % dtype.itemsize for s in strides):
        raise BufferError(f"strides {strides} are not multiples of the item size "
                          f"({dtype.itemsize}); DLPack counts strides in elements")
    ndim = len(shape)
    record = _Export()
    record.shape = (ctypes.c_int64 * max(ndim, 1))(*shape)
    record.strides = (ctypes.c_int64 * max(ndim, 1))(*(s // dtype.itemsize for s in strides))
    record.owner = owner
    record.managed = managed = _STRUCT[versioned]()
    tensor = managed.dl_tensor
    tensor.data = pointer or None
    tensor.device = DLDevice(*device)
    tensor.ndim = ndim
    tensor.dtype = DLDataType(dl_dtype[0], dl_dtype[1], 1)
    tensor.shape = ctypes.cast(record.shape, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = ctypes.cast(record.strides, ctypes.POINTER(ctypes.c_int64))
    tensor.byte_offset = 0
    code = native()
    managed.manager_ctx = id(record)
    managed.deleter = code.deleter[versioned]
    if versioned:
        managed.version = DLPackVersion(*VERSION)
        managed.flags = (FLAG_READ_ONLY if readonly else 0) | (FLAG_IS_COPIED if copied else 0)
    capsule = _capsule_new(ctypes.addressof(managed), code.name[_NAME[versioned]],
                           code.destructor)
    _incref(record)   # the capsule's reference, dropped by the deleter
    return capsule


# -- import ------------------------------------------------------------------------------------
class _Import:
    """A consumed tensor: its producer's deleter runs once, when this object goes (the
    memory of every kiln view holds it). Not at exit: the producer may be gone by then."""

    def __init__(self, address, deleter):
        self.release = weakref.finalize(self, _delete, address, deleter)
        self.release.atexit = False


def _delete(address, deleter):
    if deleter:
        DELETER(deleter)(address)


def _dlpack_stream(stream):
    """The DLPack value of the kiln stream a consumer will use (0, kiln's default stream,
    is CUDA's legacy default stream, DLPack's 1)."""
    handle = int(stream) if stream else 0
    return handle or 1


def from_dlpack(obj, stream=0) -> DeviceNDArray:
    """A DeviceNDArray over the memory of an object implementing DLPack (`__dlpack__` and
    `__dlpack_device__`: CuPy arrays, PyTorch tensors...), without copying.
    The producer orders its work before `stream`, the kiln stream the array will be used
    on."""
    active = backend.active
    current = active.context().device.id
    if not (hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__")):
        raise TypeError(f"{type(obj).__name__} object does not implement DLPack "
                        "(__dlpack__ and __dlpack_device__)")
    kind, index = (int(x) for x in obj.__dlpack_device__())
    _check_device(kind, index, current)
    consumer = None if kind == DLDeviceType.kDLCPU else _dlpack_stream(stream)
    try:
        capsule = obj.__dlpack__(stream=consumer, max_version=VERSION)
    except TypeError:   # a producer older than DLPack 1.0's keywords
        capsule = obj.__dlpack__(stream=consumer)
    return consume(capsule, current)


def _check_device(kind, index, current):
    accepted = _HOST_MEMORY if backend.active.simulated else _CUDA_MEMORY
    if kind not in accepted:
        if kind == DLDeviceType.kDLCPU:
            hint = "kiln.cuda takes device memory: copy it with cuda.to_device"
        elif backend.active.simulated:
            hint = "the simulator's device memory is host memory (kDLCPU)"
        else:
            hint = "kiln.cuda takes " + ", ".join(k.name for k in accepted)
        raise BufferError(f"the DLPack tensor is on {_device_name(kind)} {index}: {hint}")
    if kind == DLDeviceType.kDLCUDA and index != current:
        raise BufferError(f"the DLPack tensor is on CUDA device {index} and the current "
                          f"device is {current}: cuda.select_device({index}) first")


def consume(capsule, current=0) -> DeviceNDArray:
    """A DeviceNDArray over the tensor of an unconsumed DLPack capsule, which it consumes."""
    for versioned in (True, False):
        if _capsule_is_valid(capsule, _NAME[versioned]):
            break
    else:
        raise TypeError(f"expected an unconsumed DLPack capsule (\"dltensor\" or "
                        f"\"dltensor_versioned\"), got {capsule!r}")
    address = _capsule_pointer(capsule, _NAME[versioned])
    managed = _STRUCT[versioned].from_address(address)
    if _capsule_set_name(capsule, native().name[_USED[versioned]]):
        raise RuntimeError("could not rename the consumed DLPack capsule")
    owner = _Import(address, managed.deleter)
    try:
        if versioned and managed.version.major != VERSION[0]:
            raise BufferError(f"DLPack {managed.version.major}.{managed.version.minor} "
                              f"tensor: kiln reads DLPack {VERSION[0]}.x")
        readonly = versioned and bool(managed.flags & FLAG_READ_ONLY)
        return _view(managed.dl_tensor, readonly, owner, current)
    except BaseException:
        owner.release()
        raise


def _view(tensor, readonly, owner, current) -> DeviceNDArray:
    from .host import wrap_foreign
    _check_device(tensor.device.device_type, tensor.device.device_id, current)
    code, bits, lanes = tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes
    if lanes != 1:
        raise BufferError(f"DLPack dtype with {lanes} lanes: kiln arrays hold one scalar "
                          "per element")
    dtype = _FROM_DL.get((code, bits))
    if dtype is None:
        kind = {kDLBfloat: "bfloat"}.get(code, f"type code {code}")
        raise BufferError(f"DLPack dtype {kind} of {bits} bits has no kiln dtype: kiln takes "
                          "bool, int8-64, uint8-64, float16/32/64 and complex64/128")
    ndim = tensor.ndim
    if ndim < 0 or ndim and not tensor.shape:
        raise BufferError(f"DLPack tensor with ndim={ndim} and "
                          f"{'a' if tensor.shape else 'no'} shape")
    shape = tuple(tensor.shape[i] for i in range(ndim))
    if any(n < 0 for n in shape):
        raise BufferError(f"DLPack tensor with a negative extent: shape {shape}")
    if not tensor.data and 0 not in shape:
        raise BufferError(f"DLPack tensor of shape {shape} with a NULL data pointer")
    if tensor.strides and ndim:
        strides = tuple(tensor.strides[i] * dtype.itemsize for i in range(ndim))
    else:   # NULL strides: C-contiguous
        strides = c_strides(shape, dtype.itemsize)
    pointer = (tensor.data or 0) + tensor.byte_offset
    return wrap_foreign(pointer, shape, strides, dtype, readonly, owner)
