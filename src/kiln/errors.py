"""Errors raised while compiling, each pointing at the user's source line with a caret."""
from __future__ import annotations

import linecache
import os
from dataclasses import dataclass

_KILN_SOURCE = os.path.dirname(os.path.abspath(__file__)) + os.sep


@dataclass(frozen=True)
class Location:
    """Where a construct is in the user's file (1-based line, 0-based column)."""

    function: str
    filename: str
    line: int
    col: int = 0
    end_col: int | None = None

    @property
    def in_kiln(self) -> bool:
        """Whether this is kiln's own library code (its files, or code it generated)."""
        return self.filename.startswith((_KILN_SOURCE, "<kiln"))

    def render(self) -> str:
        text = linecache.getline(self.filename, self.line).rstrip("\n")
        head = f'File "{self.filename}", line {self.line}, in {self.function}'
        if not text:
            return head
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        start = max(self.col - indent, 0)
        width = 1
        if self.end_col is not None and self.end_col > self.col:
            width = min(self.end_col - self.col, len(stripped) - start) or 1
        return f"{head}\n    {stripped}\n    {' ' * start}{'^' * width}"


class KilnError(Exception):
    """Base of kiln's compile-time errors; the message ends with the source location."""

    def __init__(self, message: str, loc: Location | None = None):
        self.msg = message
        self.loc = loc
        self.notes = []
        super().__init__(self._format())

    def _format(self):
        text = self.msg if self.loc is None else f"{self.msg}\n\n{self.loc.render()}"
        return "\n".join([text] + self.notes)

    def add_context(self, note: str):
        """Say what was being compiled (the outermost function and its argument types)."""
        self.notes.append(note)
        self.args = (self._format(),)
        return self

    def with_location(self, loc: Location, over_library=False):
        """Attach a location if the error has none yet (one raised deep in the library);
        `over_library`: also in place of one in kiln's own code, the user's line saying
        more (code generation refusing what a library function needs, in device code)."""
        if self.loc is None or (over_library and self.loc.in_kiln and not loc.in_kiln):
            self.loc = loc
            self.args = (self._format(),)
        return self


class TypingError(KilnError):
    """The function uses a value in a way its types do not allow."""


class ArgumentTypingError(TypingError, TypeError):
    """A compiled function was called from Python with an argument compiled code cannot
    take: Numba's TypingError, and Python's TypeError for a wrong argument, so that code
    catching either catches it."""


class UnsupportedError(KilnError):
    """The function uses Python that kiln does not compile."""


class UntypedGlobalError(TypingError, UnsupportedError):
    """A global or free name that compiled code cannot use (a plain Python function, an
    object with no kiln type): Numba's "Untyped global name" TypingError, and unsupported
    Python to kiln."""


class SourceUnavailableError(KilnError):
    """kiln compiles from source; the function has none it can read."""


class CompilerError(KilnError):
    """The compiler gave up on the function (Numba's CompilerError): typing asked again for
    arguments as compile-time values that it already had ("Repeated literal typing
    request"), or an internal failure (LoweringError)."""


class LoweringError(CompilerError):
    """An internal failure while generating code: a kiln bug, reported with the user's line."""


class KilnWarning(Warning):
    """Base of the warnings kiln gives."""


class PerformanceWarning(KilnWarning):
    """The code runs correctly but slower than it could (e.g. no OpenMP runtime found)."""


# Numba's names. kiln raises TypingError where Numba raises one of its TypingError
# subclasses, so each of those names catches kiln's TypingError; likewise for the other
# kinds of failure, each Numba name is the kiln class raised where Numba raises it.
NumbaError = KilnError
NumbaWarning = KilnWarning
NumbaPerformanceWarning = PerformanceWarning
NumbaValueError = NumbaTypeError = NumbaAttributeError = NumbaIndexError = TypingError
NumbaKeyError = NumbaNotImplementedError = NumbaAssertionError = TypingError
UntypedAttributeError = LiteralTypingError = RequireLiteralValue = TypingError
InternalError = LoweringError
UnsupportedBytecodeError = UnsupportedError    # what kiln does not compile
ByteCodeSupportError = SourceUnavailableError  # Numba: the function's code cannot be read


