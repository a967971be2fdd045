"""Finding a function's source text, also for functions that have no file.

kiln compiles from source. A function from a file is read with `inspect`; one typed with
`python -c`, made by `exec` or `compile` of a string (the interpreter's `compile` audit
event shows kiln the text), made from text registered in `linecache` (IPython does this),
or typed into the REPL is looked for where that text is kept. A text found that way is trusted only
after compiling it gives this very function's code, so a stale text is never compiled.
"""
from __future__ import annotations

import __future__
import ast
import collections
import dis
import inspect
import linecache
import os
import sys
import textwrap
import warnings

from ..errors import SourceUnavailableError

_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag
_HISTORY_LIMIT = 1000   # REPL lines looked at, newest first


def source_lines(pyfunc):
    """(lines, first line number, file name) of the definition of `pyfunc`."""
    code = getattr(pyfunc, "__code__", None)
    if code is not None and not os.path.exists(code.co_filename) \
            and not _find_elsewhere(code):
        raise _unavailable(pyfunc)
    try:
        lines, first = inspect.getsourcelines(pyfunc)
        return lines, first, inspect.getsourcefile(pyfunc) or code.co_filename
    except (OSError, TypeError):
        raise _unavailable(pyfunc) from None


def _unavailable(pyfunc):
    return SourceUnavailableError(
        f"kiln compiles Python source, and the source of {pyfunc.__qualname__!r} is not "
        "available (was it defined with exec() or in an interactive session without "
        "a file?). Define it in a module or notebook cell.")


def _find_elsewhere(code) -> bool:
    """Whether linecache holds (or now holds) the text that defines `code`; inspect and
    error messages read it there."""
    cached = linecache.cache.get(code.co_filename)
    if cached and len(cached) == 4 and _block_defines(cached[2], code):
        return True
    for lines in _candidates(code):
        if _block_defines(lines, code):
            linecache.cache[code.co_filename] = (sum(map(len, lines)), None, lines,
                                                 code.co_filename)
            return True
    return False


_KEPT = {}   # file name -> lines, of the texts kiln itself made or received (keep_source)


def keep_source(filename, lines):
    """Make `lines` the text of `filename` for kiln, for good: linecache holds it for
    inspect and error messages, but anyone may clear linecache (`linecache.clearcache()`),
    so kiln keeps its own copy to put back."""
    _KEPT[filename] = list(lines)
    linecache.cache[filename] = (sum(map(len, lines)), None, list(lines), filename)


def define_generated(filename, source, namespace):
    """Run generated `source` (one `def`) in `namespace` as the file `filename`, its text
    kept for kiln (keep_source); the function it defines."""
    keep_source(filename, source.splitlines(keepends=True))
    exec(compile(source, filename, "exec"), namespace)
    return namespace[source.split()[1].split("(")[0]]


_COMPILED_TEXTS = collections.OrderedDict()   # (name, text) -> lines, newest last
# The newest texts up to this many characters in all: the interpreter compiles many small
# texts of its own (dataclasses, namedtuples), so a count of texts kept would lose a user's
# exec'd function after a few hundred of those.
_COMPILED_TEXTS_BUDGET = 16_000_000
_compiled_chars = 0


def _remember_compiled_text(event, args):
    """An audit hook: keep the texts that `exec`, `eval` and `compile` receive under a name
    that is no file ("<string>" for `exec(text)`), the newest 16 MB, so a function they
    define can be compiled later. A text is used only once it is seen to compile to the
    function's own code (_block_defines)."""
    if event != "compile":
        return
    source, filename = args[0], args[1]
    if not isinstance(filename, str) or not filename.startswith("<"):
        return
    if isinstance(source, bytes):
        try:
            source = source.decode()
        except UnicodeDecodeError:
            return
    global _compiled_chars
    if isinstance(source, str) and len(source) < 100_000:
        try:   # a hook must never make the user's compile fail (threads race here)
            key = (filename, source)
            if key in _COMPILED_TEXTS:
                _COMPILED_TEXTS.move_to_end(key)
            else:
                _COMPILED_TEXTS[key] = source.splitlines(keepends=True)
                _compiled_chars += len(source)
                while _compiled_chars > _COMPILED_TEXTS_BUDGET:
                    (_, oldest), _ = _COMPILED_TEXTS.popitem(last=False)
                    _compiled_chars -= len(oldest)
        except KeyError:
            pass


sys.addaudithook(_remember_compiled_text)


def _candidates(code):
    """Texts that may hold the function, as lists of lines numbered as in its file."""
    if code.co_filename in _KEPT:
        yield _KEPT[code.co_filename]
    for (filename, _), lines in reversed(list(_COMPILED_TEXTS.items())):
        if filename == code.co_filename:
            yield lines
    if code.co_filename == "<string>":
        argv = getattr(sys, "orig_argv", [])
        if "-c" in argv[:-1]:
            yield argv[argv.index("-c") + 1].splitlines(keepends=True)
    elif code.co_filename == "<stdin>":
        yield from _history_texts(code.co_firstlineno)


def _history_texts(firstline):
    """The readline history of a REPL, each line (newest first) taken as the function's
    first line: the REPL numbers each statement from 1, so its number does not say where."""
    try:
        import readline
    except ImportError:
        return
    count = readline.get_current_history_length()
    history = [(readline.get_history_item(i) or "") + "\n"
               for i in range(max(1, count - _HISTORY_LIMIT + 1), count + 1)]
    for start in range(len(history) - 1, -1, -1):
        yield ["\n"] * (firstline - 1) + history[start:]


