"""The Monte Carlo kernels of the study with their seeds and thread counts
(api/include/routelab/mc.h; docs/theory/claim1-mixing.md#claim-mixing, docs/sampling.md#sampling).
Every result is the same bytes for any thread count: route k draws from the random stream keyed by
(seed, stream, k) alone (docs/sampling.md#mc-sweep).  The long calls (routes,
family_mean, moment2, farmass) run through _lib.call_long: Ctrl-C stops
them within about a second and raises KeyboardInterrupt."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Optional

import numpy as np
import numpy.typing as npt

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


def route_grid(nmax: int, dense_to: int = 256, per_octave: int = 8) -> npt.NDArray[np.int64]:
    """The route lengths of `routelab mixing`.

    n = 1 .. dense_to, then about per_octave lengths per doubling up to
    nmax (always included), ascending.  rl_mc_route_grid.

    Parameters
    ----------
    nmax : int
        The longest route (steps), >= 1.
    dense_to : int, default 256
        Every length up to this one (steps), in [0, 1e8].
    per_octave : int, default 8
        Lengths per doubling beyond dense_to, in [1, 1024].

    Returns
    -------
    ndarray of int64, shape (n,)
        The route lengths (steps), ascending.

    Raises
    ------
    ValueError
        An argument not an integer or out of range.
    RuntimeError
        The library lacks rl_mc_route_grid.

    Examples
    --------
    >>> route_grid(10, dense_to=4, per_octave=2)
    array([ 1,  2,  3,  4,  6,  8, 10])
    """
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


def mixing_case(label: str, d: int) -> tuple[Family, int]:
    """A case of `routelab mixing`'s family sweep, with its random-stream domain.

    The case `label` at dimension d ("haar", "so2-uniform", "path-beta1",
    ...; a registry name takes its first case): (family, stream), to pass
    to routes() to get the numbers of that command's mixing_families.tsv.
    rl_mc_mixing_case.

    Parameters
    ----------
    label : str
        The sweep case's label, or a registry name.
    d : int
        Dimension of the step matrices, 2..4096.

    Returns
    -------
    family : Family
        The case's family (its parameters set by the registry), usable
        wherever a Family is (sample, mixing_window, ...).
    stream : int
        Its random-stream domain.

    Raises
    ------
    ValueError
        label not a str, an unknown label, or d out of range.
    RuntimeError
        The library lacks rl_mc_mixing_case.

    Examples
    --------
    >>> mixing_case('haar', 8)
    (mixing_case('haar', d=8), 100)
    """
    if not isinstance(label, str):
        raise ValueError("label must be a str, got %r" % (label,))
    c = _CaseFamily(label, d)
    return c, c.stream


@dataclass
class Routes:
    """Route Monte Carlo at the lengths n (docs/theory/claim1-mixing.md#mixing-experiment,
    mc/routes.h): tr = mean tr(P_n)/d (E[P_n] = cI), op = ||mean P_n||_op, coh = mean
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
    def norm(self) -> npt.NDArray[np.float64]:
        """The mixing curve at each length of the grid.

        |tr(P_n)|/d for E[M] = cI families, max_b |chi_b| for SO(2) ones
        (mixing_families.tsv's `norm` column): the estimate of
        ||E[P_n]||_op = ||E M||^n.

        Returns
        -------
        ndarray of float64, shape (len(n),)
            The estimate at each route length (dimensionless, in [0, 1]
            up to noise).
        """
        return np.abs(self.chi).max(axis=1) if self.chi is not None else np.abs(self.tr)


