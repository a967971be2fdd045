"""Linear algebra in compiled code through the BLAS and LAPACK of runtime/blas.py (NumPy's
bundled OpenBLAS, else SciPy's): `np.dot`, `@`, `np.vdot`, `np.linalg.solve`, `inv`, `det`,
`norm`. No matrix product is written here.

The routines are Fortran's, column-major: a C-contiguous matrix is its transpose there, so
`A @ B` is computed as `(B.T @ A.T).T` without moving data, and LAPACK gets transposed
copies (it overwrites its inputs anyway). float32, float64, complex64 and complex128 go to
BLAS and LAPACK (the s, d, c, z routines); other dtypes multiply with plain loops. The
integers passed (scalars, `info`, pivot and workspace arrays: `lapack_ints`) have the
provider's width, 64 or 32 bits; without a provider, compiling such a call says what to
install.
"""
from __future__ import annotations

import operator
import re

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..runtime.blas import SYMBOL_PREFIX, provider, require, routine_address
from .arrays import ArrayValue
from ..typing.registry import (intrinsic, literal_flag, omitted, overload, overload_method,
                               register_jitable)

_PREFIXES = {t.float32: "s", t.float64: "d", t.complex64: "c", t.complex128: "z"}


def bind_symbols(llvm_ir: str):
    """Point each `kiln_linalg_<provider>_<routine>` the module calls at its routine."""
    import llvmlite.binding as llvm
    for symbol in set(re.findall(SYMBOL_PREFIX + r"\w+", llvm_ir)):
        llvm.add_symbol(symbol, routine_address(symbol))


class _Call:
    """Building one Fortran call: every argument is passed by pointer, integers in the
    provider's width; a character argument's length (1) follows all the others, as
    Fortran's compilers expect it (SciPy's wrappers take none)."""

    def __init__(self, context, builder):
        self.context, self.builder = context, builder
        self.provider = provider()
        self.args, self.lengths = [], []

    def int(self, value):
        width = ir.IntType(self.provider.int_bits)
        if value.type.width > width.width:
            _checked_int32(self.context, self.builder, value)
        if value.type.width != width.width:
            value = (self.builder.trunc if value.type.width > width.width else
                     self.builder.sext)(value, width)
        slot = self.context.alloca(self.builder, width)
        self.builder.store(value, slot)
        self.args.append(slot)

    def char(self, letter):
        slot = self.context.alloca(self.builder, dm.i8)
        self.builder.store(ir.Constant(dm.i8, ord(letter)), slot)
        self.args.append(slot)
        if self.provider.name != "scipy":
            self.lengths.append(ir.Constant(dm.i64, 1))

    def info(self):
        """The slot of LAPACK's `info`, passed last; its value as an int64 after the call."""
        slot = self.context.alloca(self.builder, ir.IntType(self.provider.int_bits))
        self.args.append(slot)
        return lambda: self.builder.sext(self.builder.load(slot), dm.i64) \
            if self.provider.int_bits < 64 else self.builder.load(slot)

    def scalar(self, value):
        slot = self.context.alloca(self.builder, value.type)
        self.builder.store(value, slot)
        self.args.append(slot)

    def data(self, arr, ty):
        self.args.append(ArrayValue(self.context, self.builder, arr, ty).field(dm.ARRAY_DATA))

    def emit(self, routine, returns=None):
        module = self.builder.module
        name = self.provider.prefix + routine
        fn = module.globals.get(name)
        if fn is None:
            fnty = ir.FunctionType(returns or ir.VoidType(),
                                   [dm.ptr] * len(self.args) + [dm.i64] * len(self.lengths))
            fn = ir.Function(module, fnty, name=name)
        return self.builder.call(fn, self.args + self.lengths)


def _constant(dtype, value):
    """`value` in `dtype` as an LLVM constant (a complex one is the pair (value, 0))."""
    if isinstance(dtype, t.Complex):
        part = dm.value_type(dtype.underlying_float)
        return ir.Constant(dm.value_type(dtype), [ir.Constant(part, value),
                                                  ir.Constant(part, 0.0)])
    return ir.Constant(dm.value_type(dtype), value)


def real_dtype(dtype):
    """The dtype of LAPACK's real outputs (singular values, eigenvalues of a Hermitian
    matrix, workspaces) for matrices of `dtype`."""
    return dtype.underlying_float if isinstance(dtype, t.Complex) else dtype


