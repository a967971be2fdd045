"""kiln: a just-in-time compiler for numeric Python and NumPy, with Numba's API."""


def __getattr__(name):
    # kiln.cuda loads the CUDA stack only when first used.
    if name == "cuda":
        import importlib
        return importlib.import_module("kiln.cuda")
    raise AttributeError(f"module 'kiln' has no attribute {name!r}")
