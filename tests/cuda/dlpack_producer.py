"""A hand-built DLPack producer for the tests: any tensor the protocol can describe (device,
dtype code/bits/lanes, strides or NULL, byte_offset, version, flags) over memory the test
owns, with a deleter (a ctypes callback) that counts its calls and what `__dlpack__` was
asked. Its capsules have no destructor: the struct lives as long as the Producer."""
import ctypes

from kiln.cuda import dlpack

_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.c_void_p)(("PyCapsule_New", ctypes.pythonapi))
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_NAMES = {False: b"dltensor", True: b"dltensor_versioned"}


def capsule_name(capsule):
    """Which of the protocol's names the capsule has now (None for another)."""
    for name in (b"dltensor", b"dltensor_versioned", b"used_dltensor",
                 b"used_dltensor_versioned"):
        if _capsule_is_valid(capsule, name):
            return name.decode()
    return None


def managed_tensor(capsule):
    """The DLManagedTensor(Versioned) struct an unconsumed capsule points at."""
    versioned = capsule_name(capsule) == "dltensor_versioned"
    address = _capsule_pointer(capsule, _NAMES[versioned])
    return (dlpack.DLManagedTensorVersioned if versioned else dlpack.DLManagedTensor) \
        .from_address(address)


class Producer:
    def __init__(self, data, shape, strides=None, dtype=(dlpack.kDLFloat, 64, 1),
                 byte_offset=0, device=(1, 0), versioned=True, flags=0, version=(1, 0),
                 keywords=True, owner=None):
        self.owner = owner          # what holds the memory at `data`
        self.device = device
        self.versioned = versioned
        self.keywords = keywords    # False: a pre-1.0 producer (`__dlpack__(stream)` only)
        self.deleted = 0
        self.requests = []          # (stream, max_version) of each __dlpack__ call
        ndim = len(shape)
        self._shape = (ctypes.c_int64 * max(ndim, 1))(*shape)
        self._strides = None if strides is None else \
            (ctypes.c_int64 * max(ndim, 1))(*strides)
        self.managed = (dlpack.DLManagedTensorVersioned if versioned
                        else dlpack.DLManagedTensor)()
        tensor = self.managed.dl_tensor
        tensor.data = data
        tensor.device = dlpack.DLDevice(*device)
        tensor.ndim = ndim
        tensor.dtype = dlpack.DLDataType(*dtype)
        tensor.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        if self._strides is not None:
            tensor.strides = ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64))
        tensor.byte_offset = byte_offset
        if versioned:
            self.managed.version = dlpack.DLPackVersion(*version)
            self.managed.flags = flags
        self._deleter = dlpack.DELETER(self._delete)
        self.managed.deleter = ctypes.cast(self._deleter, ctypes.c_void_p).value

    def _delete(self, address):
        assert address == ctypes.addressof(self.managed)
        self.deleted += 1

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, **keywords):
        if keywords and not self.keywords:
            raise TypeError("__dlpack__() got an unexpected keyword argument")
        self.requests.append((stream, keywords.get("max_version")))
        return _capsule_new(ctypes.addressof(self.managed), _NAMES[self.versioned], None)
