"""The LLVM scalar types that the runtime's IR and codegen's data model both name. They
live under the runtime, the lowest layer that emits IR, so both agree without the runtime
importing codegen."""
from llvmlite import ir

i1 = ir.IntType(1)
i8 = ir.IntType(8)
i32 = ir.IntType(32)
i64 = ir.IntType(64)
ptr = ir.PointerType()
intp = i64
