"""A differential fuzzer of kiln's NumPy surface (issue 31), beside tests/fuzz: seeded random
array programs (ufuncs, operators, reductions, creation, casting, views, indexing, writes)
run by CPython/NumPy and by kiln in a child process, compared on dtype, shape, values and
exception class; the same program compiled unfused and with parallel=True must give kiln's
bits again. `python -m tests.fuzz_numpy --seeds 0:2000 --jobs 2` is the long mode."""
