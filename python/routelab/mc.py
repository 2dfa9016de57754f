"""The Monte Carlo kernels of the study with their seeds and thread counts
(include/routelab/mc.h; NOTES.md §1, §14).  Every result is the same bytes
for any thread count: route k draws from the random stream keyed by
(seed, stream, k) alone (NOTES.md §14.4).  The long calls (routes,
family_mean, moment2, farmass) run through _lib.call_long: Ctrl-C stops
them within about a second and raises KeyboardInterrupt."""

import ctypes
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import _lib as L
from .family import Family
from .family import family as _family

_grid = L.proto("rl_mc_route_grid", L.c_int, L.c_long, L.c_long, L.c_int, L.lptr, L.c_int, L.P(L.c_int),
                L.P(L.Err))
_case = L.proto("rl_mc_mixing_case", L.c_int, L.c_char_p, L.c_int, L.c_void_p, L.P(L.c_ulong), L.P(L.Err))
_routes = L.proto("rl_mc_routes", L.c_int, L.c_void_p, L.lptr, L.c_int, L.c_long, L.c_ulong, L.c_ulong,
                  L.c_int, *([L.dptr] * 9), L.P(L.Err))
_mean = L.proto("rl_mc_family_mean", L.c_int, L.c_void_p, L.c_long, L.c_ulong, L.c_ulong, L.dptr, L.dptr,
                L.P(L.Err))

_sizeof = L.proto("rl_family_sizeof", L.c_size_t)
_moment2 = L.proto("rl_mc_moment2", L.c_int, L.c_void_p, L.c_long, L.c_ulong, *([L.dptr] * 4), L.P(L.Err))


def route_grid(nmax, dense_to=256, per_octave=8):
    """The route lengths of `routelab mixing`: n = 1 .. dense_to, then about
    per_octave lengths per doubling up to nmax (always included); an int64
    array."""
    nmax = L.as_int("nmax", nmax, 1, L.LONG_MAX)
    dense_to = L.as_int("dense_to", dense_to, 0, 10**8)
    per_octave = L.as_int("per_octave", per_octave, 1, 1024)
    cap = dense_to + 64 * per_octave + 8
    g = np.empty(cap, dtype=np.int64)
    n = ctypes.c_int()
    L.call(_grid, "rl_mc_route_grid", nmax, dense_to, per_octave, g.ctypes.data_as(L.lptr), cap,
           ctypes.byref(n))
    return g[: n.value].copy()


class _CaseFamily(Family):
    """A family as a case of routelab mixing's sweep (its parameters set by
    the registry) with the case's random-stream domain; usable wherever a
    Family is (sample, mixing_window, ...)."""

    def __init__(self, label, d):
        self.name, self.d, self.params = label, L.as_int("d", d), {}
        self._buf = ctypes.create_string_buffer(L.need(_sizeof, "rl_family_sizeof")())
        s = ctypes.c_ulong()
        L.call(_case, "rl_mc_mixing_case", label.encode(), self.d, self._buf, ctypes.byref(s))
        self.stream = s.value

    def __repr__(self):
        return "mixing_case(%r, d=%d)" % (self.name, self.d)


def mixing_case(label, d):
    """The case `label` of `routelab mixing`'s family sweep at dimension d
    ("haar", "so2-uniform", "path-beta1", ...; a registry name takes its
    first case): (family, stream), to pass to routes() to get the numbers
    of that command's mixing_families.tsv."""
    if not isinstance(label, str):
        raise ValueError("label must be a str, got %r" % (label,))
    c = _CaseFamily(label, d)
    return c, c.stream


@dataclass
class Routes:
    """Route Monte Carlo at the lengths n (NOTES.md §1.2, mc/routes.h):
    tr = mean tr(P_n)/d (E[P_n] = cI), op = ||mean P_n||_op, coh = mean
    q^T P_n q, sq = mean (q^T P_n q)^2 with their standard errors *_se; for
    SO(2) families chi[g, b] = mean e^{i Phi_b} (complex) and chi_se[g, b]
    the SE of its modulus (None otherwise)."""

    n: np.ndarray
    reps: int
    tr: np.ndarray
    tr_se: np.ndarray
    op: np.ndarray
    coh: np.ndarray
    coh_se: np.ndarray
    sq: np.ndarray
    sq_se: np.ndarray
    chi: Optional[np.ndarray]
    chi_se: Optional[np.ndarray]

    @property
    def norm(self):
        """The mixing curve: |tr(P_n)|/d for E[M] = cI families, max_b |chi_b|
        for SO(2) ones (mixing_families.tsv's `norm` column)."""
        return np.abs(self.chi).max(axis=1) if self.chi is not None else np.abs(self.tr)


