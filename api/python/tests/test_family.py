"""Families and samplers against `routelab sample` and `routelab bound
norm|window` (byte for byte at %.17g), and their bad inputs."""

import math

import numpy as np
import pytest

import routelab
from conftest import cli


def g17(x):
    return "%.17g" % x


@pytest.mark.parametrize("args", [
    dict(family="so2", d=64, block=31, eps=0.1, angles="uniform"),  # the worked example: 776903252
    dict(family="so2", d=16, block=-1, eps=0.01, angles="gauss", scale=0.5),
    dict(family="householder", d=8, block=-1, eps=0.01),
    dict(family="lazy-haar", d=8, block=-1, eps=0.001, p=0.25),
    dict(family="so2", d=8, block=0, eps=0.1, angles="constant"),  # never: inf
])
def test_window_and_norm_match_the_cli(args):
    a = dict(args)
    fam, d, block, eps = a.pop("family"), a.pop("d"), a.pop("block"), a.pop("eps")
    flags = ["--family", fam, "--d", d, "--block", block, "--eps", eps]
    for k, v in a.items():
        flags += ["--" + k, v]
    w = routelab.mixing_window(fam, d, block=block, eps=eps, **a)
    assert str(w) == cli("bound", "window", *flags).strip()
    n = routelab.family_norm(fam, d, block=block, **a)
    norm_flags = [f for i, f in enumerate(flags) if flags[i - 1] != "--eps" and f != "--eps"]
    assert g17(n) == cli("bound", "norm", *norm_flags).strip()


def test_the_worked_example_prints_the_cli_number():
    assert routelab.mixing_window("so2", d=64, block=31, eps=0.1, angles="uniform") == 776903252
    assert math.isinf(routelab.mixing_window("so2", d=8, block=0, eps=0.1, angles="constant"))


@pytest.mark.parametrize("fam,d,count,seed,flags", [
    ("haar", 4, 3, 7, {}),
    ("so2", 6, 4, 11, {"angles": "gauss", "scale": 0.5}),
    ("path", 3, 2, 5, {"beta": 1.5}),
    ("brownian", 4, 2, 1, {"sigma": 0.3}),
])
def test_sample_is_the_cli_byte_for_byte(fam, d, count, seed, flags):
    U = routelab.sample(fam, d, count, seed, **flags)
    assert U.shape == (count, d, d) and U.dtype == np.float64
    args = ["sample", "--family", fam, "--d", d, "--count", count, "--seed", seed, "--threads", 1]
    for k, v in flags.items():
        args += ["--" + k, v]
    mine = "".join(" ".join(g17(x) for x in M.reshape(-1)) + "\n" for M in U)
    assert mine == cli(*args)


def test_sample_does_not_depend_on_threads_and_haar_is_orthogonal():
    a = routelab.sample("haar", 8, 16, 3, threads=1)
    b = routelab.sample("haar", 8, 16, 3, threads=2)
    assert np.array_equal(a, b)
    for M in a:
        assert np.abs(M @ M.T - np.eye(8)).max() < 1e-12


@pytest.mark.parametrize("call", [
    lambda: routelab.sample("nosuch", 4, 1, 1),                 # unknown family
    lambda: routelab.sample("so2", 5, 1, 1),                    # so2 needs an even d
    lambda: routelab.sample("haar", 4, -1, 1),                  # negative count
    lambda: routelab.sample("haar", 4, 0, 1),
    lambda: routelab.sample("haar", 1, 1, 1),                   # d below the flag's range
    lambda: routelab.sample("haar", 4.5, 1, 1),                 # d not an integer
    lambda: routelab.sample("haar", 4, 1, -3),                  # a negative seed
    lambda: routelab.sample("haar", 4, 1, 1, threads=0),
    lambda: routelab.sample("so2", 4, 1, 1, angles="sideways"), # a choice that is none
    lambda: routelab.sample("path", 4, 1, 1, beta=3),           # beyond (0, 2]
    lambda: routelab.sample("path", 4, 1, 1, beta="x"),         # not a number
    lambda: routelab.sample("haar", 4, 1, 1, nosuch=1),         # an unknown flag
    lambda: routelab.mixing_window("so2", 64, block=40, eps=0.1),  # a block beyond d/2
    lambda: routelab.mixing_window("so2", 64, eps=1.5),         # eps outside (0, 1)
    lambda: routelab.mixing_window("haar", 8, block=0),         # --block is for SO(2) only
    lambda: routelab.family_norm(3, 8),                                # a family that is no name
])
def test_bad_inputs_raise_value_error_with_a_message(call):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) and "\n" not in str(e.value)