def routes(family: str | Family | tuple[Family, int], grid: npt.ArrayLike, reps: int, seed: int,
           stream: int = 0, threads: int = 1, d: int | None = None, **params: object) -> Routes:
    """Monte Carlo of route products P_n = M_n ... M_1 of a step family.

    `reps` routes drawn up to max(grid), statistics at each n in grid
    (E[P_n] = E[M]^n for i.i.d. steps, docs/theory/claim1-mixing.md#mixing-window,
    docs/theory/claim1-mixing.md#mixing-experiment), q uniform on the sphere afresh for every route:
    tr = mean tr(P_n)/d, op = ||mean P_n||_op, coh = mean q^T P_n q, sq = mean (q^T P_n q)^2, and
    for SO(2) families chi_b = mean e^{i Phi_b}.  Route k draws from the stream keyed
    by (seed, stream, k): the same bytes for any thread count.  With the
    case, grid, reps and seed of `routelab mixing --families F --seed S` the
    numbers are those of its mixing_families.tsv.  rl_mc_routes (a long
    call).

    Parameters
    ----------
    family : str, Family or (Family, int)
        A registry name (with d and the CLI's family flags), a Family, or
        the pair mixing_case(...) returns (then stream is its stream).
    grid : array_like of int
        Route lengths n (steps), ascending, >= 1.
    reps : int
        Routes drawn, in [1, 1e9].
    seed : int
        Random seed, in [0, 2^64 - 1].
    stream : int, default 0
        Random-stream domain (replaced by a mixing_case pair's).
    threads : int, default 1
        OpenMP threads, 1..1024; the numbers do not depend on it.
    d : int, optional
        Dimension of the step matrices with a registry name (2..4096).
    **params
        Family flags under the CLI's names (angles, base, scale, beta, p,
        sigma, vocab).

    Returns
    -------
    Routes
        Arrays of shape (len(grid),) (tr, tr_se, op, coh, coh_se, sq,
        sq_se), and for SO(2) families chi (complex128) and chi_se of shape
        (len(grid), d/2) (None otherwise).

    Raises
    ------
    ValueError
        A bad argument (the library's one-line message), or a request
        beyond the machine's memory.
    MemoryError
        Memory ran out inside the library (RL_ENOMEM); nothing is kept.
    RuntimeError
        An internal failure (LAPACK), or a library without the call.
    KeyboardInterrupt
        Ctrl-C: the call stops within about a second (docs/library-robustness.md#ctrl-c).

    Examples
    --------
    >>> R = routes(mixing_case('so2-uniform', 8), [1, 2, 4], reps=16, seed=1)
    >>> R.tr.shape, R.chi.shape
    ((3,), (3, 4))
    """
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


def family_mean(family: str | Family | tuple[Family, int], n: int, seed: int, stream: int = 0,
                d: int | None = None, **params: object) -> tuple[float, float]:
    """Monte Carlo estimate of ||E M|| from n steps, with its standard error.

    |mean tr(M)/d| (E[M] = cI) or max_b |mean e^{i theta_b}| (SO(2)), from n
    steps drawn in order from stream `stream` of seed.  docs/sampling.md#step-families (the
    estimate `routelab mixing` uses for a family with no closed form).
    rl_mc_family_mean (a long call).

    Parameters
    ----------
    family : str, Family or (Family, int)
        A registry name (with d and flags), a Family, or mixing_case(...)'s
        pair (then stream is its stream).
    n : int
        Steps drawn, in [2, 1e10].
    seed : int
        Random seed, in [0, 2^64 - 1].
    stream : int, default 0
        Random-stream domain.
    d : int, optional
        Dimension of the step matrices with a registry name (2..4096).
    **params
        Family flags under the CLI's names.

    Returns
    -------
    norm : float
        The estimate of ||E M||_op (dimensionless).
    se : float
        Its standard error.

    Raises
    ------
    ValueError
        A bad argument (the library's one-line message), or a request
        beyond the machine's memory.
    MemoryError
        Memory ran out inside the library (RL_ENOMEM); nothing is kept.
    RuntimeError
        An internal failure (LAPACK), or a library without the call.
    KeyboardInterrupt
        Ctrl-C: the call stops within about a second (docs/library-robustness.md#ctrl-c).

    Examples
    --------
    >>> family_mean('haar', 1000, seed=1, d=4)
    (0.010110341674504772, 0.008144772680470052)
    """
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
    """The second-moment rate estimate (docs/theory/claim2-concentration.md#second-moment): rate =
    ||Pi T_hat Pi||_op of T(X) = E[M X M^T] on the complement of the fixed space, se its
    jackknife SE (20 batches), noise the noise floor, mean_norm ||mean of the
    sampled M||_op, n the steps drawn."""

    rate: float
    se: float
    noise: float
    mean_norm: float
    n: int