def _block_defines(lines, code) -> bool:
    """Whether `lines` (numbered as in the function's file) compile to `code`: the whole
    text (the bytecode must then be the same), or else the block at the
    function's first line (the compiler makes other choices for code out of its context:
    a closure's free names become globals, a module's imports are not known)."""
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines):
        return False
    flags = code.co_flags & _FUTURE_FLAGS
    with warnings.catch_warnings():   # Python warned when it compiled the text itself
        warnings.simplefilter("ignore", SyntaxWarning)
        try:
            whole = compile("".join(lines), code.co_filename, "exec", flags=flags,
                            dont_inherit=True)
        except (SyntaxError, ValueError):
            whole = None
    if whole is not None and any(
            same_code(c, code, exact=True) for c in _codes(whole)
            if c.co_name == code.co_name and c.co_firstlineno == code.co_firstlineno):
        return True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        try:
            block = textwrap.dedent("".join(inspect.getblock(lines[start:])))
            alone = compile(block, code.co_filename, "exec", flags=flags, dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
    return any(same_code(c, code, exact=False) for c in _codes(alone)
               if c.co_name == code.co_name and c.co_firstlineno == 1)


def _codes(code):
    for const in code.co_consts:
        if inspect.iscode(const):
            yield const
            yield from _codes(const)


def same_code(a, b, exact) -> bool:
    """Same parameters and bytecode (out of context: the same instructions, with the ways
    of reading a name, calling a method and jumping taken as equal)."""
    if (a.co_argcount, a.co_kwonlyargcount, a.co_posonlyargcount, a.co_varnames) != \
            (b.co_argcount, b.co_kwonlyargcount, b.co_posonlyargcount, b.co_varnames):
        return False
    if exact:
        same = (a.co_code, a.co_names, _const_key(a)) == (b.co_code, b.co_names, _const_key(b))
    else:
        same = _instructions(a) == _instructions(b)
    codes_a = [c for c in a.co_consts if inspect.iscode(c)]
    codes_b = [c for c in b.co_consts if inspect.iscode(c)]
    return same and len(codes_a) == len(codes_b) and all(
        same_code(x, y, exact) for x, y in zip(codes_a, codes_b))


def which_lambda(code, lambdas):
    """Of several `ast.Lambda`s (positioned as in the file), the one compiled to `code`:
    the smallest whose span holds every position of `code`'s instructions (Python 3.11
    and later record them), else the first on its line whose own compilation gives the
    same instructions; None if none does."""
    own = [n for n in lambdas if n.lineno == code.co_firstlineno]
    positions = [p for p in getattr(code, "co_positions", lambda: ())()
                 if None not in p and (p[0], p[2]) != (p[1], p[3])]   # not empty spans

    def holds(node, p):
        return (node.lineno, node.col_offset) <= (p[0], p[2]) and \
            (p[1], p[3]) <= (node.end_lineno, node.end_col_offset)
    if positions:
        spans = [n for n in own if all(holds(n, p) for p in positions)]
        return min(spans, key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset
                                         - n.col_offset), default=None)
    for node in own:
        compiled = compile(ast.Expression(body=_bare(node)), code.co_filename, "eval")
        if any(same_code(c, code, exact=False) for c in _codes(compiled)):
            return node
    return None


def _bare(node):
    """A copy of a lambda node that compiles on its own."""
    copy = ast.fix_missing_locations(ast.Lambda(args=node.args, body=node.body))
    return ast.copy_location(copy, node)


def _const_key(code):
    """Constants compared with their types (1 == 1.0 == True must not match)."""
    return [(type(c), repr(c)) for c in code.co_consts if not inspect.iscode(c)]


_NAME_READS = {"LOAD_DEREF": "LOAD_NAME", "LOAD_GLOBAL": "LOAD_NAME",
               "LOAD_CLASSDEREF": "LOAD_NAME", "LOAD_METHOD": "LOAD_ATTR"}
_CONTEXT_ONLY = {"PUSH_NULL", "COPY_FREE_VARS", "MAKE_CELL", "RESUME", "CACHE", "NOP",
                 "PRECALL"}
_JUMPS = set(dis.hasjrel) | set(dis.hasjabs)


def _instructions(code):
    return [(_NAME_READS.get(i.opname, i.opname),
             None if i.opcode in _JUMPS or inspect.iscode(i.argval)
             else (type(i.argval), repr(i.argval)))
            for i in dis.get_instructions(code) if i.opname not in _CONTEXT_ONLY]


def source_for_pickle(pyfunc):
    """(file name, first line, lines) to send with a pickled dispatcher, or None."""
    try:
        lines, first, _ = source_lines(pyfunc)
    except SourceUnavailableError:
        return None
    return pyfunc.__code__.co_filename, first, lines


def remember_source(source, pyfunc):
    """Make a source sent with a pickled function (`source_for_pickle`) readable here, for
    a process (a Dask worker) that has no copy of the file; cloudpickle renames the code's
    file (`<dynamic-code>`), so the function is pointed back at the name its source has."""
    if source is None:
        return
    filename, first, lines = source
    if not linecache.getlines(filename):
        keep_source(filename, ["\n"] * (first - 1) + list(lines))
    code = getattr(pyfunc, "__code__", None)
    if code is not None and code.co_filename != filename:
        pyfunc.__code__ = code.replace(co_filename=filename)
