"""`python -m kiln.aot module.py [--name NAME] [--output-dir DIR] [--cpu generic|host]`:
compile the functions that module marks with `kiln.aot.export` into an extension module."""
import argparse
import sys

from . import compile_module
from .build import BuildError


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m kiln.aot",
        description="Compile the functions a module marks with kiln.aot.export into a "
                    "CPython extension module that needs only NumPy at run time.")
    parser.add_argument("module", help="the Python source file (module.py)")
    parser.add_argument("--name", help="the extension's module name (default: the source's)")
    parser.add_argument("-o", "--output-dir", help="where the .so goes (default: beside "
                                                   "the source)")
    parser.add_argument("--cpu", default="generic",
                        help="'generic' (any CPU of this architecture: for a wheel; the "
                             "default), 'host' (this CPU's features) or an LLVM CPU name")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list the compiled signatures")
    args = parser.parse_args(argv)
    try:
        path = compile_module(args.module, name=args.name, output_dir=args.output_dir,
                              cpu=args.cpu, verbose=args.verbose)
    except BuildError as e:
        print(f"kiln.aot: {e}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
