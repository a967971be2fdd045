"""The statements the generator writes, one function each: `op(g)` returns (text, tag, ulp
bound, kind) or None, where kind says what NumPy's value will be ("array" new, "view" of
another array, "scalar" a NumPy scalar in both NumPy and kiln, "write" no value, "other"
returned only). `g` is the generator (its operand choices and `g.value(text)`, the value of
an expression now). Each rule that keeps something out names its reason: an entry of
docs/differences-numpy.md, or a known bug being fixed elsewhere (issue 31)."""
from __future__ import annotations

import numpy as np

BINOPS = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "==", "!=", "<",
          "<=", ">", ">="]
AUGMENTED = ["+=", "-=", "*=", "/=", "//=", "%=", "&=", "|=", "^=", "<<=", ">>="]
UNARY_EXACT = ["negative", "positive", "absolute", "sign", "square", "floor", "ceil", "trunc",
               "rint", "isnan", "isinf", "isfinite", "signbit", "logical_not", "sqrt", "fabs",
               "conjugate", "spacing", "deg2rad", "rad2deg", "invert", "bitwise_count",
               "isposinf", "isneginf", "reciprocal"]
TRANSCENDENTAL = ["exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan",
                  "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
                  "arctanh", "cbrt", "exp2"]
BINARY_EXACT = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
                "remainder", "mod", "fmod", "maximum", "minimum", "fmax", "fmin",
                "copysign", "hypot", "heaviside", "nextafter", "ldexp", "gcd", "lcm",
                "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
                "logical_and", "logical_or", "logical_xor", "equal", "not_equal", "less",
                "less_equal", "greater", "greater_equal", "power", "float_power"]
BINARY_INEXACT = ["arctan2", "logaddexp", "logaddexp2"]
REDUCTIONS = ["sum", "prod", "min", "max", "mean", "any", "all", "argmin", "argmax", "std",
              "var", "cumsum", "cumprod"]
NAN_REDUCTIONS = ["nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanargmin",
                  "nanargmax", "nancumsum", "nancumprod", "nanstd", "nanvar", "ptp",
                  "count_nonzero"]
ULPS = 4            # transcendental functions: NumPy's SIMD loops against the C library's
SPREAD_ULPS = 16    # std and var: a sum of squares, a division and a square root


def _kind(value):
    return np.asarray(value).dtype.kind


def _paren(text):
    return text if text.isidentifier() else f"({text})"


def _inexact(g, text):
    """The ulp bound of a transcendental result (float16 is rounded once from float32)."""
    return 2 if np.asarray(g.value(text)).dtype == np.float16 else ULPS


def _castable(value, dtype):
    """Whether NumPy's cast of `value` to `dtype` is specified: a float or complex cast to an
    integer must be finite and in range (docs/differences-numpy.md, "Casting NaN, inf or an
    out-of-range float to an integer")."""
    source, target = np.asarray(value), np.dtype(dtype)
    if source.dtype.kind not in "fc" or target.kind not in "iu":
        return True
    real = np.real(source).astype(np.float64)
    if not np.all(np.isfinite(real)):
        return False
    info = np.iinfo(target)
    return bool(np.all((np.trunc(real) >= info.min) & (np.trunc(real) <= info.max)))


def no_known_bug(g, op, left, right):
    """Cases of the bugs being fixed elsewhere (issue 31): `~` of bools, negative shift
    counts, complex division by zero."""
    lv, rv = g.value(left), g.value(right) if right is not None else None
    if op in ("~", "invert") and _kind(lv) == "b":
        return False
    if op in ("<<", ">>", "<<=", ">>=", "left_shift", "right_shift") and \
            _kind(rv) in "iuf" and np.any(np.asarray(rv) < 0):
        return False
    if op in ("/", "//", "%", "/=", "//=", "%=", "divide", "true_divide", "floor_divide",
              "remainder", "mod") and "c" in (_kind(lv), _kind(rv)) and np.any(np.asarray(rv) == 0):
        return False
    return True


def binop(g):
    x, y = g.array(), g.operand()
    if x is None:
        return None
    op = g.rng.choice(BINOPS)
    if g.rng.random() < 0.3:
        x, y = y, x
    if not no_known_bug(g, op, x, y):
        return None
    text = f"{_paren(x)} {op} {_paren(y)}"
    return text, f"binop {op}", 0, "array"


