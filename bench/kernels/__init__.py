"""Kernel modules, grouped by topic; importing this package fills `bench.registry.REGISTRY`."""
from bench.kernels import reductions, loops, ufuncs, simulation, gpu  # noqa: F401  (report order)
from bench.registry import REGISTRY

__all__ = ["REGISTRY"]
