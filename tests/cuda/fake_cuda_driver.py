"""A test double of cuda-bindings' `driver` module, for testing kiln's hardware back-end on
machines without a GPU. It keeps device memory as host bytes (so copies really move data),
records every call, and reads launch parameters the way the driver does: their sizes from
the `.param` declarations of the loaded PTX entry. Kernels are not executed, except
cuda/stridedcopy.py's copy, which it runs element by element from its parameters."""
import ctypes
import itertools
import operator
import re
from types import SimpleNamespace

import numpy as np

SUCCESS, INVALID_VALUE, OUT_OF_MEMORY, NOT_READY, UNSUPPORTED_PTX, INVALID_PTX = \
    0, 1, 2, 600, 222, 218
_NAMES = {INVALID_VALUE: "CUDA_ERROR_INVALID_VALUE", OUT_OF_MEMORY: "CUDA_ERROR_OUT_OF_MEMORY",
          NOT_READY: "CUDA_ERROR_NOT_READY", INVALID_PTX: "CUDA_ERROR_INVALID_PTX",
          UNSUPPORTED_PTX: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"}

ATTRIBUTES = {"COMPUTE_CAPABILITY_MAJOR": 9, "COMPUTE_CAPABILITY_MINOR": 0,
              "MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024,
              "MAX_BLOCK_DIM_Z": 64, "MAX_GRID_DIM_X": 2**31 - 1, "MAX_GRID_DIM_Y": 65535,
              "MAX_GRID_DIM_Z": 65535, "MAX_SHARED_MEMORY_PER_BLOCK": 48 * 1024,
              "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 227 * 1024,
              "MULTIPROCESSOR_COUNT": 132, "WARP_SIZE": 32}
_PARAM = re.compile(r"\.[bsuf](\d+)\b[^,]*?(?:\[(\d+)\])?\s*(?:,|$)")
_PTX_MAX = {12040: 84, 12090: 88, 11040: 74, 11080: 78}   # what the fake driver's JIT accepts


class Function(SimpleNamespace):
    """A CUfunction: its int is a handle, as cuda-bindings' objects give one."""

    def __init__(self, name, sizes, registry):
        super().__init__(name=name, sizes=sizes)
        registry[id(self)] = self

    def __int__(self):
        return id(self)


_INSTANCES = itertools.count()


class FakeDriver:
    CUresult = SimpleNamespace(CUDA_SUCCESS=SUCCESS)
    CUipcMem_flags = SimpleNamespace(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS=1)

    class CUipcMemHandle:
        reserved = bytes(64)
    CUdevice_attribute = SimpleNamespace(**{f"CU_DEVICE_ATTRIBUTE_{k}": k for k in ATTRIBUTES})
    CU_MEMHOSTALLOC_DEVICEMAP = 2

    def __init__(self, version=12040, cc=(9, 0), devices=1, memory=1 << 30):
        self.version, self.ndevices, self.capacity = version, devices, memory
        self.attributes = dict(ATTRIBUTES, COMPUTE_CAPABILITY_MAJOR=cc[0],
                               COMPUTE_CAPABILITY_MINOR=cc[1])
        self.calls = []
        self.allocations = {}      # device address -> bytearray
        self.host = {}             # pinned host address -> ctypes buffer
        self.modules = {}          # module handle -> image
        self.globals = {}          # (module, name) -> (device address, size)
        self.functions = {}        # handle -> Function
        self.callbacks = []        # the C functions cuGetProcAddress gave
        self.current = None        # the current context
        self.launches = []         # (function name, grid, block, shared, stream, params bytes)
        self.cooperative_launches = []   # names of the kernels launched cooperatively
        self._addresses = itertools.count(0x7f00_0000_0000, 1 << 32)
        # contexts unique to this double: code another test's double compiled launch
        # entries for (kept by kernels that outlive it) must not take this one's context
        self._contexts = 0xC0_0000 + 0x100 * next(_INSTANCES)
        self._handles = itertools.count(0x100)

    def __getattr__(self, name):   # every cu* call is recorded, then answered
        if not name.startswith("cu"):
            raise AttributeError(name)
        answer = getattr(self, f"_{name}")

        def call(*args):
            self.calls.append((name, args))
            return answer(*args)
        return call

    def names(self):
        return [name for name, _ in self.calls]

    # -- init and devices ------------------------------------------------------------------
    def _cuInit(self, flags):
        return (SUCCESS,)

    def _cuGetErrorName(self, code):
        return SUCCESS, _NAMES.get(int(code), f"CUDA_ERROR_{int(code)}").encode()

    def _cuDriverGetVersion(self):
        return SUCCESS, self.version

    def _cuDeviceGetCount(self):
        return SUCCESS, self.ndevices

    def _cuDeviceGet(self, ordinal):
        return (SUCCESS, ordinal) if 0 <= ordinal < self.ndevices else (INVALID_VALUE, None)

    def _cuDeviceGetName(self, length, device):
        return SUCCESS, f"Fake GPU {device}".encode().ljust(length, b"\0")

    def _cuDeviceGetAttribute(self, attribute, device):
        return SUCCESS, self.attributes[attribute]

    def _cuDeviceGetUuid(self, device):
        return SUCCESS, SimpleNamespace(bytes=bytes(range(16)))

    def _cuDevicePrimaryCtxRetain(self, device):
        return SUCCESS, self._contexts + device   # a CUcontext handle

    def _cuCtxSetCurrent(self, context):
        self.current = context
        return (SUCCESS,)

    def _ok(self, *args):
        return (SUCCESS,)

    _cuCtxSynchronize = _cuDevicePrimaryCtxRelease = _ok
    _cuDevicePrimaryCtxReset = _cuStreamSynchronize = _cuStreamDestroy = _ok
    _cuEventRecord = _cuEventSynchronize = _cuEventDestroy = _cuStreamWaitEvent = _ok
    _cuStreamQuery = _cuEventQuery = _ok

    # -- memory ------------------------------------------------------------------------------
    def _cuMemGetInfo(self):
        used = sum(map(len, self.allocations.values()))
        return SUCCESS, self.capacity - used, self.capacity

    def _cuMemAlloc(self, nbytes):
        if nbytes == 0 or nbytes > self._cuMemGetInfo()[1]:
            return (OUT_OF_MEMORY if nbytes else INVALID_VALUE), None
        address = next(self._addresses)
        self.allocations[address] = bytearray(nbytes)
        return SUCCESS, address

    # -- IPC: "another process" is this one, mapping the same fake memory --------------------
    def _cuIpcGetMemHandle(self, address):
        if address not in self.allocations:   # handles name whole allocations
            return INVALID_VALUE, None
        return SUCCESS, SimpleNamespace(reserved=address.to_bytes(8, "little") + bytes(56))

    def _cuIpcOpenMemHandle(self, handle, flags):
        address = int.from_bytes(handle.reserved[:8], "little")
        if flags != 1 or address not in self.allocations:
            return INVALID_VALUE, None
        return SUCCESS, address

    def _cuIpcCloseMemHandle(self, address):
        return (SUCCESS,)

    def _cuMemFree(self, address):
        del self.allocations[address]
        return (SUCCESS,)

    def _find(self, address, nbytes):
        for base, data in self.allocations.items():
            if base <= address and address + nbytes <= base + len(data):
                return data, address - base
        raise AssertionError(f"access to {nbytes} bytes at {address:#x} outside any "
                             "allocation")

    def _cuMemcpyHtoDAsync(self, device, host, nbytes, stream):
        data, offset = self._find(device, nbytes)
        data[offset:offset + nbytes] = ctypes.string_at(host, nbytes)
        return (SUCCESS,)

    def _cuMemcpyHtoD(self, device, host, nbytes):
        return self._cuMemcpyHtoDAsync(device, host, nbytes, 0)

    def _cuMemcpyDtoH(self, host, device, nbytes):
        return self._cuMemcpyDtoHAsync(host, device, nbytes, 0)

    def _cuMemcpyDtoHAsync(self, host, device, nbytes, stream):
        data, offset = self._find(device, nbytes)
        ctypes.memmove(host, bytes(data[offset:offset + nbytes]), nbytes)
        return (SUCCESS,)

    def _cuMemcpyDtoDAsync(self, dst, src, nbytes, stream):
        source, offset = self._find(src, nbytes)
        chunk = bytes(source[offset:offset + nbytes])
        target, offset = self._find(dst, nbytes)
        target[offset:offset + nbytes] = chunk
        return (SUCCESS,)

    def _cuMemHostAlloc(self, nbytes, flags):
        buffer = ctypes.create_string_buffer(nbytes)
        self.host[ctypes.addressof(buffer)] = buffer
        return SUCCESS, ctypes.addressof(buffer)

    def _cuMemFreeHost(self, address):
        del self.host[address]
        return (SUCCESS,)

    def _cuMemHostGetDevicePointer(self, address, flags):
        return SUCCESS, address    # unified addressing: the same address

    # -- streams and events ------------------------------------------------------------------
    def _cuStreamCreate(self, flags):
        return SUCCESS, next(self._handles)

    def _cuEventCreate(self, flags):
        return SUCCESS, next(self._handles)

    def _cuEventElapsedTime(self, start, end):
        return SUCCESS, 1.5

    # -- modules and launches ------------------------------------------------------------------
    def _cuModuleLoadData(self, image):
        image = bytes(image)
        if not image.startswith(b"\x7fELF"):   # PTX: the JIT checks its .version
            major, minor = re.search(rb"\.version (\d+)\.(\d+)", image).groups()
            if int(major) * 10 + int(minor) > _PTX_MAX[self.version]:
                return UNSUPPORTED_PTX, None
            static_shared = sum(map(int, re.findall(rb"\.shared\s[^\[;]*\[(\d+)\]", image)))
            if static_shared > 227 * 1024:   # ptxas: "uses too much shared data"
                return INVALID_PTX, None
        handle = next(self._handles)
        self.modules[handle] = image
        return SUCCESS, handle

    CUfunction_attribute = SimpleNamespace(**{f"CU_FUNC_ATTRIBUTE_{k}": k for k in (
        "NUM_REGS", "SHARED_SIZE_BYTES", "LOCAL_SIZE_BYTES", "CONST_SIZE_BYTES",
        "MAX_THREADS_PER_BLOCK", "MAX_DYNAMIC_SHARED_SIZE_BYTES")})

    def _cuFuncGetAttribute(self, attribute, function):
        """A made-up value per attribute, told apart by the function's name's length."""
        base = {"NUM_REGS": 32, "SHARED_SIZE_BYTES": 1024, "LOCAL_SIZE_BYTES": 0,
                "CONST_SIZE_BYTES": 64, "MAX_THREADS_PER_BLOCK": 1024}[attribute]
        return SUCCESS, base + len(function.name)

    def _cuFuncSetAttribute(self, function, attribute, value):
        """Only the opt-in to more dynamic shared memory, refused past the device's limit
        with the function's static shared memory (its SHARED_SIZE_BYTES) counted."""
        static = self._cuFuncGetAttribute("SHARED_SIZE_BYTES", function)[1]
        if attribute != "MAX_DYNAMIC_SHARED_SIZE_BYTES" or \
                static + value > self.attributes["MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"]:
            return (INVALID_VALUE,)
        function.dynamic_shared = value
        return (SUCCESS,)

    def _cuModuleGetGlobal(self, module, name):
        """A `.global` array of the module's PTX: device memory of its size, zero at first
        (kept per module, as the driver keeps it for the module's lifetime)."""
        key = (module, name)
        if key not in self.globals:
            text = self.modules[module].decode(errors="replace")
            found = re.search(rf"\.global \.align \d+ \.b8 {re.escape(name.decode())}\[(\d+)\]",
                              text)
            if found is None:
                return INVALID_VALUE, None, None
            size = int(found.group(1))
            self.globals[key] = (self._cuMemAlloc(size)[1], size)
        return (SUCCESS, *self.globals[key])

    def _cuModuleGetFunction(self, module, name):
        if self.modules[module].startswith(b"\x7fELF"):   # a cubin: no parameter list read
            return SUCCESS, Function(name.decode(), [], self.functions)
        text = self.modules[module].decode(errors="replace")
        found = re.search(rf"\.entry {re.escape(name.decode())}\s*\((.*?)\)", text, re.S)
        if found is None:
            return INVALID_VALUE, None
        sizes = [int(bits) // 8 * int(count or 1) for bits, count in
                 _PARAM.findall(found.group(1).strip())]
        return SUCCESS, Function(name.decode(), sizes, self.functions)

    # -- what compiled launch entries call: C functions (cuda/driver/entry.py) ----------------
    CUdriverProcAddress_flags = SimpleNamespace(CU_GET_PROC_ADDRESS_LEGACY_STREAM=1,
                                                CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM=2)
    _LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7,
                               ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    _CURRENT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p))

    def _cuGetProcAddress(self, symbol, version, flags):
        """C callbacks into this double, recorded under the functions' names as the calls
        through the bindings are."""
        def launch(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
            self.calls.append(("cuLaunchKernel", ("compiled",)))
            return self._cuLaunchKernel(self.functions[function], gx, gy, gz, bx, by, bz,
                                        shared, stream or 0, params, extra)[0]

        def current(slot):
            self.calls.append(("cuCtxGetCurrent", ("compiled",)))
            slot[0] = self.current
            return SUCCESS
        if flags != 1:
            return INVALID_VALUE, None, None
        made = {b"cuLaunchKernel": self._LAUNCH(launch),
                b"cuCtxGetCurrent": self._CURRENT(current)}[symbol]
        self.callbacks.append(made)
        return SUCCESS, ctypes.cast(made, ctypes.c_void_p).value, 0


    def _cuLaunchCooperativeKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream,
                                   params):
        self.cooperative_launches.append(function.name)
        return self._cuLaunchKernel(function, gx, gy, gz, bx, by, bz, shared, stream, params,
                                    None)

    def _cuOccupancyMaxActiveBlocksPerMultiprocessor(self, function, threads, shared):
        """As a device with 2048 threads per SM whose kernels use few registers."""
        return SUCCESS, 2048 // threads

    def _cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, params,
                        extra):
        static = self._cuFuncGetAttribute("SHARED_SIZE_BYTES", function)[1]
        if static + shared > self.attributes["MAX_SHARED_MEMORY_PER_BLOCK"] and \
                shared > getattr(function, "dynamic_shared", 0):
            return (INVALID_VALUE,)   # more than 48 KiB without the function's opt-in
        pointers = (ctypes.c_void_p * len(function.sizes)).from_address(params)
        values = [ctypes.string_at(p, n) for p, n in zip(pointers, function.sizes)]
        self.launches.append((function.name, (gx, gy, gz), (bx, by, bz), shared, stream,
                              values))
        if function.name == "copy_strided":
            self._run_strided_copy(values)
        return (SUCCESS,)

    def _run_strided_copy(self, values):
        """The one kernel this double runs, cuda/stridedcopy.py's (`dst[i] = src[i]` over
        every index), from its parameters as the kernel reads them: two arrays (meminfo,
        parent, size, itemsize, data, shape, strides), then the element count."""
        words = [int.from_bytes(v, "little", signed=True) for v in values]
        ndim = (len(words) - 11) // 4
        dst, src = words[:5 + 2 * ndim], words[5 + 2 * ndim:-1]
        itemsize, shape = dst[3], dst[5:5 + ndim]
        for index in np.ndindex(*shape):
            read, at = self._find(src[4] + sum(map(operator.mul, index, src[5 + ndim:])),
                                  itemsize)
            item = bytes(read[at:at + itemsize])
            written, at = self._find(dst[4] + sum(map(operator.mul, index, dst[5 + ndim:])),
                                     itemsize)
            written[at:at + itemsize] = item