def unary(g):
    x = g.array()
    if x is None:
        return None
    op = g.rng.choice(["-", "+", "abs", "~"])
    if not no_known_bug(g, op, x, None):
        return None
    # NumPy's complex64 abs takes hypotf for negative strides, its SIMD formula otherwise
    # (differences-numpy.md); kiln always the formula
    ulps = 1 if op == "abs" and np.asarray(g.value(x)).dtype == np.complex64 else 0
    return (f"abs({x})" if op == "abs" else f"{op}{x}"), f"unary {op}", ulps, "array"


def ufunc1(g):
    x = g.array()
    if x is None:
        return None
    name = g.rng.choice(UNARY_EXACT)
    if not no_known_bug(g, name, x, None):
        return None
    text = f"np.{name}({x})"
    ulps = ULPS if name == "sqrt" and _kind(g.value(x)) == "c" else 0   # csqrt: C's
    if name == "absolute" and np.asarray(g.value(x)).dtype == np.complex64:
        ulps = 1   # hypotf for negative strides in NumPy (see unary)
    return text, f"ufunc {name} {_kind(g.value(x))}", ulps, "array"


def transcendental(g):
    x = g.array(lambda v: v.dtype.kind != "c")
    if x is None:
        return None
    name = g.rng.choice(TRANSCENDENTAL)
    text = f"np.{name}({x})"
    return text, f"ufunc {name}", _inexact(g, text), "array"


def ufunc2(g):
    x, y = g.array(), g.operand()
    if x is None:
        return None
    if g.rng.random() < 0.3:
        x, y = y, x
    if g.rng.random() < 0.1:
        name = g.rng.choice(BINARY_INEXACT)
        if "c" in (_kind(g.value(x)), _kind(g.value(y))):
            return None
        text = f"np.{name}({x}, {y})"
        return text, f"ufunc {name}", _inexact(g, text), "array"
    name = g.rng.choice(BINARY_EXACT)
    if not no_known_bug(g, name, x, y):
        return None
    return f"np.{name}({x}, {y})", f"ufunc {name}", 0, "array"


def two_outputs(g):
    x = g.array()
    if x is None:
        return None
    name, index = g.rng.choice(["modf", "frexp", "divmod"]), g.rng.randrange(2)
    if name == "divmod":
        y = g.operand()
        if not no_known_bug(g, "//", x, y):
            return None
        return f"np.divmod({x}, {y})[{index}]", f"ufunc divmod", 0, "array"
    return f"np.{name}({x})[{index}]", f"ufunc {name}", 0, "array"


def _axis(g, ndim):
    if ndim == 0 or g.rng.random() < 0.4:
        return None
    if g.rng.random() < 0.05:
        return ndim        # out of range: AxisError
    return g.rng.randrange(-ndim, ndim)


def reduction(g):
    x = g.array()
    if x is not None and g.rng.random() < 0.3:
        nested = g.expression()
        if nested is not None and isinstance(g.value(nested), np.ndarray):
            x = nested
    if x is None:
        return None
    value = g.value(x)
    rng = g.rng
    x = _paren(x)
    name = rng.choice(REDUCTIONS) if rng.random() < 0.75 else rng.choice(NAN_REDUCTIONS)
    nan_form = name.startswith("nan") or name in ("ptp", "count_nonzero")
    axis = _axis(g, value.ndim)
    args = []
    if axis is not None:
        args.append(f"axis={axis}")
    if axis is not None and rng.random() < 0.3 and "cum" not in name and "arg" not in name \
            and name != "count_nonzero":
        args.append("keepdims=True")
    if name in ("sum", "prod", "mean", "cumsum", "cumprod") and rng.random() < 0.2:
        args.append("dtype=np." + rng.choice(["int64", "float64", "int32", "float32",
                                              "uint8", "complex128"]))
    extra = ", ".join(args)
    if nan_form or rng.random() < 0.5:
        text = f"np.{name}({x}{', ' if extra else ''}{extra})"
    else:
        text = f"{x}.{name}({extra})"
    spread = name in ("std", "var", "nanstd", "nanvar")
    ulps = SPREAD_ULPS if spread else 0
    kind = "scalar" if axis is None and "cum" not in name else "array"
    return text, f"reduce {name} {bool(axis is not None)} {'keepdims' in extra} " \
                 f"{'dtype' in extra}", ulps, kind


def _shape_text(g):
    rng = g.rng
    r = rng.random()
    x = g.array()
    if r < 0.3 and x is not None:
        return f"{x}.shape"
    if r < 0.5:
        return str(rng.choice([0, 1, 2, 3, 5]))
    return str(tuple(rng.choice([0, 1, 2, 3, 4]) for _ in range(rng.choice([1, 2, 3]))))


