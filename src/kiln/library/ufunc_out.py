"""A ufunc's output array, as NumPy takes it: `np.add(a, b, out)`, `np.add(a, b, out=c)`,
`np.clip(a, lo, hi, out=c)`, `a.clip(lo, hi, out)`. The result is written into `out` (the
operands broadcast to its shape, which must hold the result's; the values cast as NumPy's
'same_kind' rule allows) and `out` is returned; `out=None` is the ufunc without one.
np.clip with a bound of None is what NumPy's own np.clip makes of it: np.maximum,
np.minimum, or np.positive of both."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..codegen.array_expressions import Elementwise, as_trees
from ..errors import TypingError
from ..typing.registry import omitted, template
from .fusion import evaluate
from .ufuncs import CLIP, UFUNCS, elementwise_template, resolve_ufunc


def _open_clip(ufunc, args):
    """The ufunc computed and the positions of its operands among `args`."""
    kept = tuple(i for i, a in enumerate(args) if not omitted(a))
    if ufunc is not CLIP or len(kept) == 3 or 0 not in kept:
        return ufunc, tuple(range(len(args)))
    return {1: np.positive, 2: np.maximum if 1 in kept else np.minimum}[len(kept)], kept


def _typer(ufunc, tctx, args, out):
    if out is None and not any(omitted(a) for a in args):
        return None   # the ufunc's own template: its calls fuse with the expression around
    ufunc, kept = _open_clip(ufunc, args)
    operands = tuple(args[i] for i in kept)
    given = args if out is None else args + (out,)

    def chosen(values):
        return [values[i] for i in kept]

    if omitted(out):
        found = elementwise_template(lambda tc, ops: resolve_ufunc(tc, ufunc, ops))(
            tctx, *operands)
        if found is None:
            return None
        sig, codegen = found

        def without_out(context, builder, _, values):
            return codegen(context, builder, sig, chosen(values))
        without_out.new_reference = getattr(codegen, "new_reference", False)
        return sig.return_type(*given), without_out
    if not isinstance(out, t.Array):
        raise TypingError(f"{ufunc.__name__}(): out must be an array, not {out}")
    found = resolve_ufunc(tctx, ufunc, operands)
    if found is None:
        return None
    result, element, loops = found
    if out.readonly:
        raise TypingError(f"{ufunc.__name__}(): out is a read-only array ({out})")
    if getattr(result, "ndim", 0) > out.ndim:
        raise TypingError(f"non-broadcastable output operand: {ufunc.__name__}() gives "
                          f"{result}, out is {out}")
    dtype = result.dtype if isinstance(result, t.Array) else result
    if not np.can_cast(dtype.np_dtype, out.dtype.np_dtype, "same_kind"):
        raise TypingError(f"{ufunc.__name__}(): cannot cast the result from {dtype} to "
                          f"{out.dtype} (NumPy's 'same_kind' rule)")

    def into_out(context, builder, _, values):
        tree = Elementwise(out, element, loops).apply(as_trees(chosen(values), operands))
        return evaluate(context, builder, tree, out=values[-1], out_ty=out)
    return out(*given), into_out


def _with_out(ufunc):
    """The template of `ufunc` given `out`, by position or keyword (the registry binds a
    keyword to the parameter of its name; an operand left out is refused by the ufunc)."""
    if ufunc.nin == 1:
        def typer(tctx, x=None, out=None):
            return _typer(ufunc, tctx, (x,), out)
    elif ufunc.nin == 2:
        def typer(tctx, x1=None, x2=None, out=None):
            return _typer(ufunc, tctx, (x1, x2), out)
    else:
        def typer(tctx, x1=None, x2=None, x3=None, out=None):
            return _typer(ufunc, tctx, (x1, x2, x3), out)
    return typer


for _ufunc in UFUNCS:
    if isinstance(_ufunc, np.ufunc) and _ufunc.nout == 1 and _ufunc.nin <= 3:
        template(_ufunc)(_with_out(_ufunc))
template(np.clip)(_with_out(CLIP))
template(("method", "clip"))(_with_out(CLIP))