def moment2(family: str | Family, d: int | None, samples: int, seed: int, **params: object) -> Moment2:
    """The second-moment rate estimate of a family.

    The derivation: docs/theory/claim2-concentration.md#second-moment.

    Estimate T(X) = E[M X M^T] from `samples` steps of a family (batch j of
    20 from stream j of seed) and its rate ||Pi T_hat Pi||_op on the
    complement Pi of the fixed space: the numbers of the "# rate estimate"
    line of `routelab bound norm2 --family F --d D --samples N --seed S
    [flags]`.  rl_mc_moment2 (a long call).

    Parameters
    ----------
    family : str or Family
        A registry name or a Family.
    d : int or None
        Dimension of the step matrices, 2..16 (the estimate forms d^2 x d^2
        matrices); None with a Family.
    samples : int
        Steps drawn, in [20, 1e8].
    seed : int
        Random seed, in [0, 2^64 - 1].
    **params
        Family flags under the CLI's names.

    Returns
    -------
    Moment2
        rate, its jackknife standard error se (20 batches), the noise
        floor noise, mean_norm = ||mean of the sampled M||_op, and n =
        samples.

    Raises
    ------
    ValueError
        A bad argument (the library's one-line message), or a request
        beyond the machine's memory.
    MemoryError
        Memory ran out inside the library (RL_ENOMEM); nothing is kept.
    RuntimeError
        An internal failure (LAPACK), or a library without the call.
    KeyboardInterrupt
        Ctrl-C: the call stops within about a second (docs/library-robustness.md#ctrl-c).

    Examples
    --------
    >>> moment2('haar', 4, 40, 1).n
    40
    """
    f = _family(family, d, **params)
    n = L.as_int("samples", samples, 20, 10**8)
    seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
    out = [ctypes.c_double() for _ in range(4)]
    L.call_long(_moment2, "rl_mc_moment2", f.ptr, n, seed, *[ctypes.byref(o) for o in out])
    return Moment2(*[o.value for o in out], n)

_fcase = L.proto("rl_mc_farmass_case", L.c_int, L.c_char_p, L.c_int, L.c_void_p, L.P(L.c_ulong), L.P(L.Err))
_farmass = L.proto("rl_mc_farmass", L.c_int, L.c_void_p, L.c_ulong, L.c_int, L.dptr, L.c_int, L.dptr,
                   L.c_int, L.lptr, L.c_int, L.c_long, L.c_long, L.c_ulong, L.c_int, *([L.dptr] * 5), L.P(L.Err))


class _FarmassCase(Family):
    """A case of `routelab farmass`'s sweep: its family (NoPE is the
    identity family) and its random-stream domain."""

    def __init__(self, label, d):
        self.name, self.d, self.params = label, L.as_int("d", d), {}
        self._buf = ctypes.create_string_buffer(L.need(_sizeof, "rl_family_sizeof")())
        s = ctypes.c_ulong()
        L.call(_fcase, "rl_mc_farmass_case", label.encode(), self.d, self._buf, ctypes.byref(s))
        self.stream = s.value
        # NoPE: the case is the identity family (no transport)
        self.none = label in ("none", "identity")

    def __repr__(self):
        return "farmass_case(%r, d=%d)" % (self.name, self.d)


def farmass_case(label: str, d: int) -> Family:
    """A case of `routelab farmass`'s sweep at dimension d.

    "none" for NoPE (the identity family), "householder", "so2-circle",
    "so2-study", ...: its family and its random-stream domain,
    to pass to farmass() for the numbers of that command's farmass.tsv.
    rl_mc_farmass_case.

    Parameters
    ----------
    label : str
        The sweep case's label.
    d : int
        Dimension of the step matrices, 2..4096.

    Returns
    -------
    Family
        The case's family, with attributes none (bool: NoPE) and stream
        (int: its random-stream domain).

    Raises
    ------
    ValueError
        label not a str, an unknown label, or d out of range.
    RuntimeError
        The library lacks rl_mc_farmass_case.

    Examples
    --------
    >>> c = farmass_case('none', 8)
    >>> c, c.none
    (farmass_case('none', d=8), True)
    """
    if not isinstance(label, str):
        raise ValueError("label must be a str, got %r" % (label,))
    return _FarmassCase(label, d)


# `routelab farmass --preset quick`'s sizes (experiments/farmass.c,
# docs/theory/claim3-farmass.md#far-mass-design)
FARMASS_SLOPES = tuple(2.0 ** -h for h in range(1, 9))