def _dtype_text(g):
    return "np." + g.rng.choice(["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                 "uint32", "uint64", "float16", "float32", "float64",
                                 "complex64", "complex128"])


def creation(g):
    rng = g.rng
    form = rng.choice(["zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "arange",
                       "linspace", "eye", "identity", "array", "asarray", "copy", "list"])
    dtype = f", dtype={_dtype_text(g)}" if rng.random() < 0.5 else ""
    kind = "array"
    if form in ("zeros", "ones"):
        text = f"np.{form}({_shape_text(g)}{dtype})"
    elif form == "full":
        fill = g.scalar()
        if dtype and not _castable(g.value(fill), dtype[len(", dtype=np."):]):
            return None
        text = f"np.full({_shape_text(g)}, {fill}{dtype})"
    elif form in ("zeros_like", "ones_like", "full_like", "array", "asarray", "copy"):
        x = g.array()
        if x is None:
            return None
        fill = f", {g.scalar()}" if form == "full_like" else ""
        if fill and not _castable(g.value(fill[2:]), dtype[len(", dtype=np."):] if dtype
                                  else g.value(x).dtype):
            return None
        if form == "copy":
            dtype = ""
        if form in ("array", "asarray") and dtype and \
                not _castable(g.value(x), dtype[len(", dtype=np."):]):
            return None
        if form == "asarray" and not dtype:
            kind = "view"
        text = f"np.{form}({x}{fill}{dtype})"
        if form == "copy" and rng.random() < 0.5:
            text = f"{x}.copy()"
    elif form == "arange":
        start, stop = rng.choice([0, 1, -3, 2]), rng.choice([0, 4, 7, -2, 5])
        step = rng.choice(["", ", 1", ", 2", ", -1", ", 3"])
        first = rng.choice([f"{stop}", f"{start}, {stop}{step}", f"{start}.5, {stop}{step}"])
        text = f"np.arange({first}{dtype})"
    elif form == "linspace":
        text = f"np.linspace({rng.choice([0, 1, -2.5, 0.1])}, {rng.choice([1, 5, 10, 0.3])}, " \
               f"{rng.choice([0, 1, 2, 5, 7])})"
    elif form == "eye":
        text = f"np.eye({rng.choice([0, 1, 3])}{dtype})"
    elif form == "identity":
        text = f"np.identity({rng.choice([1, 2, 4])}{dtype})"
    else:
        items = [g.rng.choice(["1", "2", "-3", "0.5", "True", "7", "2.5", "0"])
                 for _ in range(rng.randrange(1, 5))]
        text = f"np.array([{', '.join(items)}]{dtype})"
    return text, f"create {form} {bool(dtype)}", 0, kind


def astype(g):
    x = g.array()
    if x is None:
        return None
    dtype = _dtype_text(g)
    if not _castable(g.value(x), dtype[3:]):
        return None
    if np.dtype(dtype[3:]).kind not in "c" and _kind(g.value(x)) == "c":
        return None     # complex to real: NumPy warns and drops the imaginary part; later
    return f"{x}.astype({dtype})", f"astype {_kind(g.value(x))}{np.dtype(dtype[3:]).kind}", \
        0, "array"


def view(g):
    x = g.array()
    if x is None:
        return None
    value = g.value(x)
    rng = g.rng
    ndim = value.ndim
    forms = ["{x}.T", "{x}.transpose()", "np.transpose({x})", "{x}.ravel()", "np.ravel({x})",
             "{x}[None]", "{x}.reshape(-1)", "{x}.real", "{x}.imag", "np.flip({x})",
             "{x}.reshape({s})"]
    if ndim >= 1:
        forms += ["{x}[::-1]", "{x}[1:]", "{x}[::2]", "{x}[-2:]", "{x}[1:-1]", "{x}[:, None]",
                  "{x}[..., ::-1]", "{x}[{i}]", "{x}[::-2]", "{x}[{i}:]"]
    if ndim >= 2:
        forms += ["{x}[:, {i}]", "{x}[1:, ::-1]", "{x}[..., 0]"]
    form = rng.choice(forms)
    if "{i}" in form:
        n = value.shape[0] if "[:, " not in form else value.shape[1]
        i = rng.randrange(-n, n) if n and rng.random() < 0.95 else n
        form = form.replace("{i}", str(i))
    if "{s}" in form:
        size = value.size
        divisors = [d for d in range(1, size + 1) if size % d == 0] or [0]
        d = rng.choice(divisors)
        form = form.replace("{s}", rng.choice([f"({d}, -1)", f"(-1, {d})", f"{size}",
                                               f"({d}, {size // d if d else 0})"]))
    text = form.replace("{x}", x)
    if ndim == 1 and "[{i}]" in form:
        return None
    kind = "view"
    if ".real" in text and _kind(value) not in "c":
        kind = "other"      # NumPy: the array itself
    return text, f"view {form}", 0, kind


