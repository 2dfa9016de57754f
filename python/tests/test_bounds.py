"""The closed forms as functions of numpy arrays: a grid against a direct
loop of scalar calls, broadcasting, and the numbers of `routelab bound`."""

import math

import numpy as np
import pytest

import routelab
from conftest import cli


def g17(x):
    return "%.17g" % x


def test_farmass_on_a_grid_is_the_direct_loop_and_the_formula():
    lam = np.linspace(0, 6, 25)
    ml = np.array([1.0, 100.0, 65024.0])[:, None]
    grid = routelab.farmass_lower(ml, 8.0, lam)
    assert grid.shape == (3, 25)
    for i in range(3):
        for j in range(25):
            v = routelab.farmass_lower(float(ml[i, 0]), 8.0, float(lam[j]))
            assert isinstance(v, float) and grid[i, j] == v
            m, k, l = ml[i, 0], 8.0, lam[j]
            assert abs(v - m / (m + k * math.exp(2 * l))) <= 1e-15 * max(v, 1e-300) + 1e-300
    # the upper bound lies above, the half point is where the lower one is 1/2
    assert np.all(routelab.farmass_upper(ml, 8.0, lam) >= grid)
    half = routelab.farmass_half(8.0, lam)
    assert np.allclose(routelab.farmass_lower(half, 8.0, lam), 0.5, rtol=1e-12)


def test_grids_of_the_sphere_tails():
    d = np.array([8, 64, 512])[:, None]
    t = np.linspace(0, 1, 11)
    cap, exact = routelab.levy_tail(d, t), routelab.beta_tail(d, t)
    assert cap.shape == exact.shape == (3, 11)
    for i in range(3):
        for j in range(11):
            assert cap[i, j] == routelab.levy_tail(int(d[i, 0]), float(t[j]))
            assert cap[i, j] == min(1.0, 2 * math.exp(-d[i, 0] * t[j] ** 2 / 2)) or \
                abs(cap[i, j] - min(1.0, 2 * math.exp(-d[i, 0] * t[j] ** 2 / 2))) < 1e-15
    assert np.all(exact <= cap + 1e-15)  # the cap bound bounds the exact tail


@pytest.mark.parametrize("name,fn,flags", [
    ("farmass", lambda: routelab.farmass_lower(65024, 8, 2), ["--ml", 65024, "--k", 8, "--lambda", 2]),
    ("farmass-upper", lambda: routelab.farmass_upper(1000, 8, 1.5), ["--ml", 1000, "--k", 8, "--lambda", 1.5]),
    ("farmass-half", lambda: routelab.farmass_half(8, 2), ["--k", 8, "--lambda", 2]),
    ("alibi", lambda: routelab.alibi(65024, 8, 2, 0.0625), ["--ml", 65024, "--k", 8, "--lambda", 2,
                                                             "--slope", 0.0625]),
    ("alibi", lambda: routelab.alibi(65024, 8, 2, 0.0625, best=True),
     ["--ml", 65024, "--k", 8, "--lambda", 2, "--slope", 0.0625, "--best"]),
    ("levy", lambda: routelab.levy_tail(64, 0.3), ["--d", 64, "--t", 0.3]),
    ("levy-so", lambda: routelab.levy_so_tail(64, 0.3), ["--d", 64, "--t", 0.3]),
    ("beta-tail", lambda: routelab.beta_tail(64, 0.3), ["--d", 64, "--t", 0.3]),
    ("hoeffding", lambda: routelab.hoeffding(0.5, [0.1, 0.2]), ["--t", 0.5, "--a", "0.1,0.2"]),
    ("value-coherent", lambda: routelab.value_coherent(0.25, 3), ["--rho", 0.25, "--vnorm", 3]),
    ("window", lambda: routelab.window(0.99, 0.01), ["--norm", 0.99, "--eps", 0.01]),
    ("window", lambda: routelab.window(1.0, 0.1), ["--norm", 1, "--eps", 0.1]),
])
def test_the_cli_prints_the_same_number(name, fn, flags):
    v = fn()
    want = cli("bound", name, *flags).strip()
    assert (g17(v) if not math.isinf(v) else "inf") == want


def test_broadcast_shapes_and_scalars():
    assert isinstance(routelab.window(0.5, 0.1), float)
    w = routelab.window(np.array([0.0, 0.5, 1.0, np.nan]), 0.1)
    assert w[0] == 1 and w[1] == 4 and math.isinf(w[2]) and math.isnan(w[3])
    out = routelab.alibi(np.ones((2, 1, 1)) * 1000, [4, 8, 16], 1.0, np.array([0.0, 0.1])[:, None, None])
    assert out.shape == (2, 1, 3)
    with pytest.raises(ValueError):
        routelab.farmass_lower(np.ones(3), np.ones(4), 1.0)  # shapes that do not broadcast
    with pytest.raises(ValueError):
        routelab.levy_tail(np.array([8.5, 9.0]), 0.3)  # d must hold integers
    with pytest.raises(ValueError):
        routelab.levy_tail(2**40, 0.3)  # beyond a C int
    with pytest.raises(ValueError):
        routelab.hoeffding(0.5, [])
