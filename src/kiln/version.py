"""kiln's version, in a module of its own so that the compiler's caches (which key on it)
read it without importing the public API above them."""
__version__ = "0.1.0"