def read(g):
    x = g.array(lambda v: v.ndim >= 1)
    if x is None:
        return None
    value = g.value(x)
    rng = g.rng
    n = value.shape[0]
    r = rng.random()
    if r < 0.25:
        index = ", ".join(str(rng.randrange(-d, d) if d and rng.random() < 0.95 else d)
                          for d in value.shape)
        return f"{x}[{index}]", "read item", 0, "scalar"
    if r < 0.5:
        mask = g.array(lambda v: v.dtype == np.bool_ and v.shape == value.shape)
        if mask is None or rng.random() < 0.6:
            mask = f"{x} > {g.scalar()}"
        return f"{x}[{mask}]", "read mask", 0, "array"
    if r < 0.8:
        count = rng.randrange(0, 5)
        items = [rng.randrange(-n, n) if n and rng.random() < 0.97 else n for _ in range(count)]
        return f"{x}[np.array({items}, dtype=np.int64)]", "read fancy", 0, "array"
    index = g.array(lambda v: v.dtype.kind in "iu" and v.ndim == 1 and v.size and
                    v.min() >= -n and v.max() < n)
    if index is None:
        return None
    return f"{x}[{index}]", "read fancy var", 0, "array"


def write(g):
    target = g.array(writable=True)
    if target is None:
        return None
    tv = g.value(target)
    rng = g.rng
    r = rng.random()
    value = g.operand() if r < 0.4 else g.scalar()
    if not _castable(g.value(value), tv.dtype) or \
            (_kind(g.value(value)) == "c" and tv.dtype.kind != "c"):
        return None     # complex into a real array: NumPy drops the imaginary part
    if r < 0.2 or tv.ndim == 0:
        where = "..."
    elif r < 0.4:
        n = tv.shape[0]
        where = rng.choice([f"{rng.randrange(-n, n) if n else 0}", "1:", "::2", ":-1", "::-1"])
    elif r < 0.6:
        where = f"{target} > {g.scalar()}"
        if _kind(tv) == "c":
            return None
    elif r < 0.8:
        n = tv.shape[0]
        items = [rng.randrange(-n, n) for _ in range(rng.randrange(1, 4))] if n else []
        where = f"np.array({items}, dtype=np.int64)"
    else:
        return f"{target}.fill({value})", "write fill", 0, "write"
    return f"{target}[{where}] = {value}", f"write {where[:6]}", 0, "write"


def inplace(g):
    target = g.array(writable=True)
    if target is None:
        return None
    other = g.operand()
    op = g.rng.choice(AUGMENTED)
    if not no_known_bug(g, op, target, other):
        return None
    return f"{target} {op} {other}", f"inplace {op}", 0, "write"


def _signed_zeros(value):
    """Whether both 0.0 and -0.0 are in `value`: sorting orders such equal values as its
    algorithm happens to (docs/differences-numpy.md, "Sorting equal values")."""
    value = np.asarray(value)
    if value.dtype.kind not in "fc":
        return False
    parts = np.concatenate([np.real(value).ravel(), np.imag(value).ravel()])
    zeros = parts[parts == 0]
    return bool(zeros.size) and bool(np.signbit(zeros).any()) and not np.signbit(zeros).all()