def _blas_dtype(*arrays):
    """The one BLAS dtype of these C-contiguous arrays, or None."""
    if not all(isinstance(a, t.Array) and a.layout == "C" for a in arrays):
        return None
    dtypes = {a.dtype for a in arrays}
    return dtypes.pop() if len(dtypes) == 1 and next(iter(dtypes)) in _PREFIXES else None


def _checked_int32(context, builder, value):
    context.guard(builder, builder.icmp_signed(">", value, ir.Constant(dm.i64, 2**31 - 1)),
                  ValueError, "array too large for the BLAS (dimensions above 2**31 - 1)")


@intrinsic
def gemm(typingctx, a, b, out):
    """out = a @ b for C-contiguous 2-d arrays of one BLAS dtype, shapes already checked."""
    dtype = _blas_dtype(a, b, out)
    if dtype is None or not a.ndim == b.ndim == out.ndim == 2:
        return None

    def codegen(context, builder, sig, args):
        av, bv = (ArrayValue(context, builder, v, ty) for v, ty in zip(args[:2], (a, b)))
        m, k, n = av.shape(0), av.shape(1), bv.shape(1)
        one = ir.Constant(dm.i64, 1)
        at_least_one = lambda v: builder.select(builder.icmp_signed("<", v, one), one, v)  # noqa
        call = _Call(context, builder)
        call.char("N"), call.char("N"), call.int(n), call.int(m), call.int(k)
        call.scalar(_constant(dtype, 1.0)), call.data(args[1], b), call.int(at_least_one(n))
        call.data(args[0], a), call.int(at_least_one(k))
        call.scalar(_constant(dtype, 0.0)), call.data(args[2], out)
        call.int(at_least_one(n))
        call.emit(_PREFIXES[dtype] + "gemm")
        return dm.null_value(t.none)
    return t.none(a, b, out), codegen


@intrinsic
def gemv(typingctx, a, x, y):
    """y = a @ x for a C-contiguous 2-d `a` and 1-d `x`, `y`, shapes already checked."""
    dtype = _blas_dtype(a, x, y)
    if dtype is None or not (a.ndim == 2 and x.ndim == y.ndim == 1):
        return None

    def codegen(context, builder, sig, args):
        av = ArrayValue(context, builder, args[0], a)
        m, k = av.shape(0), av.shape(1)
        one = ir.Constant(dm.i64, 1)
        call = _Call(context, builder)
        call.char("T"), call.int(k), call.int(m), call.scalar(_constant(dtype, 1.0))
        call.data(args[0], a), call.int(builder.select(builder.icmp_signed("<", k, one), one, k))
        call.data(args[1], x), call.int(one)
        call.scalar(_constant(dtype, 0.0)), call.data(args[2], y), call.int(one)
        call.emit(_PREFIXES[dtype] + "gemv")
        return dm.null_value(t.none)
    return t.none(a, x, y), codegen


@intrinsic
def blas_dot(typingctx, x, y):
    """x @ y for C-contiguous 1-d real arrays of one BLAS dtype and one length (the complex
    routines return a complex by value, which callers avoid: see `dot_1d`)."""
    dtype = _blas_dtype(x, y)
    if dtype is None or isinstance(dtype, t.Complex) or not x.ndim == y.ndim == 1:
        return None

    def codegen(context, builder, sig, args):
        n = ArrayValue(context, builder, args[0], x).shape(0)
        call = _Call(context, builder)
        call.int(n), call.data(args[0], x), call.int(ir.Constant(dm.i64, 1))
        call.data(args[1], y), call.int(ir.Constant(dm.i64, 1))
        return call.emit(_PREFIXES[dtype] + "dot", returns=dm.value_type(dtype))
    return dtype(x, y), codegen


def _routine_dtype(arrays):
    """The dtype that picks the LAPACK routine's letter: the one dtype of the matrices, or
    the complex one where the others are its real part (singular values, real workspaces);
    integer arrays (pivots, integer workspaces) do not count."""
    dtypes = {a.dtype for a in arrays if not isinstance(a.dtype, t.Integer)}
    complexes = {d for d in dtypes if isinstance(d, t.Complex)}
    if len(complexes) > 1 or (not complexes and len(dtypes) != 1):
        return None
    dtype = next(iter(complexes or dtypes))
    if dtype not in _PREFIXES or not dtypes <= {dtype, real_dtype(dtype)}:
        return None
    return dtype