@dataclass
class Farmass:
    """The far-mass Monte Carlo (docs/theory/claim3-farmass.md#far-mass-design): rho[r, g, l, c] =
    rho_D of replicate r at length L = grid[g], logit scale lam[l], configuration c
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


def farmass(family: str | Family, grid: npt.ArrayLike, reps: int, seed: int, k: int = 16,
            lam: npt.ArrayLike = (1.0, 2.0, 4.0), slopes: npt.ArrayLike = FARMASS_SLOPES, far_from: int = 1024,
            stream: int = 0, threads: int = 1, d: int | None = None,
            **params: object) -> Farmass:
    """The stylized far-mass Monte Carlo of claim 3 (docs/theory/claim3-farmass.md#far-mass-design).

    Every key equals the unit query q, the key at distance delta is seen
    through the route P_delta, score s = q^T P_delta q, logits lam * s (and
    an ALiBi bias -slope * delta in configuration c >= 1), K near keys
    (delta <= K): the far share rho_D = F / (F + N) of the softmax over
    L = K + M keys, against the bound M / (M + k exp(2 lam))
    (docs/theory/claim3-farmass.md#far-mass-closed-forms; k near keys: `--k` of `routelab bound
    farmass`).  Replicate r draws from the stream keyed by (seed, stream, r).  With farmass_case,
    the defaults and reps = 32, the grid's rows are `routelab farmass --seed S`'s
    farmass.tsv.  mc/farmass_walk.h; rl_mc_farmass (a long call).

    Parameters
    ----------
    family : str or Family
        A name (with d and flags), a Family, or farmass_case(label, d)
        (then its stream replaces `stream`); "identity" is NoPE (no
        transport, every score 1).
    grid : array_like of int
        Context lengths L (tokens), ascending, > k.
    reps : int
        Replicates, in [1, 1e9].
    seed : int
        Random seed, in [0, 2^64 - 1].
    k : int, default 16
        K, the number of near keys (tokens), >= 1.
    lam : array_like of float, default (1.0, 2.0, 4.0)
        Logit scales lambda (nats per unit score), 1-D.
    slopes : array_like of float, default FARMASS_SLOPES (2^-1 .. 2^-8)
        ALiBi slopes (nats per token of distance), 1-D.
    far_from : int, default 1024
        Distance (tokens) from which mom averages the scores, >= 1.
    stream : int, default 0
        Random-stream domain.
    threads : int, default 1
        OpenMP threads, 1..1024; the numbers do not depend on it.
    d : int, optional
        Dimension of the step matrices with a registry name (2..4096).
    **params
        Family flags under the CLI's names.

    Returns
    -------
    Farmass
        rho of shape (reps, len(grid), len(lam), 1 + len(slopes)) (far
        mass, probabilities; configuration 0 unbiased, c >= 1 slope
        slopes[c - 1]), rho_mean and rho_se of shape (len(grid), len(lam),
        1 + len(slopes)), mom (reps, 2) (mean s and s^2 over delta >=
        far_from) and srange (reps, len(grid), 3) (max near score, min far
        score, max |score|).

    Raises
    ------
    ValueError
        A bad argument (the library's one-line message), or a request
        beyond the machine's memory.
    MemoryError
        Memory ran out inside the library (RL_ENOMEM); nothing is kept.
    RuntimeError
        An internal failure (LAPACK), or a library without the call.
    KeyboardInterrupt
        Ctrl-C: the call stops within about a second (docs/library-robustness.md#ctrl-c).

    Examples
    --------
    >>> F = farmass(farmass_case('none', 8), [32, 64], reps=2, seed=1, far_from=16)
    >>> F.rho.shape, F.srange.shape
    ((2, 2, 3, 9), (2, 2, 3))
    """
    if isinstance(family, _FarmassCase):
        stream = family.stream
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
    L.call_long(_farmass, "rl_mc_farmass", family.ptr, stream, k, L.dbuf(lam), nl, L.dbuf(sl),
           sl.size, g.ctypes.data_as(L.lptr), ng, far_from, reps, seed, threads, L.dbuf(rho), L.dbuf(mean),
           L.dbuf(se), L.dbuf(mom), L.dbuf(srange))
    return Farmass(g, lam, sl, k, rho, mean, se, mom, srange)
