"""kiln's benchmark suite: each kernel written once, timed under kiln, Numba, NumPy and CPython.

Run it with ``python bench/run.py`` (``--quick`` for the small sizes); see docs/performance.md.
"""