def routes(family, grid, reps, seed, stream=0, threads=1, d=None, **params):
    """Monte Carlo of route products P_n = M_n ... M_1 of a step family:
    `reps` routes drawn up to max(grid), statistics at each n in grid
    (E[P_n] = E[M]^n for i.i.d. steps, NOTES.md §1.1).  family: a registry
    name (with d and the CLI's family flags), a Family, or the first item
    of mixing_case(...) (then stream is its stream).  With the case, grid,
    reps and seed of `routelab mixing --families F --seed S` the numbers are
    those of its mixing_families.tsv.  Returns a Routes."""
    if isinstance(family, tuple):  # mixing_case(...)'s pair
        family, stream = family
    if not isinstance(family, (str, Family)):
        raise ValueError("routes: family must be a registry name, a Family or mixing_case(...)'s pair, got %r"
                         % (family,))
    if isinstance(family, (str, Family)):  # a Family's d must be d's, when given
        family = _family(family, d, **params)
    g = L.lengths("grid", grid)
    reps = L.as_int("reps", reps, 1, 10**9)
    seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
    stream = L.as_int("stream", stream, 0, L.ULONG_MAX)
    threads = L.as_int("threads", threads, 1, 1024)
    ng = g.size
    nb = family.d // 2
    cols = [L.empty("routes", ng) for _ in range(7)]
    # the block means are written for SO(2) families only: NaN marks "not written"
    chi = np.full((ng, nb), np.nan, dtype=np.complex128)
    chi_se = np.full((ng, nb), np.nan)
    L.call_long(_routes, "rl_mc_routes", family.ptr, g.ctypes.data_as(L.lptr), ng, reps, seed, stream, threads,
           *[L.dbuf(c) for c in cols], chi.ctypes.data_as(L.dptr), L.dbuf(chi_se))
    tr, tr_se, op, coh, coh_se, sq, sq_se = cols
    so2 = nb > 0 and not np.isnan(chi_se).all()
    return Routes(g, reps, tr, tr_se, op, coh, coh_se, sq, sq_se, chi if so2 else None, chi_se if so2 else None)


def family_mean(family, n, seed, stream=0, d=None, **params):
    """Monte Carlo estimate of ||E M|| from n steps (stream `stream` of seed):
    |mean tr(M)/d| (E[M] = cI) or max_b |mean e^{i theta_b}| (SO(2)), with
    its standard error: (norm, se).  NOTES.md §14.3 (the estimate `routelab
    mixing` uses for a family with no closed form)."""
    if isinstance(family, tuple):
        family, stream = family
    if not isinstance(family, (str, Family)):
        raise ValueError("family_mean: family must be a registry name, a Family or mixing_case(...)'s pair, got %r"
                         % (family,))
    family = _family(family, d, **params)
    n = L.as_int("n", n, 2, 10**10)
    seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
    stream = L.as_int("stream", stream, 0, L.ULONG_MAX)
    v, se = ctypes.c_double(), ctypes.c_double()
    L.call_long(_mean, "rl_mc_family_mean", family.ptr, n, seed, stream, ctypes.byref(v), ctypes.byref(se))
    return v.value, se.value


@dataclass
class Moment2:
    """The second-moment rate estimate (NOTES.md §2.4): rate = ||Pi T_hat Pi||_op
    of T(X) = E[M X M^T] on the complement of the fixed space, se its
    jackknife SE (20 batches), noise the noise floor, mean_norm ||mean of the
    sampled M||_op, n the steps drawn."""

    rate: float
    se: float
    noise: float
    mean_norm: float
    n: int


def moment2(family, d, samples, seed, **params):
    """Estimate T(X) = E[M X M^T] from `samples` steps of a family (batch j
    from stream j of seed) and its rate on the complement of the fixed space
    (NOTES.md §2.4): the numbers of the "# rate estimate" line of `routelab
    bound norm2 --family F --d D --samples N --seed S [flags]`.  d <= 16."""
    f = _family(family, d, **params)
    n = L.as_int("samples", samples, 20, 10**8)
    seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
    out = [ctypes.c_double() for _ in range(4)]
    L.call_long(_moment2, "rl_mc_moment2", f.ptr, n, seed, *[ctypes.byref(o) for o in out])
    return Moment2(*[o.value for o in out], n)

_fcase = L.proto("rl_mc_farmass_case", L.c_int, L.c_char_p, L.c_int, L.c_void_p, L.P(L.c_int), L.P(L.c_ulong),
                 L.P(L.Err))
_farmass = L.proto("rl_mc_farmass", L.c_int, L.c_void_p, L.c_int, L.c_ulong, L.c_int, L.dptr, L.c_int, L.dptr,
                   L.c_int, L.lptr, L.c_int, L.c_long, L.c_long, L.c_ulong, L.c_int, *([L.dptr] * 5), L.P(L.Err))


