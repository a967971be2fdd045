"""Container kernels: building and sorting a list of floats, counting words with a dict,
deduplicating with a set, a generator pipeline."""
import numpy as np

from bench.registry import Benchmark, Sizes, register, rng


def list_sort(x):
    """Append every value to a list, sort it, and sum a sample weighted by position (a
    checksum that sees the order)."""
    values = []
    for v in x:
        values.append(v)
    values.sort()
    total = 0.0
    for i in range(0, len(values), 997):
        total += values[i] * i
    return total


def _np_list_sort(x):
    s = np.sort(x)
    idx = np.arange(0, s.shape[0], 997)
    return float(np.sum(s[idx] * idx))


register(Benchmark(
    name="list_sort", topic="containers", pyfunc=list_sort,
    make_inputs=lambda n: (rng().standard_normal(n),),
    sizes=Sizes(full=1_000_000, quick=1_000_000, python=1_000_000), label="{n} float64",
    numpy_ref=_np_list_sort, rtol=1e-12, work=lambda n: n * np.log2(max(n, 2))))


def word_count(text):
    """Split a text into words and count them with a dict keyed by string; the checksum
    is the number of distinct words and the largest count."""
    counts = {}
    for w in text.split():
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    best = 0
    for w in counts:
        best = max(best, counts[w])
    return len(counts) * 1_000_003 + best


def _words(n):
    """n words drawn (Zipf-like) from a vocabulary of 20,000 ASCII and non-ASCII words."""
    r = rng()
    letters = list("abcdefghijklmnopqrstuvwxyzé中")
    vocab = ["".join(r.choice(letters, size=int(k))) for k in r.integers(2, 10, size=20_000)]
    picks = np.minimum(r.zipf(1.3, size=n), len(vocab)) - 1
    return (" ".join(vocab[i] for i in picks),)


register(Benchmark(
    name="word_count", topic="containers", pyfunc=word_count, make_inputs=_words,
    sizes=Sizes(full=1_000_000, quick=200_000, python=200_000), label="{n} words",
    rtol=0.0))


def set_dedup(x):
    """The distinct values of x through a set, and a checksum of them (order-free)."""
    seen = set()
    for v in x:
        seen.add(v)
    total = 0
    for v in seen:
        total += v * v % 1000003
    return len(seen), total


def _np_set_dedup(x):
    u = np.unique(x)
    return len(u), int(np.sum(u * u % 1000003))


register(Benchmark(
    name="set_dedup", topic="containers", pyfunc=set_dedup,
    make_inputs=lambda n: (rng().integers(0, n // 2, n),),
    sizes=Sizes(full=1_000_000, quick=100_000, python=1_000_000), label="{n} int64",
    numpy_ref=_np_set_dedup, rtol=0.0, work=float))


def squares_of_evens(x):
    """A generator: the squares of the even items, one at a time."""
    for v in x:
        if v % 2 == 0:
            yield v * v


def residues(values):
    """A generator over a generator: each value modulo 7."""
    for s in values:
        yield s % 7


def generator_pipeline(x):
    """Two generators feeding a loop (two suspensions per item)."""
    total = 0
    for r in residues(squares_of_evens(x)):
        total += r
    return total


def _np_generator_pipeline(x):
    evens = x[x % 2 == 0]
    return int(np.sum(evens * evens % 7))


register(Benchmark(
    name="generator_pipeline", topic="containers", pyfunc=generator_pipeline,
    make_inputs=lambda n: (rng().integers(-1000, 1000, n),),
    sizes=Sizes(full=1_000_000, quick=100_000, python=1_000_000), label="{n} int64",
    numpy_ref=_np_generator_pipeline, rtol=0.0, work=float,
    rebound={"squares_of_evens": lambda compiler: compiler.njit(squares_of_evens),
             "residues": lambda compiler: compiler.njit(residues)}))
