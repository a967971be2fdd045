"""A local read before any assignment on the path taken raises what CPython raises
(UnboundLocalError, or NameError for a nested function's free variable), with CPython's
message; reads that follow an assignment on every path get no test at all."""
import ast
import inspect
import textwrap

import numpy as np
import pytest

from helpers import jit, same
from kiln.codegen.unbound import unbound_reads
from kiln.frontend import build_function_ir


def assigned_in_branch(x):
    if x > 5:
        y = 1.5
    return y


def last_of_loop(n):
    for i in range(n):
        last = i * 2
    return last


def loop_target_after_loop(n):
    for i in range(n):
        pass
    return i


def assigned_on_a_later_turn(n):
    s = 0
    for i in range(n):
        if i > 1:
            s += prev
        if i == 1:
            prev = 3
    return s


def augmented_unassigned(n):
    if n > 0:
        acc = 0
    acc += 1
    return acc


def augmented_target_before_value(n):
    if n > 0:
        acc = 0
    acc += 1 // n      # CPython reads acc first: UnboundLocalError, not ZeroDivisionError
    return acc


def never_assigned_in_chained_comparison(n):
    if True:
        pass
    else:
        z = 1
    return n > 2 >= z      # z is read only when n > 2 (fuzz seed 5004262)


def free_variable_of_nested(n):
    def inner():
        return z + 1
    if n > 0:
        z = n
    return inner()


def while_true_assigns_before_break(n):
    while True:
        q = n
        if n > 0:
            break
        n += 1
    return q


def array_local(n):
    if n > 2:
        a = np.arange(n)
    return a.sum()


def assigned_only_where_typing_never_goes(n, a):
    if False:
        b = a
    if n > 0:
        b *= 2.0
    c = n + 1
    if n > 1:
        return b, float(c)
    return a, float(c)


def free_variable_never_assigned(n):
    def inner():
        return z + 1
    if False:
        z = 1
    if n > 0:
        return inner()
    return n


def never_assigned_in_untaken_branch(n):
    if False:
        z = 1
    return z if n > 0 else n


def never_assigned_in_short_circuit(n):
    if False:
        z = 1
    if n > 0 and z > 0:
        return 1
    w = n < 0 or z > 0
    return 2 if w else 3


CASES = [(assigned_only_where_typing_never_goes, 0), (assigned_only_where_typing_never_goes, 1),
         (assigned_only_where_typing_never_goes, 2), (free_variable_never_assigned, 0),
         (free_variable_never_assigned, 1), (never_assigned_in_untaken_branch, 0),
         (never_assigned_in_untaken_branch, 1), (never_assigned_in_short_circuit, 0),
         (never_assigned_in_short_circuit, -1), (never_assigned_in_short_circuit, 1),
(assigned_in_branch, 7), (assigned_in_branch, 1), (last_of_loop, 3),
         (last_of_loop, 0), (loop_target_after_loop, 4), (loop_target_after_loop, 0),
         (assigned_on_a_later_turn, 5), (assigned_on_a_later_turn, 3),
         (augmented_unassigned, 1), (augmented_unassigned, 0),
         (augmented_target_before_value, 0), (augmented_target_before_value, 1),
         (never_assigned_in_chained_comparison, 1),
         (never_assigned_in_chained_comparison, 5),
         (free_variable_of_nested, 2), (free_variable_of_nested, 0),
         (while_true_assigns_before_break, -2), (array_local, 4), (array_local, 1)]


@pytest.mark.parametrize("fn, n", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_agrees_with_cpython(fn, n):
    args = (n, np.arange(3.0)) if fn is assigned_only_where_typing_never_goes else (n,)
    try:
        expected = ("value", fn(*args))
    except NameError as e:  # UnboundLocalError is a NameError
        expected = (type(e), str(e))
    try:
        got = ("value", jit(fn)(*args))
    except NameError as e:
        got = (type(e), str(e))
    assert got[0] == expected[0] and same(expected[1], got[1])


def test_second_call_after_error_still_works():
    f = jit(assigned_in_branch)
    with pytest.raises(UnboundLocalError):
        f(0)
    assert f(9) == 1.5


def flagged(fn):
    ir = build_function_ir(fn)
    found = unbound_reads(ir.node, ir.arg_names, ir.local_names, lambda test: None)
    return sorted(n.target.id if isinstance(n, ast.AugAssign) else n.id for n in found.reads)


def definitely_assigned(a, n):
    total = 0.0
    for i in range(n):
        x = a[i]
        if x > 0:
            y = x
        else:
            y = -x
        total += y
    while True:
        k = n
        break
    for j in range(n):
        pass
    else:
        j = 0
    return total + k + j


def test_reads_after_assignment_on_every_path_are_not_tested():
    assert flagged(definitely_assigned) == []
    assert flagged(assigned_in_branch) == ["y"]
    assert flagged(assigned_on_a_later_turn) == ["prev"]
    assert flagged(augmented_unassigned) == ["acc"]