class _FarmassCase(Family):
    """A case of `routelab farmass`'s sweep: its family, whether it is NoPE
    (none: no transport) and its random-stream domain."""

    def __init__(self, label, d):
        self.name, self.d, self.params = label, L.as_int("d", d), {}
        self._buf = ctypes.create_string_buffer(L.need(_sizeof, "rl_family_sizeof")())
        none, s = ctypes.c_int(), ctypes.c_ulong()
        L.call(_fcase, "rl_mc_farmass_case", label.encode(), self.d, self._buf, ctypes.byref(none), ctypes.byref(s))
        self.none, self.stream = bool(none.value), s.value

    def __repr__(self):
        return "farmass_case(%r, d=%d)" % (self.name, self.d)


def farmass_case(label, d):
    """The case `label` of `routelab farmass`'s sweep at dimension d ("none"
    for NoPE, "householder", "so2-circle", "so2-study", ...), to pass to
    farmass() for the numbers of that command's farmass.tsv."""
    if not isinstance(label, str):
        raise ValueError("label must be a str, got %r" % (label,))
    return _FarmassCase(label, d)


# `routelab farmass --preset quick`'s sizes (experiments/farmass.c, NOTES.md §3.2)
FARMASS_SLOPES = tuple(2.0 ** -h for h in range(1, 9))


@dataclass
class Farmass:
    """The far-mass Monte Carlo (NOTES.md §3.2): rho[r, g, l, c] = rho_D of
    replicate r at length L = grid[g], logit scale lam[l], configuration c
    (0: no bias; c >= 1: ALiBi slope slopes[c - 1]); rho_mean / rho_se over
    replicates; mom[r] = mean of (s, s^2) over delta >= far_from; srange[r, g]
    = (max near score, min far score, max |score|)."""

    grid: np.ndarray
    lam: np.ndarray
    slopes: np.ndarray
    k: int
    rho: np.ndarray
    rho_mean: np.ndarray
    rho_se: np.ndarray
    mom: np.ndarray
    srange: np.ndarray


def farmass(family, grid, reps, seed, k=16, lam=(1.0, 2.0, 4.0), slopes=FARMASS_SLOPES, far_from=1024,
            stream=0, none=False, threads=1, d=None, **params):
    """The stylized far-mass model of claim 3 (NOTES.md §3.2, mc/farmass_walk.h):
    every key equals the unit query q, the key at distance delta is seen
    through the route P_delta, score s = q^T P_delta q, logits lam * s, K
    near keys; rho_D = F / (F + N) of the softmax over L = K + M keys, against
    the bound M / (M + k e^{2 lam}) (NOTES.md §3.1; k near keys: `--k` of
    `routelab bound farmass`).  family: a name (with d
    and flags), a Family, or farmass_case(label, d) (then its stream and NoPE
    flag).  With farmass_case, the defaults and reps = 32, the grid's rows are
    `routelab farmass --seed S`'s farmass.tsv.  Returns a Farmass."""
    if isinstance(family, _FarmassCase):
        stream, none = family.stream, family.none
    elif isinstance(family, (str, Family)):
        family = _family(family, d, **params)
    else:
        raise ValueError("farmass: family must be a registry name, a Family or farmass_case(...), got %r" % (family,))
    g = L.lengths("grid", grid)
    lam = np.ascontiguousarray(np.atleast_1d(np.asarray(lam, dtype=np.float64)))
    sl = np.ascontiguousarray(np.atleast_1d(np.asarray(slopes, dtype=np.float64)))
    if lam.ndim != 1 or sl.ndim != 1:
        raise ValueError("farmass: lam and slopes must be 1-D")
    k = L.as_int("k", k, 1, L.INT_MAX)
    reps = L.as_int("reps", reps, 1, 10**9)
    seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
    stream = L.as_int("stream", stream, 0, L.ULONG_MAX)
    far_from = L.as_int("far_from", far_from, 1, L.LONG_MAX)
    threads = L.as_int("threads", threads, 1, 1024)
    ng, nl, nc = g.size, lam.size, 1 + sl.size
    rho = L.empty("farmass", (reps, ng, nl, nc))
    mean, se = L.empty("farmass", (ng, nl, nc)), L.empty("farmass", (ng, nl, nc))
    mom, srange = L.empty("farmass", (reps, 2)), L.empty("farmass", (reps, ng, 3))
    L.call_long(_farmass, "rl_mc_farmass", family.ptr, int(bool(none)), stream, k, L.dbuf(lam), nl, L.dbuf(sl),
           sl.size, g.ctypes.data_as(L.lptr), ng, far_from, reps, seed, threads, L.dbuf(rho), L.dbuf(mean),
           L.dbuf(se), L.dbuf(mom), L.dbuf(srange))
    return Farmass(g, lam, sl, k, rho, mean, se, mom, srange)