def selection(g):
    rng = g.rng
    x = g.array()
    if x is None:
        return None
    form = rng.choice(["where", "where", "clip", "clipm", "sort", "argsort", "unique",
                       "cumsum", "diff", "nonzero", "argwhere", "count_nonzero", "sortw"])
    if form == "where":
        cond = g.array(lambda v: v.dtype == np.bool_) if rng.random() < 0.5 else None
        cond = cond or f"{x} > {g.scalar()}"
        return f"np.where({cond}, {g.operand()}, {g.operand()})", "where", 0, "array"
    if form in ("clip", "clipm"):
        low, high = g.operand(), g.operand()
        if "c" in (_kind(g.value(x)), _kind(g.value(low)), _kind(g.value(high))):
            return None
        try:
            size = np.broadcast(g.value(x), g.value(low), g.value(high)).size
        except ValueError:   # NumPy raises: a statement that raises, or rejected
            size = 0
        if any(isinstance(b, np.ndarray) and b.ndim and b.size < size
               for b in (g.value(low), g.value(high))):
            return None  # differences-numpy.md, "np.clip's sign of zero with bounds broadcast"
        text = f"np.clip({x}, {low}, {high})" if form == "clip" else f"{x}.clip({low}, {high})"
        return text, f"{form}", 0, "array"
    if form == "argsort":
        value = g.value(x)
        if value.ndim == 0:
            return None
        rows = value.reshape(-1, value.shape[-1]) if value.size else value.reshape(0, 0)
        if any(len(np.unique(row)) != len(row) for row in rows):
            return None    # ties (differences-numpy.md, "Sorting equal values")
        return f"np.argsort({x})", "argsort", 0, "array"
    if form == "sortw":
        target = g.array(writable=True)
        if target is None or _signed_zeros(g.value(target)):
            return None
        return f"{target}.sort()", "sort method", 0, "write"
    if form in ("sort", "unique") and _signed_zeros(g.value(x)):
        return None
    if form == "sort":
        return f"np.sort({x})", "sort", 0, "array"
    if form == "unique":
        return f"np.unique({x})", "unique", 0, "array"
    if form == "cumsum":
        return f"np.cumsum({x})", "cumsum flat", 0, "array"
    if form == "diff":
        return f"np.diff({x})", "diff", 0, "array"
    if form == "nonzero":
        return f"np.nonzero({x})[0]", "nonzero", 0, "array"
    if form == "argwhere":
        return f"np.argwhere({x})", "argwhere", 0, "array"
    return f"np.count_nonzero({x})", "count_nonzero", 0, "other"


def joining(g):
    rng = g.rng
    x, y = g.array(), g.array()
    if x is None:
        return None
    form = rng.choice(["concatenate", "concatenate_axis", "stack", "hstack", "vstack",
                       "repeat", "tile", "roll", "outer", "dot", "isclose", "array_equal",
                       "searchsorted", "bincount"])
    if form == "concatenate":
        return f"np.concatenate(({x}, {y}))", form, 0, "array"
    if form == "concatenate_axis":
        return f"np.concatenate(({x}, {y}), axis={rng.choice([0, 1, -1])})", form, 0, "array"
    if form in ("stack", "hstack", "vstack"):
        return f"np.{form}(({x}, {y}))", form, 0, "array"
    if form == "repeat":
        return f"np.repeat({x}, {rng.choice([0, 1, 2, 3])})", form, 0, "array"
    if form == "tile":
        return f"np.tile({x}, {rng.choice([1, 2, 3])})", form, 0, "array"
    if form == "roll":
        return f"np.roll({x}, {rng.choice([-1, 0, 1, 2, 7])})", form, 0, "array"
    if form == "outer":
        return f"np.outer({x}, {y})", form, 0, "array"
    if form == "dot":
        exact = all(_kind(g.value(v)) in "biu" for v in (x, y))
        return f"np.dot({x}, {y})", form, 0 if exact else ULPS, "other"
    if form == "isclose":
        return f"np.isclose({x}, {y})", form, 0, "array"
    if form == "array_equal":
        return f"np.array_equal({x}, {y})", form, 0, "other"
    if form == "searchsorted":
        sorted_ = g.array(lambda v: v.ndim == 1)
        if sorted_ is None:
            return None
        return f"np.searchsorted(np.sort({sorted_}), {x})", form, 0, "array"
    # NumPy 2.4 corrupts its heap counting 2**63 - 1 (its length wraps): left out
    b = g.array(lambda v: v.ndim == 1 and v.dtype.kind in "iu" and
                (v.size == 0 or (v.min() >= 0 and v.max() < 2 ** 62)))
    return (f"np.bincount({b})", form, 0, "array") if b else None


def query(g):
    x = g.array()
    if x is None:
        return None
    form = g.rng.choice(["{x}.shape", "{x}.size", "{x}.ndim", "len({x})", "{x}.item()"])
    if form == "{x}.item()" and g.value(x).size != 1:
        return None
    return form.replace("{x}", x), f"query {form}", 0, "other"


OPS = [(binop, 14), (unary, 3), (ufunc1, 8), (transcendental, 3), (ufunc2, 8),
       (two_outputs, 2), (reduction, 10), (creation, 6), (astype, 5), (view, 7), (read, 7),
       (write, 9), (inplace, 6), (selection, 7), (joining, 4), (query, 1)]
