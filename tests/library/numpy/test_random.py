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


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**32 - 1])
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