def _lapack(routine_of, *arg_kinds):
    """An intrinsic calling a LAPACK routine on C-contiguous arrays (whose data it
    overwrites), int64 scalars ("int"), real scalars in the matrices' real dtype ("float")
    and fixed characters ("char:V", which take no argument); it returns LAPACK's `info`.
    `routine_of` maps the dtype's letter (s, d, c, z) to the routine's name."""
    def typer(typingctx, *args):
        arrays = [a for a in args if isinstance(a, t.Array)]
        dtype = _routine_dtype(arrays)
        if dtype is None or any(a.layout != "C" for a in arrays):
            return None

        def codegen(context, builder, sig, llargs):
            call = _Call(context, builder)
            given = iter(zip(llargs, args))
            for kind in arg_kinds:
                if kind.startswith("char:"):
                    call.char(kind[len("char:"):])
                    continue
                value, ty = next(given)
                if kind == "int":
                    call.int(value)
                elif kind == "float":
                    call.scalar(context.cast(builder, value, ty, real_dtype(dtype)))
                else:
                    call.data(value, ty)
            info = call.info()
            call.emit(routine_of(_PREFIXES[dtype]))
            return info()
        return t.int64(*args), codegen
    return intrinsic(typer)


def lapack_ints(n):
    """n zeros in LAPACK's integer dtype (pivots, integer workspaces; compiled code only)."""


@overload(lapack_ints)
def _lapack_ints(n):
    dtype = np.int64 if provider().int_bits == 64 else np.int32
    return lambda n: np.zeros(n, dtype)


# n, nrhs, a, lda, ipiv, b, ldb -> info: solves a x = b in place (b becomes x)
gesv = _lapack(lambda p: p + "gesv", "int", "int", "array", "int", "array", "array", "int")
# m, n, a, lda, ipiv -> info: the LU factors of a, in place
getrf = _lapack(lambda p: p + "getrf", "int", "int", "array", "int", "array")


# ---- the NumPy functions --------------------------------------------------------------------

def _float_result(*types):
    """The dtype NumPy's dot gives these arrays (None unless all are real or complex)."""
    if not all(isinstance(a, t.Array) for a in types):
        return None
    return t.from_dtype(np.result_type(*(a.dtype.np_dtype for a in types)))


def c_array_of(a, dtype):
    """`a` as a C-contiguous array of `dtype`: itself when it is one (compiled code only)."""


@overload(c_array_of)
def _c_array_of(a, dtype):
    if a.layout == "C" and a.dtype == dtype.instance_type:
        return lambda a, dtype: a
    return lambda a, dtype: fresh_copy(a, dtype)


def fresh_copy(a, dtype):
    """A C-contiguous copy of `a` in `dtype`, which LAPACK may overwrite (compiled only)."""


@overload(fresh_copy)
def _fresh_copy(a, dtype):
    def copy(a, dtype):
        out = np.empty(a.shape, dtype)
        out[:] = a
        return out
    return copy


@register_jitable
def _loop_dot(a, b, out):
    """out = a @ b for 2-d arrays of dtypes BLAS does not have (integers, booleans)."""
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            total = out[i, j]  # zero
            for p in range(a.shape[1]):
                total += a[i, p] * b[p, j]
            out[i, j] = total


def _product(name):
    """np.dot / np.matmul / `@` of 1-d and 2-d arrays."""
    def ov(a, b):
        dtype = _float_result(a, b) if isinstance(a, t.Array) and isinstance(b, t.Array) \
            else None
        if dtype is None or not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
            return None
        blas = dtype in _PREFIXES
        if blas:
            require()
        message = f"{name}: shapes not aligned (the inner dimensions differ)"

        def inputs(a, b):
            x = c_array_of(a, dtype) if blas else a
            y = c_array_of(b, dtype) if blas else b
            if y.shape[0] != x.shape[x.ndim - 1]:
                raise ValueError(message)
            return x, y
        register_jitable(inputs)

        def vector_vector(a, b):
            x, y = inputs(a, b)
            return dot_1d(x, y, dtype)

        def vector_matrix(a, b):
            x, y = inputs(a, b)
            return matrix_product(x.reshape(1, x.shape[0]), y, dtype).reshape(-1)

        def matrix_vector_(a, b):
            x, y = inputs(a, b)
            return matrix_vector(x, y, dtype)

        def matrix_matrix(a, b):
            x, y = inputs(a, b)
            return matrix_product(x, y, dtype)
        return {(1, 1): vector_vector, (1, 2): vector_matrix, (2, 1): matrix_vector_,
                (2, 2): matrix_matrix}[a.ndim, b.ndim]
    return ov


def dot_1d(x, y, dtype):
    """x @ y of two vectors of one length (compiled code only)."""