# Numba's warning classes, in Numba's hierarchy, so that code filtering them
# (`warnings.simplefilter("ignore", NumbaDeprecationWarning)`) runs unchanged.
class NumbaDeprecationWarning(KilnWarning, DeprecationWarning):
    """A feature that is going away."""


class NumbaPendingDeprecationWarning(KilnWarning, PendingDeprecationWarning):
    """A feature that will be deprecated."""


class NumbaParallelSafetyWarning(KilnWarning):
    """A parallel loop that may not be safe to run in parallel."""


class NumbaTypeSafetyWarning(KilnWarning):
    """A conversion that may lose information."""


class NumbaExperimentalFeatureWarning(KilnWarning):
    """A feature that is experimental."""


class NumbaInvalidConfigWarning(KilnWarning):
    """A setting that is not valid."""


class NumbaPedanticWarning(KilnWarning):
    """Pedantic advice."""


class NumbaIRAssumptionWarning(NumbaPedanticWarning):
    """Numba's: an assumption about its IR; kiln never warns it."""


class NumbaDebugInfoWarning(KilnWarning):
    """Debug information that could not be made."""


class NumbaSystemWarning(KilnWarning):
    """Something about the system kiln runs on."""


def deprecated(arg):
    """Numba's decorator marking a function deprecated: calling it warns
    DeprecationWarning. `@deprecated` or `@deprecated("new_name")`."""
    import functools
    import warnings
    subst = arg if isinstance(arg, str) else None

    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            msg = f'Call to deprecated function "{func.__name__}".'
            if subst:
                msg += f'\n Use "{subst}" instead.'
            warnings.warn(msg, category=DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)
        return wrapper

    return decorator if subst else decorator(arg)


# the names `from numba.core.errors import *` gives (also kiln's top-level names)
NUMBA_NAMES = ["ByteCodeSupportError", "CompilerError", "InternalError",
               "LiteralTypingError", "LoweringError", "NumbaAssertionError",
               "NumbaAttributeError", "NumbaDebugInfoWarning", "NumbaDeprecationWarning",
               "NumbaError", "NumbaExperimentalFeatureWarning", "NumbaIRAssumptionWarning",
               "NumbaIndexError", "NumbaInvalidConfigWarning", "NumbaKeyError",
               "NumbaNotImplementedError", "NumbaParallelSafetyWarning",
               "NumbaPedanticWarning", "NumbaPendingDeprecationWarning",
               "NumbaPerformanceWarning", "NumbaSystemWarning", "NumbaTypeError",
               "NumbaTypeSafetyWarning", "NumbaValueError", "NumbaWarning",
               "RequireLiteralValue", "TypingError", "UnsupportedBytecodeError",
               "UnsupportedError", "UntypedAttributeError"]


def __getattr__(name):
    if name.startswith("Numba") or name in _NUMBA_INTERNAL:
        raise AttributeError(f"kiln.errors has no {name}: kiln neither raises nor warns it "
                             "(its errors are KilnError's subclasses: TypingError, "
                             "UnsupportedError, LoweringError)")
    raise AttributeError(f"module 'kiln.errors' has no attribute {name!r}")


# Numba's errors about its own machinery (its IR, rewrites, parfors, targets)
_NUMBA_INTERNAL = {"IRError", "RedefinedError", "NotDefinedError", "VerificationError",
                   "DeprecationError", "UnsupportedParforsError", "ForbiddenConstruct",
                   "ConstantInferenceError", "InternalTargetMismatchError",
                   "NonexistentTargetError", "ForceLiteralArg", "UnsupportedRewriteError"}
