"""A comprehension's first iterable is read in the enclosing scope, as in Python: in
`[x for x in f(x)]` the `x` of `f(x)` is the outer one."""
from helpers import check


def shadowing(x):
    return [x * 2 for x in [1, 2, 3, x]]


def shadowing_map(x):
    def bar(z):
        return z + 1
    return [x for x in map(bar, [1, 2, 3, x])]


def nested(x):
    return [[x + y for y in range(x)] for x in range(x)]


def dict_and_set(x):
    return sorted({x: x for x in range(x)}.items()), sorted({x % 3 for x in range(x)})


def test_the_first_iterable_reads_the_outer_name():
    for fn in (shadowing, shadowing_map, nested, dict_and_set):
        check(fn, 4)