@overload(dot_1d)
def _dot_1d(x, y, dtype):
    if isinstance(dtype.instance_type, t.Complex):
        return lambda x, y, dtype: matrix_vector(x.reshape(1, x.shape[0]), y, dtype)[0]
    if dtype.instance_type in _PREFIXES:
        def by_blas(x, y, dtype):
            return blas_dot(x, y) if x.shape[0] else dtype(0)
        return by_blas

    def by_loop(x, y, dtype):
        total = dtype(0)
        for i in range(x.shape[0]):   # in dtype: booleans sum as `or`, as in NumPy
            total = dtype(total + x[i] * y[i])
        return total
    return by_loop


def matrix_vector(x, y, dtype):
    """x @ y of a matrix and a vector (compiled code only)."""


@overload(matrix_vector)
def _matrix_vector(x, y, dtype):
    if dtype.instance_type not in _PREFIXES:
        return lambda x, y, dtype: matrix_product(x, y.reshape(-1, 1), dtype).reshape(-1)

    def by_gemv(x, y, dtype):
        out = np.zeros(x.shape[0], dtype)
        if x.shape[0] and x.shape[1]:
            gemv(x, y, out)
        return out
    return by_gemv


def matrix_product(x, y, dtype):
    """x @ y of two matrices (compiled code only)."""


@overload(matrix_product)
def _matrix_product(x, y, dtype):
    if dtype.instance_type not in _PREFIXES:
        def by_loops(x, y, dtype):
            out = np.zeros((x.shape[0], y.shape[1]), dtype)
            _loop_dot(x, y, out)
            return out
        return by_loops

    def by_gemm(x, y, dtype):
        out = np.zeros((x.shape[0], y.shape[1]), dtype)
        if x.shape[0] and y.shape[1] and x.shape[1]:
            gemm(x, y, out)
        return out
    return by_gemm


overload(np.dot)(_product("dot"))
overload(np.matmul)(_product("matmul"))
overload(operator.matmul)(_product("matmul"))


@overload_method(t.Array, "dot")
def _array_dot(a, b):
    """a.dot(b) is np.dot(a, b)."""
    return lambda a, b: np.dot(a, b)


@overload(operator.imatmul)
def _imatmul(a, b):
    """`a @= b` of arrays writes a @ b into `a`, as NumPy does (its aliases see it): the
    product must keep a's shape and cast to its dtype by NumPy's 'same_kind' rule."""
    if not (isinstance(a, t.Array) and isinstance(b, t.Array)):
        return None
    if a.ndim < 1 or b.ndim < 2:
        raise TypingError("inplace matrix multiplication requires the first operand to have "
                          f"at least one and the second at least two dimensions: {a} @= {b}")
    result = _float_result(a, b)
    if not np.can_cast(result.np_dtype, a.dtype.np_dtype, "same_kind"):
        raise TypingError(f"cannot cast the result of matmul from {result} to {a.dtype} in "
                          "place (NumPy's 'same_kind' rule)")

    def imatmul(a, b):
        product = a @ b
        if product.shape != a.shape:
            raise ValueError("matmul: Output operand 0 has a mismatch in its core dimension "
                             "(a @= b keeps a's shape: b must be square)")
        a[...] = product
        return a
    return imatmul


@overload(np.vdot)
def _vdot(a, b):
    """The dot product of the flattened arrays, the first one conjugated."""
    dtype = _float_result(a, b)
    if dtype is None:
        return None
    conjugate = isinstance(a.dtype, t.Complex)

    def vdot(a, b):
        x, y = a.ravel(), b.ravel()
        if x.shape[0] != y.shape[0]:
            raise ValueError("cannot reshape array: vdot needs arrays of one size")
        return np.dot(np.conj(x) if conjugate else x, y)
    return vdot


def lapack_dtype(dtype):
    """The float or complex dtype LAPACK works in for matrices of `dtype` (integers and
    booleans as float64, as in NumPy), or None (float16)."""
    dtype = dtype if isinstance(dtype, (t.Float, t.Complex)) else t.float64
    if dtype not in _PREFIXES:
        return None
    require()
    return dtype


def _square_float(a):
    """The dtype LAPACK works in for the matrix `a`, or None."""
    if not (isinstance(a, t.Array) and a.ndim == 2):
        return None
    return lapack_dtype(a.dtype)


def _solve_impl(dtype):
    def solve(a, b):
        n = a.shape[0]
        if a.shape[1] != n:
            raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
        if b.shape[0] != n:
            raise ValueError("solve: the right-hand side does not match the matrix")
        lu = fresh_copy(a.T, dtype)       # column-major a (LAPACK overwrites it)
        columns = b.size // n if n else 0
        rhs = fresh_copy(b.reshape(n, columns).T, dtype)  # column-major b, a column per row
        pivots = lapack_ints(n)
        if n:
            info = gesv(n, rhs.shape[0], lu, n, pivots, rhs, n)
            if info > 0:
                raise np.linalg.LinAlgError("Singular matrix")
        return rhs.T.copy().reshape(b.shape)
    return solve


