"""The Monte Carlo kernels: the same numbers as the commands for the same
seed and flags.

`routelab bound norm2 --samples N --seed S` prints its estimate at once, so
that line is compared against a fresh run.  `routelab mixing` takes minutes
(its study half at d = 64 and 96), so its route statistics are compared with
the command's own output committed in grids/theory/mixing_families.tsv
(`routelab reproduce --preset cpu`: the quick mixing sweep, d = 16, 1024
routes, seed 42; docs/library.md#library has the check of a fresh `routelab mixing
--families so2` run, all 320 rows of so2-uniform the same).  A route's
statistics at n do not depend on the lengths after n, so a prefix of a long
grid gives the command's numbers at those lengths."""

import os

import numpy as np
import pytest

import routelab
from conftest import ROOT, cli, interrupt_child

TSV = os.path.join(ROOT, "grids", "theory", "mixing_families.tsv")


@pytest.mark.parametrize("fam,d,n,seed,flags", [
    ("householder", 4, 2000, 3, {}),
    ("haar", 3, 500, 1, {}),
    ("so2", 8, 1000, 7, {"angles": "gauss"}),
    ("lazy-haar", 4, 400, 2, {"p": 0.25}),
])
def test_moment2_is_the_rate_estimate_line_of_bound_norm2(fam, d, n, seed, flags):
    m = routelab.moment2(fam, d, n, seed, **flags)
    args = ["bound", "norm2", "--family", fam, "--d", d, "--samples", n, "--seed", seed]
    for k, v in flags.items():
        args += ["--" + k, v]
    line = [ln for ln in cli(*args).splitlines() if ln.startswith("# rate estimate:")]
    assert line, "no rate estimate line"
    mine = ("# rate estimate: %.6g +- %.2g (jackknife SE, 20 batches), noise floor %.2g, N = %d; "
            "||mean M|| = %.4g" % (m.rate, m.se, m.noise, m.n, m.mean_norm))
    assert mine == line[0]


def _rows():
    rows = {}
    with open(TSV) as f:
        head = f.readline().rstrip("\n").split("\t")
        for ln in f:
            r = dict(zip(head, ln.rstrip("\n").split("\t")))
            rows.setdefault(r["family"], []).append(r)
    return rows


@pytest.mark.parametrize("label,first", [
    ("haar", None), ("haar-so", None), ("householder", None), ("path-beta1", None),
    ("lazy-haar-p0.1", None), ("cayley-s0.1", None), ("so2-uniform", 64), ("so2-gauss", 48),
])
def test_routes_are_the_mixing_commands_numbers(label, first):
    rows = _rows()[label][:first]
    grid = [int(r["n"]) for r in rows]
    case = routelab.mixing_case(label, 16)
    m = routelab.routes(case, grid, int(rows[0]["reps"]), 42)
    for i, r in enumerate(rows):
        got = {"norm": "%.6g" % m.norm[i], "opnorm_svd": "%.6g" % m.op[i], "coherence": "%.6g" % m.coh[i],
               "coherence_se": "%.3g" % m.coh_se[i], "sq": "%.6g" % m.sq[i], "sq_se": "%.3g" % m.sq_se[i]}
        if m.chi is None:
            got["norm_se"] = "%.3g" % m.tr_se[i]
        else:
            got["b0"] = "%.6g" % abs(m.chi[i, 0])
            got["b0_se"] = "%.3g" % m.chi_se[i, 0]
            got["b0_phase"] = "%.6g" % np.angle(m.chi[i, 0])
        for k, v in got.items():
            assert v == r[k], "%s n = %s: %s %s, the command wrote %s" % (label, r["n"], k, v, r[k])


def test_route_grid_is_the_commands_and_threads_change_nothing():
    g = routelab.route_grid(65536)
    assert [int(r["n"]) for r in _rows()["so2-uniform"]] == list(g)
    case = routelab.mixing_case("householder", 8)
    a = routelab.routes(case, g[:40], 64, 5, threads=1)
    b = routelab.routes(case, g[:40], 64, 5, threads=2)
    for f in ("tr", "tr_se", "op", "coh", "coh_se", "sq", "sq_se"):
        assert np.array_equal(getattr(a, f), getattr(b, f))
    # a family by name: E[P_n] = E[M]^n, Householder's E[M] = (1 - 2/d) I
    r = routelab.routes("householder", [1, 2, 3], 4096, 9, d=8)
    assert np.all(np.abs(r.tr - 0.75 ** np.array([1, 2, 3])) < 6 * r.tr_se + 1e-12)


def test_a_mixing_case_is_a_family():
    case, stream = routelab.mixing_case("householder", 8)
    assert routelab.family_norm(case, 8) == routelab.family_norm("householder", 8)
    assert np.array_equal(routelab.sample(case, 8, 3, 1), routelab.sample("householder", 8, 3, 1))
    assert stream == routelab.mixing_case("householder", 16)[1]  # the case's domain, not d's


def test_family_mean_estimates_the_closed_form():
    v, se = routelab.family_mean("so2", 2000, 1, d=8, angles="uniform")
    assert abs(v - routelab.family_norm("so2", 8, angles="uniform")) < 6 * se + 1e-12


