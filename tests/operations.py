"""Python's operators as one-line functions, shared by the differential tests (kiln
compiles them from this file's source)."""


def add(a, b): return a + b
def sub(a, b): return a - b
def mul(a, b): return a * b
def truediv(a, b): return a / b
def floordiv(a, b): return a // b
def mod(a, b): return a % b
def power(a, b): return a ** b
def divmod_(a, b): return divmod(a, b)
def lt(a, b): return a < b
def le(a, b): return a <= b
def gt(a, b): return a > b
def ge(a, b): return a >= b
def eq(a, b): return a == b
def ne(a, b): return a != b
def neg(a): return -a


div = truediv
