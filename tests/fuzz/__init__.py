"""A differential fuzzer (issue 14): seeded random programs run under CPython/NumPy and
under kiln in child processes, compared bit for bit, failures shrunk by a reducer.
`python -m tests.fuzz --count 10000 --seed 1 --jobs 2` is the long mode."""
