"""Kernel modules, grouped by topic; importing this package fills `bench.registry.REGISTRY`."""
from bench.kernels import (  # noqa: F401  (report order)
    reductions, loops, ufuncs, simulation, numpy_style, containers, foreign, gpu)
from bench.registry import REGISTRY

__all__ = ["REGISTRY"]
