"""Line tables: which source line each instruction came from, as LLVM debug locations.

Only the line directives are emitted (the compile unit's emission kind is
`DebugDirectivesOnly`): for device code LLVM NVPTX turns them into PTX `.file`/`.loc`, which
profilers (Nsight Compute's source view) and compute-sanitizer use to name the line of a
kernel. No variable or type information is described."""
from __future__ import annotations

import os

from llvmlite import ir

_DEBUG_INFO_VERSION = 3


class LineTable:
    """The debug metadata of one module: a compile unit, a file per source file and a
    subprogram per function."""

    def __init__(self, module: ir.Module):
        self.module = module
        self._files = {}
        self._unit = None
        i32 = ir.IntType(32)
        module.add_named_metadata("llvm.module.flags", [
            ir.Constant(i32, 2), "Debug Info Version", ir.Constant(i32, _DEBUG_INFO_VERSION)])
        module.add_named_metadata("llvm.module.flags", [
            ir.Constant(i32, 2), "Dwarf Version", ir.Constant(i32, 4)])

    def _file(self, filename):
        if filename not in self._files:
            self._files[filename] = self.module.add_debug_info("DIFile", {
                "filename": os.path.basename(filename),
                "directory": os.path.dirname(os.path.abspath(filename))})
            if self._unit is None:
                self._unit = self.module.add_debug_info("DICompileUnit", {
                    "language": ir.DIToken("DW_LANG_Python"),
                    "file": self._files[filename], "producer": "kiln",
                    "runtimeVersion": 0, "isOptimized": True,
                    "emissionKind": ir.DIToken("DebugDirectivesOnly")}, is_distinct=True)
                self.module.add_named_metadata("llvm.dbg.cu", self._unit)
        return self._files[filename]

    def describe(self, fn: ir.Function, name, filename, line):
        """Give `fn` a subprogram for the function `name` defined at `filename:line`;
        returns the scope of its locations."""
        file = self._file(filename)
        subprogram = self.module.add_debug_info("DISubprogram", {
            "name": name, "scope": file, "file": file, "line": line,
            "type": self.module.add_debug_info("DISubroutineType", {
                "types": self.module.add_metadata([])}),
            "scopeLine": line,
            "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
            "unit": self._unit}, is_distinct=True)
        fn.set_metadata("dbg", subprogram)
        return subprogram

    def location(self, scope, line, column=0):
        return self.module.add_debug_info("DILocation", {
            "line": line, "column": column + 1, "scope": scope})

    def locate_calls(self, fn: ir.Function, name, filename, line):
        """Describe `fn`, a wrapper built without statements (a kernel entry), and locate
        its calls at `line`: LLVM requires a location on every call that may be inlined
        in a function that has a subprogram."""
        scope = self.describe(fn, name, filename, line)
        for block in fn.blocks:
            for instruction in block.instructions:
                if isinstance(instruction, ir.CallInstr):
                    instruction.set_metadata("dbg", self.location(scope, line))
