"""`cuda.fp16` compiled for the GPU: typing templates (target "cuda") over the functions of
fp16.py, whose codegen emits LLVM `half` operations (PTX `add.rn.f16`, `fma.rn.f16`, ...).

Arguments convert to float16 first, as the simulator's functions do. What the GPU computes
in half precision directly (+ - * fma neg abs max min, comparisons) is one instruction;
division and math (`hsqrt`, `hexp`, `hsin`, ...) are computed in float32 and rounded to
float16, as the simulator computes them, the float32 math through libdevice."""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..typing.registry import template
from . import fp16
from .nvvm import _call_intrinsic

_HALF, _FLOAT = ir.HalfType(), ir.FloatType()


def _numbers(args):
    return all(isinstance(a, (t.Integer, t.Float, t.Boolean)) for a in args)


def _register(fn, arity, result, emit):
    """Template for `fn` of `arity` numbers, giving `result`; emit(builder, halves)."""
    @template(fn, target="cuda")
    def _typer(tctx, *args):
        if len(args) != arity or not _numbers(args):
            return None

        def codegen(context, builder, sig, llargs):
            return emit(builder, llargs)
        return t.Signature(result, (t.float16,) * arity), codegen


def _binary(name, op):
    _register(getattr(fp16, name), 2, t.float16, lambda b, x: getattr(b, op)(*x))


for _name, _op in (("hadd", "fadd"), ("hsub", "fsub"), ("hmul", "fmul")):
    _binary(_name, _op)

_register(fp16.hneg, 1, t.float16, lambda b, x: b.fneg(x[0]))
_register(fp16.habs, 1, t.float16,
          lambda b, x: _call_intrinsic(b, "llvm.fabs.f16", _HALF, x))
_register(fp16.hfma, 3, t.float16,      # one rounding
          lambda b, x: _call_intrinsic(b, "llvm.fma.f16", _HALF, x))
# NaN loses, as in CUDA's __hmax/__hmin (the simulator's np.fmax/np.fmin)
_register(fp16.hmax, 2, t.float16,
          lambda b, x: _call_intrinsic(b, "llvm.maxnum.f16", _HALF, x))
_register(fp16.hmin, 2, t.float16,
          lambda b, x: _call_intrinsic(b, "llvm.minnum.f16", _HALF, x))

# ordered comparisons: false when either is NaN (CUDA's __heq ... __hne)
for _name, _op in (("heq", "=="), ("hne", "!="), ("hgt", ">"), ("hge", ">="),
                   ("hlt", "<"), ("hle", "<=")):
    _register(getattr(fp16, _name), 2, t.boolean,
              lambda b, x, op=_op: b.fcmp_ordered(op, *x))


def _in_float32(compute):
    """Widen to float32, compute, round back to float16."""
    def emit(builder, halves):
        value = compute(builder, [builder.fpext(h, _FLOAT) for h in halves])
        return builder.fptrunc(value, _HALF)
    return emit


def _math(function):
    """A float32 function by LLVM or C name (ptx.py sends those to libdevice)."""
    return _in_float32(lambda b, x: _call_intrinsic(b, function, _FLOAT, x))


def _one_over(b, value):
    return b.fdiv(ir.Constant(_FLOAT, 1.0), value)


_register(fp16.hdiv, 2, t.float16, _in_float32(lambda b, x: b.fdiv(*x)))
_register(fp16.hrcp, 1, t.float16, _in_float32(lambda b, x: _one_over(b, x[0])))
_register(fp16.hrsqrt, 1, t.float16, _in_float32(
    lambda b, x: _one_over(b, _call_intrinsic(b, "llvm.sqrt.f32", _FLOAT, x))))
for _name, _function in (("hsqrt", "llvm.sqrt.f32"), ("hexp", "llvm.exp.f32"),
                         ("hexp2", "llvm.exp2.f32"), ("hexp10", "exp10f"),
                         ("hlog", "llvm.log.f32"), ("hlog2", "llvm.log2.f32"),
                         ("hlog10", "llvm.log10.f32"), ("hsin", "llvm.sin.f32"),
                         ("hcos", "llvm.cos.f32"), ("hfloor", "llvm.floor.f32"),
                         ("hceil", "llvm.ceil.f32"), ("htrunc", "llvm.trunc.f32"),
                         ("hrint", "llvm.rint.f32")):
    _register(getattr(fp16, _name), 1, t.float16, _math(_function))
