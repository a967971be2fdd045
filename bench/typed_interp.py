"""kiln.typed.Dict and List used from the interpreter, against Numba's and the builtins:
`python bench/typed_interp.py` prints nanoseconds per set/append and per get (100,000 int
keys or float items; one pass after a warm-up)."""
from __future__ import annotations

import time


def dict_ops(d, n):
    start = time.perf_counter()
    for i in range(n):
        d[i] = float(i)
    middle = time.perf_counter()
    total = 0.0
    for i in range(n):
        total += d[i]
    return (middle - start) / n * 1e9, (time.perf_counter() - middle) / n * 1e9


def list_ops(items, n):
    start = time.perf_counter()
    for i in range(n):
        items.append(float(i))
    middle = time.perf_counter()
    total = 0.0
    for i in range(n):
        total += items[i]
    return (middle - start) / n * 1e9, (time.perf_counter() - middle) / n * 1e9


def containers():
    import kiln
    made = [("kiln.typed.Dict", dict_ops,
             lambda: kiln.typed.Dict.empty(kiln.types.int64, kiln.types.float64)),
            ("kiln.typed.List", list_ops, lambda: kiln.typed.List.empty_list(kiln.types.float64)),
            ("dict", dict_ops, dict), ("list", list_ops, list)]
    try:
        import numba
        made += [("numba.typed.Dict", dict_ops,
                  lambda: numba.typed.Dict.empty(numba.types.int64, numba.types.float64)),
                 ("numba.typed.List", list_ops,
                  lambda: numba.typed.List.empty_list(numba.types.float64))]
    except ImportError:
        pass
    return made


def main(n=100_000):
    print("| container | set or append | get |")
    print("|---|---|---|")
    for name, ops, make in containers():
        ops(make(), 1000)
        put, get = ops(make(), n)
        print(f"| {name} | {put:.0f} ns | {get:.0f} ns |")


if __name__ == "__main__":
    main()
