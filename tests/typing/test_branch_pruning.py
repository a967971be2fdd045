"""Branches decided by what the types say are not typed (issue 32): `if a.ndim == 1:` with
an indexing only the other rank allows, and comparisons of frozen globals, as Numba
prunes them. Results checked against CPython."""
import numpy as np

from helpers import check

LIMIT = 3


def first_item(a):
    if a.ndim == 1:
        return a[0]
    elif a.ndim >= 3:
        return a[0, 0, 0]
    return a[0, 0]


def by_rank(a):
    return a.sum() if a.ndim != 2 else a[0, 0] + a[-1, -1]


def on_a_global(x):
    if LIMIT > 2:
        return x * 2
    return x.missing_attribute


def test_rank_branches():
    for a in (np.arange(4.0), np.arange(12).reshape(3, 4), np.ones((2, 2, 2), np.int32)):
        check(first_item, a)
        check(by_rank, a)


def test_frozen_global_comparison():
    check(on_a_global, 5)
    check(on_a_global, 2.5)


def by_kind(a):
    # the outer branch returns from its first statement: what follows it is never run,
    # nor typed (its other result types would not unify with these)
    if isinstance(a, (int, float)):
        if isinstance(a, int):
            return a + 1, "int"
        if isinstance(a, float):
            return a + 2.0, "float"
    elif isinstance(a, str):
        return a + "!", "str"
    return "no match"


def test_statements_after_a_branch_that_surely_returns():
    for a in (3, 5.0, "Hello", (1, 2)):
        check(by_kind, a)
