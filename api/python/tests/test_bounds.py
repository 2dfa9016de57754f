"""The closed forms as functions of numpy arrays: a grid against a direct
loop of scalar calls, broadcasting, and the numbers of `routelab bound`."""

import ctypes
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


# ---- routelab's mix-or-stay condition ----------------------------------------------

def _bound_lines(out):
    """`routelab bound mixstay`'s block lines (block, omega, |chi(1)|, lo, hi, far, near) and its number."""
    rows = [l[2:].split() for l in out.splitlines() if l.startswith("# ") and l[2:3].isdigit()]
    return rows, out.strip().splitlines()[-1]


@pytest.mark.parametrize("flags,kw", [
    (["--angles", "drift", "--d", 16, "--ctx", 32, "--harmonics", 256], dict(angles="drift", d=16, ctx=32, harmonics=256)),
    (["--angles", "uniform", "--d", 16, "--ctx", 32, "--harmonics", 256, "--base", 935.66898681335363],
     dict(angles="uniform", d=16, ctx=32, harmonics=256, base=935.66898681335363)),
    (["--angles", "constant", "--d", 8, "--ctx", 16, "--length", 300], dict(angles="constant", d=8, ctx=16, length=300)),
    (["--angles", "gauss", "--d", 8, "--ctx", 16, "--mult", 4, "--scale", 0.5, "--harmonics", 64],
     dict(angles="gauss", d=8, ctx=16, mult=4, scale=0.5, harmonics=64)),
    (["--angles", "pm", "--d", 12, "--ctx", 8], dict(angles="pm", d=12, ctx=8)),
])
def test_mixstay_is_the_clis(flags, kw):
    m = routelab.mixstay(**kw)
    rows, last = _bound_lines(cli("bound", "mixstay", *flags))
    assert last == g17(m.score)
    assert len(rows) == m.d // 2 == len(m.lo)
    for b, r in enumerate(rows):
        assert int(r[0]) == b
        assert r[1] == "%.6g" % m.omega[b]
        assert r[3:5] == ["%.6g" % m.lo[b], "%.6g" % m.hi[b]]
        assert (int(r[5]), int(r[6])) == (m.far[b], m.near[b])
    assert np.all(m.lo <= m.hi) and np.all(m.hi <= 0.5) and np.all(m.lo >= 0)
    assert m.score == pytest.approx(m.lo.mean(), abs=1e-15) and m.score_hi == pytest.approx(m.hi.mean(), abs=1e-15)
    assert m.exact and m.far_lengths == m.length - m.ctx
    assert np.all((m.far >= m.ctx) & (m.far < m.length) & (m.near >= 0) & (m.near < m.ctx))


def test_mixstay_defaults_are_the_clis():
    """The Python defaults (harmonics, mult) are the command's: the same numbers with no flag given."""
    m = routelab.mixstay("drift", d=8, ctx=16)
    _, last = _bound_lines(cli("bound", "mixstay", "--angles", "drift", "--d", 8, "--ctx", 16))
    assert last == g17(m.score) and m.length == 16 * routelab.bounds.MIXSTAY_MULT
    assert m.harmonics == routelab.bounds.MIXSTAY_HARMONICS


def test_zero_mean_and_drift_scores_differ():
    """Equal |chi| (the study's condition cannot tell them apart), clearly different scores:
    the brackets do not overlap (the CPU grid's head, T = 64, L = 16T)."""
    u = routelab.mixstay("uniform", d=32, ctx=64, base=935.66898681335363)
    p = routelab.mixstay("drift", d=32, ctx=64, base=935.66898681335363)
    assert u.score_hi < p.score
    assert np.all(u.hi[8:] < p.lo[8:])


def test_watson_distance_closed_values_and_broadcasting():
    n = 2048
    k = np.arange(1, n + 1)
    lo, hi = routelab.watson_distance(np.ones(n), np.zeros(n))  # a point mass against the uniform law
    assert lo <= 1 / math.sqrt(12) <= hi
    x = np.array([0.1, 0.25, 0.5])[:, None]
    lo, hi = routelab.watson_distance(np.ones(n), np.exp(2j * np.pi * k * x))  # two point masses
    want = np.sqrt(x[:, 0] * (1 - x[:, 0]))
    assert lo.shape == (3,) and np.all(lo <= want + 1e-14) and np.all(want <= hi + 1e-14)
    for i in range(3):  # each point is the scalar call
        assert routelab.watson_distance(np.ones(n), np.exp(2j * np.pi * k * x[i, 0])) == (lo[i], hi[i])
    assert routelab.watson_distance(np.exp(0.3j * k), np.exp(0.3j * k))[0] == 0.0
    with pytest.raises(ValueError, match="phi_nu"):
        routelab.watson_distance(np.ones(4), np.array([0, 0, 1.5, 0]))
    with pytest.raises(ValueError):
        routelab.watson_distance(np.ones(4), np.array([0, np.nan, 0, 0]))
    with pytest.raises(ValueError):
        routelab.watson_distance(np.ones(4), np.zeros(5))
    with pytest.raises(ValueError):
        routelab.watson_distance(np.ones((2, 4)), np.zeros((3, 4)))  # leading shapes that do not broadcast


def test_mixstay_block_is_the_heads_block():
    """One block from its chi (numpy's sin(kw)/(kw), the uniform law) gives the head's D_b at that block
    (chi to an ulp: 1e-12), and its curve's maximum is D_b; the grid is the command's."""
    m = routelab.mixstay("uniform", d=16, ctx=32, harmonics=256)
    k = np.arange(1, 257)
    for b in (0, 5, 7):
        w = m.omega[b]
        lo, hi, far, near, cv = routelab.mixstay_block(np.sin(k * w) / (k * w), 32, curve=True)
        assert abs(lo - m.lo[b]) < 1e-12 and abs(hi - m.hi[b]) < 1e-12
        assert abs(cv.max() - lo) < 1e-15
        g = routelab.mixstay_grid(32, 512)
        assert cv.shape == g.shape and g[0] == 32 and g[-1] == 511
    assert len(routelab.mixstay_grid(512, 8192)) < 8192 - 512  # a stated grid beyond 2^20 pairs


def test_mixstay_refuses_bad_inputs():
    with pytest.raises(ValueError, match="angles"):
        routelab.mixstay("wobbly")
    with pytest.raises(ValueError):
        routelab.mixstay(d=7)
    with pytest.raises(ValueError):
        routelab.mixstay(ctx=0)
    with pytest.raises(ValueError, match="length L"):
        routelab.mixstay(ctx=64, length=64)
    with pytest.raises(ValueError):
        routelab.mixstay(ctx=64, mult=2, length=300)
    with pytest.raises(ValueError):
        routelab.mixstay(harmonics=0)
    with pytest.raises(ValueError):
        routelab.mixstay(base=float("nan"))
    with pytest.raises(ValueError, match="pairs"):
        routelab.mixstay(d=2, ctx=10**6, mult=2)
    with pytest.raises(ValueError):
        routelab.mixstay_block(np.ones((2, 3)), 4)
    with pytest.raises(ValueError):
        routelab.mixstay_block(np.full(8, 2.0), 4)
    with pytest.raises(ValueError):
        routelab.mixstay_grid(5, 5)
    assert ctypes.sizeof(routelab.bounds._Block) == routelab.bounds._c["rl_mixstay_block_sizeof"]()