@overload(np.linalg.solve)
def _solve(a, b):
    dtype = _square_float(a)
    if dtype is None or not (isinstance(b, t.Array) and 1 <= b.ndim <= 2):
        return None
    return _solve_impl(t.from_dtype(np.result_type(a.dtype.np_dtype, b.dtype.np_dtype,
                                                   np.float32)))


@overload(np.linalg.inv)
def _inv(a):
    dtype = _square_float(a)
    if dtype is None:
        return None

    def inv(a):
        return np.linalg.solve(a, np.eye(a.shape[0], dtype=dtype))
    return inv


@overload(np.linalg.det)
def _det(a):
    dtype = _square_float(a)
    if dtype is None:
        return None

    def det(a):
        n = a.shape[0]
        if a.shape[1] != n:
            raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
        lu = fresh_copy(a.T, dtype)
        pivots = lapack_ints(n)
        if n == 0:
            return dtype(1)
        if getrf(n, n, lu, n, pivots) > 0:
            return dtype(0)
        result = dtype(1)
        for i in range(n):
            result *= lu[i, i]
            if pivots[i] != i + 1:
                result = -result
        return result
    return det


@overload(np.linalg.norm)
def _norm(x, ord=None, axis=None, keepdims=False):
    """np.linalg.norm of a vector or a matrix, for every `ord` NumPy has, computed as NumPy
    computes it: with no `ord` (and 'fro'), the square root of vdot(x, x), which is real
    (and in the real dtype) for complex x; otherwise from abs(x) summed, maxed or powered,
    and from the singular values for matrix orders 2, -2 and 'nuc'."""
    if not (isinstance(x, t.Array) and isinstance(x.dtype, (t.Float, t.Integer, t.Complex))):
        return None
    if not omitted(axis) or literal_flag(keepdims, "np.linalg.norm's keepdims"):
        raise TypingError("kiln's np.linalg.norm takes no axis or keepdims yet: the norm of a "
                          "whole vector or matrix")
    dtype = x.dtype if x.dtype in _PREFIXES else t.float64

    def frobenius(x, ord=None, axis=None, keepdims=False):
        flat = c_array_of(x.ravel(), dtype)
        return np.sqrt(np.vdot(flat, flat).real)

    if omitted(ord) or isinstance(ord, t.StringLiteral) and ord.value in ("fro", "f") \
            and x.ndim == 2:
        return frobenius
    if isinstance(ord, t.StringLiteral):
        if ord.value == "nuc" and x.ndim == 2:
            return lambda x, ord=None, axis=None, keepdims=False: \
                np.sum(np.linalg.svd(c_array_of(x, dtype), compute_uv=False))
        raise TypingError(f"invalid norm order {ord.value!r} for {x.ndim}-d input")
    if not isinstance(ord, (t.Integer, t.Float)):
        return None
    if x.ndim == 1:
        def vector_norm(x, ord=None, axis=None, keepdims=False):
            xc = c_array_of(x, dtype)
            if ord == 2:
                return np.sqrt(np.sum((np.conj(xc) * xc).real))
            a = np.abs(xc)
            if ord == np.inf:
                return np.max(a)
            if ord == -np.inf:
                return np.min(a)
            if ord == 0:
                return np.sum((a != 0).astype(a.dtype))
            if ord == 1:
                return np.sum(a)
            return np.sum(a ** ord) ** (1.0 / ord)
        return vector_norm
    if x.ndim != 2:
        raise TypingError(f"np.linalg.norm with an ord takes a vector or a matrix, not a "
                          f"{x.ndim}-d array")

    def matrix_norm(x, ord=None, axis=None, keepdims=False):
        a = c_array_of(x, dtype)
        if ord == 2 or ord == -2:
            s = np.linalg.svd(a, compute_uv=False)
            return s[0] if ord == 2 else s[s.shape[0] - 1]
        if ord == 1 or ord == -1:
            columns = np.sum(np.abs(a), axis=0)
            return np.max(columns) if ord == 1 else np.min(columns)
        if ord == np.inf or ord == -np.inf:
            rows = np.sum(np.abs(a), axis=1)
            return np.max(rows) if ord > 0 else np.min(rows)
        raise ValueError("Invalid norm order for matrices.")
    return matrix_norm
