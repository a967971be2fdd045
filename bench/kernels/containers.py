"""Container kernels: building and sorting a list of floats, counting words with a dict."""
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
