"""`numba.core.runtime.rtsys.get_allocation_stats()`, the NRT statistics Numba documents
for leak checks, read from kiln's runtime counters (kiln.runtime.nrt.allocation_stats):
kiln counts meminfo allocations, so `alloc` and `mi_alloc` are the same count."""
from collections import namedtuple

_Stats = namedtuple("_nrt_mi_stats", "alloc free mi_alloc mi_free")


class _RtSys:
    def get_allocation_stats(self):
        from kiln.runtime.nrt import allocation_stats
        stats = allocation_stats()
        return _Stats(stats.allocations, stats.frees, stats.allocations, stats.frees)


rtsys = _RtSys()
