"""np.random inside compiled code: after np.random.seed(s) in compiled code, every function
gives the numbers NumPy's legacy np.random gives after the same seed, bit for bit."""
import numpy as np
import pytest

from kiln import njit


def draws(s):
    np.random.seed(s)
    return (np.random.random(), np.random.random(5), np.random.rand(2, 3), np.random.randn(4),
            np.random.standard_normal(3), np.random.normal(1.0, 2.0),
            np.random.normal(0.5, 3.0, (2, 2)), np.random.uniform(-1.0, 1.0, 3),
            np.random.randint(10), np.random.randint(-5, 5, 6), np.random.randint(0, 2**40, 3),
            np.random.permutation(7), np.random.choice(9), np.random.choice(np.arange(10.0)),
            np.random.randint(3, 4), np.random.random_sample(2), np.random.randn(), np.random.rand())


def shuffled(s, x):
    np.random.seed(s)
    np.random.shuffle(x)
    return x, np.random.permutation(x)


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow),
                                  pytest.param(12345, marks=pytest.mark.slow), 2**32 - 1])
def test_same_stream_as_numpy_after_seed(seed):
    got, want = njit(draws)(seed), draws(seed)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype.kind == np.asarray(w).dtype.kind
        assert np.array_equal(g, w), (g, w)
    x = np.arange(20.0)
    for g, w in zip(njit(shuffled)(seed, x.copy()), shuffled(seed, x.copy())):
        assert np.array_equal(g, w)


def seed_only(s):
    np.random.seed(s)


def test_bad_seeds_and_bounds_raise_value_error():
    with pytest.raises(ValueError):
        njit(seed_only)(-1)
    with pytest.raises(ValueError):
        njit(seed_only)(2**32)

    def empty_range():
        return np.random.randint(5, 5)
    with pytest.raises(ValueError):
        empty_range()
    with pytest.raises(ValueError, match="high <= low"):
        njit(empty_range)()


def test_state_is_private_to_compiled_code():
    @njit
    def one():
        return np.random.random()
    np.random.seed(3)
    njit(seed_only)(3)
    expected = np.random.random()
    assert one() == expected  # compiled code's own stream, unaffected by NumPy's draw


def choices(s, p, items):
    np.random.seed(s)
    return (np.random.choice(10, 4, False, p), np.random.choice(10, (2, 3), True, p),
            np.random.choice(10, 7, p=p), np.random.choice(7, 3, replace=False),
            np.random.choice(items, 6), np.random.choice(items, (2, 2), False),
            np.random.choice(items, 3, True, p[:items.shape[0]] / p[:items.shape[0]].sum()),
            np.random.choice(10, 0), np.random.choice(10, 10, False, p + 0.01 / 1.1 - p / 11))


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1])
def test_choice_with_size_replace_and_p_is_numpys_stream(seed):
    p = np.arange(10) / 45.0
    items = np.linspace(-1, 1, 5)
    want = choices(seed, p, items)
    got = njit(choices)(seed, p, items)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w), (g, w)
    drawn = got[0]
    assert len(set(drawn.tolist())) == drawn.size                  # no repeats
    assert 0 not in drawn                                          # p[0] == 0 is never drawn


def test_choice_frequencies_follow_p():
    @njit
    def counts(p, n):
        np.random.seed(11)
        return np.bincount(np.random.choice(4, n, True, p), minlength=4)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    n = 200_000
    observed = counts(p, n)
    chi2 = np.sum((observed - n * p) ** 2 / (n * p))
    assert chi2 < 16.3          # chi-square with 3 degrees of freedom: p-value 0.001


CHOICE_ERRORS = [
    (lambda: np.random.choice(0, 3), "a must be greater than 0"),
    (lambda: np.random.choice(np.empty(0), 3), "'a' cannot be empty"),
    (lambda: np.random.choice(3, 5, False), "larger sample than population"),
    (lambda: np.random.choice(3, 2, True, np.array([0.5, 0.5])), "must have same size"),
    (lambda: np.random.choice(3, 2, True, np.array([0.5, 0.6, -0.1])), "not non-negative"),
    (lambda: np.random.choice(3, 2, True, np.array([0.5, 0.6, 0.1])), "do not sum to 1"),
    (lambda: np.random.choice(3, 3, False, np.array([0.5, 0.5, 0.0])), "Fewer non-zero"),
    (lambda: np.random.choice(3, -1), "negative dimensions"),
]


@pytest.mark.parametrize("call, message", CHOICE_ERRORS)
def test_choice_errors_are_numpys(call, message):
    with pytest.raises(ValueError, match=message):
        call()
    with pytest.raises(ValueError, match=message):
        njit(call)()