@pytest.mark.parametrize("call", [
    lambda: routelab.mixing_case("nosuch", 16),
    lambda: routelab.routes(routelab.mixing_case("haar", 8), [3, 2], 16, 1),   # not ascending
    lambda: routelab.routes(routelab.mixing_case("haar", 8), [0, 1], 16, 1),   # n = 0
    lambda: routelab.routes(routelab.mixing_case("haar", 8), [1, 2], 0, 1),    # no routes
    lambda: routelab.routes("haar", [1, 2], 16, 1),                            # a name needs d
    lambda: routelab.routes("haar", [[1, 2]], 16, 1, d=4),                     # a 2-D grid
    lambda: routelab.routes("haar", [1.5, 2], 16, 1, d=4),                     # lengths not integers
    lambda: routelab.moment2("haar", 32, 100, 1),                              # d beyond 16
    lambda: routelab.moment2("haar", 4, 5, 1),                                 # fewer than 20 steps
    lambda: routelab.route_grid(0),
])
def test_bad_inputs_raise(call):
    with pytest.raises(ValueError):
        call()


FTSV = os.path.join(ROOT, "grids", "theory", "farmass.tsv")


@pytest.mark.parametrize("label", ["none", "householder", "so2-circle", "so2-study"])
def test_farmass_is_the_farmass_commands_table(label):
    """`routelab farmass`'s farmass.tsv (committed, seed 42, quick preset) at
    the lengths up to 4096 (a prefix of its grid: the walk's far mass at L
    does not depend on the lengths after L): mean, SE and minimum over the
    replicates of rho_D at every lambda and ALiBi slope."""
    with open(FTSV) as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(head, ln.rstrip("\n").split("\t"))) for ln in f]
    rows = [r for r in rows if r["family"] == label and int(r["L"]) <= 4096]
    grid = sorted({int(r["L"]) for r in rows})
    fm = routelab.farmass(routelab.farmass_case(label, 64), grid, int(rows[0]["reps"]), 42)
    lam, sl = list(fm.lam), [0.0] + list(fm.slopes)
    for r in rows:
        g, l, c = grid.index(int(r["L"])), lam.index(float(r["lambda"])), sl.index(float(r["slope"]))
        got = ("%.9g" % fm.rho_mean[g, l, c], "%.3g" % fm.rho_se[g, l, c], "%.9g" % fm.rho[:, g, l, c].min(),
               "%.9g" % fm.rho[:, g, l, c].max())
        assert got == (r["rho"], r["rho_se"], r["rho_min"], r["rho_max"]), (label, r["L"], r["lambda"], r["slope"])
        # every replicate respects the bound of docs/theory/claim3-farmass.md#far-mass-closed-forms
        # (rotation only)
        if c == 0:
            assert fm.rho[:, g, l, c].min() >= routelab.farmass_lower(int(r["L"]) - 16, 16, lam[l]) - 1e-12


def test_farmass_threads_and_bad_inputs():
    case = routelab.farmass_case("householder", 16)
    a = routelab.farmass(case, [32, 64, 128], 8, 3, threads=1)
    b = routelab.farmass(case, [32, 64, 128], 8, 3, threads=2)
    assert np.array_equal(a.rho, b.rho) and np.array_equal(a.mom, b.mom, equal_nan=True)
    for call in (lambda: routelab.farmass(case, [16, 64], 8, 3),        # L must exceed K = 16
                 lambda: routelab.farmass(case, [64, 32], 8, 3),        # not ascending
                 lambda: routelab.farmass(case, [64], 0, 3),            # no replicates
                 lambda: routelab.farmass(case, [64], 8, 3, lam=[-1.0]),
                 lambda: routelab.farmass(case, [64], 8, 3, slopes=[[0.5]]),
                 lambda: routelab.farmass_case("nosuch", 16)):
        with pytest.raises(ValueError):
            call()


def test_the_memory_check_reads_the_address_space_limit():
    """Under `ulimit -v 2000000` routes(...) needing 3.9 GiB once passed the memory check
    (the machine has more) and the allocation's "out of memory" ended the interpreter; now the check
    reads RLIMIT_AS and the call is a ValueError naming the limit."""
    import resource
    import subprocess
    import sys
    code = ("import routelab\n"
            "try:\n"
            "    routelab.routes('haar', [1, 2], 10**6, 1, d=64)\n"
            "except ValueError as e:\n"
            "    print('ValueError', 'ulimit -v' in str(e))\n"
            "print('alive')\n")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2_000_000 * 1024, 2_000_000 * 1024))

    p = subprocess.run([sys.executable, "-c", code], preexec_fn=limit, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["ValueError", "True", "alive"], p.stdout + p.stderr


def test_ctrl_c_stops_a_long_routes_call_within_a_second():
    """routelab.routes of 1e5 routes of 1e6 steps runs for hours in C; SIGINT (Ctrl-C) raises
    KeyboardInterrupt within about a second (the kernels read the library's cancel request between
    chunks of routes and every 1024 steps of one), and the library is usable after it.  In a child
    interpreter, as test_model.py's test of Model.eval, with the time measured from the signal."""
    # the child installs Python's Ctrl-C handler itself (a background run starts it ignored)
    code = r'''
import signal, time, numpy as np, routelab
signal.signal(signal.SIGINT, signal.default_int_handler)
small = routelab.routes("haar", [1, 8], 64, seed=3, d=8, threads=2)
print("started", flush=True)
t0 = time.monotonic()
try:
    routelab.routes("haar", [1000, 1000000], 100000, seed=3, d=8, threads=2)
    print("finished %.1f" % (time.monotonic() - t0), flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    # the request was cleared: a short call runs, with the same bytes as before
    again = routelab.routes("haar", [1, 8], 64, seed=3, d=8, threads=2)
    print("usable" if again.tr.tobytes() == small.tr.tobytes() else "changed", flush=True)
'''
    line, dt, rest, rc = interrupt_child(code, wait=1.0)
    assert line == "interrupted", line
    assert dt < 1.5, "KeyboardInterrupt %.2f s after SIGINT" % dt
    assert "usable" in rest and rc == 0, rest
