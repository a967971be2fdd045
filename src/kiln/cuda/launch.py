"""Launch configurations: `kernel[blocks, threads]`, `[blocks, threads, stream]` and
`[blocks, threads, stream, shared_bytes]`, checked against the device's limits so that a
bad launch fails here, naming the kernel, rather than deep in a driver."""
from __future__ import annotations

import operator
from dataclasses import dataclass

from . import backend


@dataclass(frozen=True)
class LaunchConfig:
    griddim: tuple   # (x, y, z)
    blockdim: tuple  # (x, y, z)
    stream: object
    sharedmem: int

    @property
    def threads_per_block(self) -> int:
        x, y, z = self.blockdim
        return x * y * z

    @property
    def blocks(self) -> int:
        x, y, z = self.griddim
        return x * y * z


def _dim3(kernel_name, what, value) -> tuple:
    items = value if isinstance(value, (tuple, list)) else (value,)
    numba = {"grid": "griddim", "block": "blockdim"}[what]   # Numba's words, for its users
    try:
        dims = tuple(operator.index(v) for v in items)
    except TypeError:
        raise TypeError(f"kernel '{kernel_name}': the {what} must be an int or a tuple of 1 to "
                        f"3 ints, not {value!r} ({numba} must be a sequence of integers, got "
                        f"{list(items)})") from None
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"kernel '{kernel_name}': the {what} has {len(dims)} dimensions; "
                         f"CUDA grids and blocks have 1 to 3 ({numba} must be a sequence of "
                         f"1, 2 or 3 integers, got {list(dims)})")
    if any(d < 1 for d in dims):
        raise ValueError(f"kernel '{kernel_name}': the {what} {value!r} must be positive in "
                         "every dimension")
    return dims + (1,) * (3 - len(dims))


def _check_limits(kernel_name, config, device):
    for axis, (g, b) in enumerate(zip(config.griddim, config.blockdim)):
        name = "XYZ"[axis]
        block_max = getattr(device, f"MAX_BLOCK_DIM_{name}")
        grid_max = getattr(device, f"MAX_GRID_DIM_{name}")
        if b > block_max:
            raise ValueError(f"kernel '{kernel_name}': {b} threads along {name.lower()} exceed "
                             f"the device's limit of {block_max}")
        if g > grid_max:
            raise ValueError(f"kernel '{kernel_name}': {g} blocks along {name.lower()} exceed "
                             f"the device's limit of {grid_max}")
    limit = device.MAX_THREADS_PER_BLOCK
    if config.threads_per_block > limit:
        raise ValueError(f"kernel '{kernel_name}': {config.threads_per_block} threads per "
                         f"block exceed the device's limit of {limit} "
                         f"(block shape {config.blockdim})")
    shared_limit = device.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    if config.sharedmem > shared_limit:
        raise ValueError(f"kernel '{kernel_name}': {config.sharedmem} bytes of dynamic shared "
                         f"memory exceed the device's {shared_limit} per block")


def configure(kernel_name, griddim, blockdim, stream=0, sharedmem=0) -> LaunchConfig:
    """The checked launch configuration (the device must be available)."""
    device = backend.active.context().device
    if stream is None:
        stream = 0
    if stream != 0 and not backend.active.is_stream(stream):
        raise TypeError(f"kernel '{kernel_name}': the stream must be 0 or a stream from "
                        f"cuda.stream(), not {stream!r}")
    try:
        sharedmem = operator.index(sharedmem)
    except TypeError:
        raise TypeError(f"kernel '{kernel_name}': the shared memory size must be an int "
                        f"(bytes), not {sharedmem!r}") from None
    if sharedmem < 0:
        raise ValueError(f"kernel '{kernel_name}': the shared memory size must be >= 0")
    config = LaunchConfig(_dim3(kernel_name, "grid", griddim),
                          _dim3(kernel_name, "block", blockdim), stream, sharedmem)
    _check_limits(kernel_name, config, device)
    return config


def parse(kernel_name, key) -> LaunchConfig:
    """The configuration from `kernel[key]`."""
    if not isinstance(key, tuple) or not 2 <= len(key) <= 4:
        raise ValueError(f"kernel '{kernel_name}': a launch configuration is "
                         f"[blocks, threads] or [blocks, threads, stream, shared_bytes], "
                         f"not [{key!r}]")
    return configure(kernel_name, *key)


def threads_of(blockdim) -> int:
    """The number of threads in a block of `blockdim` (an int or a tuple of 1 to 3)."""
    if isinstance(blockdim, int):
        return blockdim
    threads = 1
    for extent in blockdim:
        threads *= extent
    return threads
