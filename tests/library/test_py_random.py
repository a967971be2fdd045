"""Python's `random` module inside compiled code: after random.seed(s) in compiled code,
random, uniform, gauss and randint give the numbers CPython's `random` gives after the same
seed, bit for bit; the state is neither CPython's nor np.random's."""
import random

import numpy as np
import pytest

from kiln import njit
from kiln.errors import TypingError


def draws(s, n):
    random.seed(s)
    out = [random.random() for _ in range(n)]    # past 624 words: the state regenerates
    out += [random.gauss(1.0, 2.0), random.gauss(), random.gauss(0, 3), random.gauss(),
            random.uniform(-1, 3), random.uniform(2.5, 0.5)]
    out += [float(random.randint(-5, 1000)) for _ in range(50)]
    out += [float(random.randint(7, 7)), float(random.randint(0, 2**40)),
            float(random.randint(-2**61, 2**62)), random.random()]
    return out


SEEDS = [0, 1, 12345, -7, 2**32 - 1, 2**32 + 5, 2**63 - 1, -2**63]


def test_same_stream_as_cpython_after_seed():
    compiled = njit(draws)
    for seed in SEEDS:
        assert compiled(seed, 700) == draws(seed, 700), seed


def test_own_state():
    """Seeding np.random or CPython's random does not move kiln's random, nor back."""
    @njit
    def mixed(s):
        random.seed(s)
        np.random.seed(s + 1)
        a = random.random()
        np.random.random()
        return a, random.random()

    random.seed(99)
    before = random.getstate()
    got = mixed(3)
    assert random.getstate() == before
    random.seed(3)
    assert got == (random.random(), random.random())


def test_errors():
    @njit
    def randint(a, b):
        return random.randint(a, b)

    for a, b in ((3, 2), (0, -1)):
        with pytest.raises(ValueError):
            random.randint(a, b)
        with pytest.raises(ValueError):
            randint(a, b)
    with pytest.raises(OverflowError):    # CPython's answer is past int64
        randint(-2**63, 2**63 - 1)

    @njit
    def seed(s):
        random.seed(s)

    with pytest.raises(TypingError, match="seed"):
        seed(1.5)
