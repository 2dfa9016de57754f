"""The closed forms and bounds of the study as functions of numpy arrays
(theory/theory.h; api/include/routelab/bounds.h).

Each function broadcasts its arguments (numpy rules) and returns a float64
array of the broadcast shape, or a Python float when every argument is a
scalar; a whole array is one C call (rl_form_eval), whose value at each point
is the scalar C function's, so a grid gives exactly the numbers of
`routelab bound NAME` at its points (%.17g).
Integer arguments (d) must be integers.  Outside a formula's domain the C
function's value is returned as it is (NaN where it has none).

Units (bounds.h): lengths, windows and counts of tokens are numbers of steps
or tokens; angles and frequencies are radians per step; logits and logit
bounds (lambda, Delta) are natural-log units (nats); probabilities lie in
[0, 1].
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from . import _lib as L

_c = {}


def _f(name, restype, *args):
    _c[name] = L.proto(name, restype, *args)


D, I, LG = L.c_double, L.c_int, L.c_long
WINDOW_UNDEFINED = -2


def _ints(name, a):
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
            a = a.astype(np.int64)
        else:
            raise ValueError("%s must hold integers, got dtype %s" % (name, a.dtype))
    if a.size and (a.min() < -L.INT_MAX - 1 or a.max() > L.INT_MAX):
        raise ValueError("%s lies outside the range of a C int" % name)
    return a


_form = L.proto("rl_form_eval", L.c_int, L.c_char_p, L.P(L.dptr), L.c_int, L.c_long, L.dptr, L.P(L.Err))
_hoeff = L.proto("rl_hoeffding_so2_array", L.c_int, L.dptr, L.c_long, L.dptr, L.c_int, L.dptr, L.P(L.Err))


def _vec(cname, kinds, *args):
    """C function cname at every point of the broadcast arguments, in one
    call (rl_form_eval); kinds: 'i' (C int) or 'd' (double) per argument."""
    arrs = [(_ints("argument %d" % k, a) if t == "i" else np.asarray(a, dtype=np.float64))
            for k, (t, a) in enumerate(zip(kinds, args))]
    try:
        shape = np.broadcast(*arrs).shape
    except ValueError as e:
        raise ValueError("%s: the arguments do not broadcast (%s)" % (cname, e)) from None
    out = L.empty(cname, shape)  # ValueError when it does not fit in memory, never MemoryError
    try:
        flat = [np.ascontiguousarray(x, dtype=np.float64).reshape(-1) for x in np.broadcast_arrays(*arrs)]
    except MemoryError:
        raise ValueError("%s: arguments of shape %s do not fit in memory" % (cname, shape)) from None
    ptrs = (L.dptr * len(flat))(*[L.dbuf(x) for x in flat])
    name = cname[3:] if cname.startswith("rl_") else cname
    L.call(L.need(_form, "rl_form_eval"), "rl_form_eval", name.encode(), ptrs, len(flat), out.size, L.dbuf(out))
    if all(np.ndim(a) == 0 for a in args):
        return float(out[()])
    return out


def levy_tail(d: npt.ArrayLike, t: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The spherical-cap tail bound for one coordinate of a uniform unit vector.

    For u uniform on S^{d-1} and a fixed unit e (Ball 1997, Lemma 2.2):

        P(|<e,u>| >= t) <= min(1, 2 exp(-d t^2 / 2)).

    docs/theory/claim2-concentration.md#eq-cap-bound; `routelab bound levy --d D --t
    T`; rl_levy_tail.

    Parameters
    ----------
    d : int or array_like of int
        Dimension of the sphere's ambient space (S^{d-1} in R^d).
    t : float or array_like
        Deviation threshold, a coordinate value (dimensionless, in [0, 1]).

    Returns
    -------
    float or ndarray of float64
        The bound, a probability in [0, 1]; a float when d and t are
        scalars, else an array of their broadcast shape.

    Raises
    ------
    ValueError
        d not integral, arguments that do not broadcast, or an output that
        does not fit in memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> levy_tail(64, 0.5)
    0.0006709252558050237
    >>> levy_tail(64, [0.1, 0.5])
    array([1.00000000e+00, 6.70925256e-04])
    """
    return _vec("rl_levy_tail", "id", d, t)


def levy_so_tail(d: npt.ArrayLike, t: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """Levy's concentration bound on SO(d).

    For f 1-Lipschitz in the Hilbert-Schmidt metric on SO(d), d >= 3:

        P(|f - E f| >= t) <= min(1, 2 exp(-(d - 2) t^2 / 8)),

    and 1 for d < 3.  docs/theory/claim2-concentration.md#concentration-closed-forms; `routelab
    bound levy-so`; rl_levy_so_tail.

    Parameters
    ----------
    d : int or array_like of int
        Dimension of the rotation group SO(d).
    t : float or array_like
        Deviation threshold (units of f).

    Returns
    -------
    float or ndarray of float64
        The bound, a probability in [0, 1]; a float for scalar arguments,
        else an array of the broadcast shape.

    Raises
    ------
    ValueError
        d not integral, arguments that do not broadcast, or an output that
        does not fit in memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> levy_so_tail(64, 1.0)
    0.0008614850811513751
    >>> levy_so_tail(2, 1.0)
    1.0
    """
    return _vec("rl_levy_so_tail", "id", d, t)


def beta_tail(d: npt.ArrayLike, t: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The exact two-sided tail of one coordinate of a uniform unit vector.

    P(|<e,u>| >= t) for u uniform on S^{d-1}, from <e,u>^2 ~
    Beta(1/2, (d-1)/2) (GSL).  docs/theory/claim2-concentration.md#eq-beta-law;
    `routelab bound beta-tail`; rl_beta_tail.

    Parameters
    ----------
    d : int or array_like of int
        Dimension, d >= 2 (NaN below).
    t : float or array_like
        Threshold on the coordinate (dimensionless, in [0, 1]).

    Returns
    -------
    float or ndarray of float64
        The probability in [0, 1] (NaN for d < 2 or a NaN t); a float for
        scalar arguments, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        d not integral, arguments that do not broadcast, or an output that
        does not fit in memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> beta_tail(64, 0.5)
    2.227520439191875e-05
    """
    return _vec("rl_beta_tail", "id", d, t)


def beta_coord_cdf(d: npt.ArrayLike, x: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The exact CDF of one coordinate of a uniform unit vector.

    P(<e,u> <= x), x in [-1, 1], u uniform on S^{d-1} (GSL's Beta CDF).
    docs/theory/claim2-concentration.md#eq-beta-law; rl_beta_coord_cdf.

    Parameters
    ----------
    d : int or array_like of int
        Dimension, d >= 2 (NaN otherwise).
    x : float or array_like
        The coordinate value, in [-1, 1] (dimensionless).

    Returns
    -------
    float or ndarray of float64
        The probability in [0, 1]; a float for scalar arguments, else an
        array of the broadcast shape.

    Raises
    ------
    ValueError
        d not integral, arguments that do not broadcast, or an output that
        does not fit in memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> beta_coord_cdf(3, 0.0)
    0.5
    """
    return _vec("rl_beta_coord_cdf", "id", d, x)


def sphere_log_mgf(d: npt.ArrayLike, lam: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """Log moment generating function of one coordinate of a uniform unit vector.

    log E e^{lambda <e,u>} for u uniform on S^{d-1}, d >= 2:

        log[ Gamma(d/2) (2/lambda)^{d/2-1} I_{d/2-1}(lambda) ]
            = log 0F1(; d/2; lambda^2/4)

    (docs/theory/claim2-concentration.md#eq-sphere-mgf), the log mean softmax weight of a
    far token at logit scale lambda; even in lambda.  rl_sphere_log_mgf.

    Parameters
    ----------
    d : int or array_like of int
        Dimension, d >= 2 (NaN below).
    lam : float or array_like
        Logit scale lambda (nats), |lambda| <= 500 (NaN beyond).

    Returns
    -------
    float or ndarray of float64
        The log mean (nats); a float for scalar arguments, else an array of
        the broadcast shape.

    Raises
    ------
    ValueError
        d not integral, arguments that do not broadcast, or an output that
        does not fit in memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> sphere_log_mgf(2, 0.0)
    0.0
    >>> sphere_log_mgf(3, 1.0)
    0.16143936157119576
    """
    return _vec("rl_sphere_log_mgf", "id", d, lam)


def hoeffding(t: npt.ArrayLike, a: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """Hoeffding's bound for a sum of independent bounded block scores.

    For s = sum_b s_b with independent s_b in [-a_b, a_b]:

        P(|s - E s| >= t) <= min(1, 2 exp(-t^2 / (2 sum_b a_b^2))).

    docs/theory/claim2-concentration.md#eq-hoeffding-so2; `routelab bound hoeffding --t T
    --a a1,a2,...`; rl_hoeffding_so2_array.

    Parameters
    ----------
    t : float or array_like
        Deviation threshold (score units: logits before scaling); broadcasts.
    a : array_like
        One 1-D array (flattened) of the block ranges a_b = ||q_b|| ||k_b||,
        at least one.

    Returns
    -------
    float or ndarray of float64
        The bound, a probability in [0, 1]; a float for a scalar t, else an
        array of t's shape.

    Raises
    ------
    ValueError
        a empty (or more than 2^31 - 1 blocks).
    RuntimeError
        The library lacks rl_hoeffding_so2_array.

    Examples
    --------
    >>> hoeffding(1.0, [0.5, 0.5])
    0.7357588823428847
    """
    a = np.ascontiguousarray(np.asarray(a, dtype=np.float64).reshape(-1))
    if a.size == 0 or a.size > L.INT_MAX:
        raise ValueError("hoeffding: a must hold at least one block range")
    tt = np.asarray(t, dtype=np.float64)
    flat = np.ascontiguousarray(tt.reshape(-1))
    out = np.empty(tt.shape, dtype=np.float64)
    L.call(L.need(_hoeff, "rl_hoeffding_so2_array"), "rl_hoeffding_so2_array", L.dbuf(flat), flat.size, L.dbuf(a),
           int(a.size), L.dbuf(out))
    return float(out[()]) if tt.ndim == 0 else out


def farmass_lower(m: npt.ArrayLike, k: npt.ArrayLike, lam: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The far-mass lower bound for logits in [-lambda, lambda].

    With K near and M far tokens and every logit in [-lambda, lambda], the
    softmax mass rho_D on the far tokens satisfies

        rho_D >= M / (M + K exp(2 lambda)),

    with equality when every near logit is +lambda and every far one
    -lambda.  docs/theory/claim3-farmass.md#eq-far-mass-lower; `routelab bound farmass --ml M
    --k K --lambda LAMBDA`; rl_farmass_lower.

    Parameters
    ----------
    m : float or array_like
        M, the number of far tokens (>= 0).
    k : float or array_like
        K, the number of near tokens (>= 0).
    lam : float or array_like
        Logit bound lambda (nats, >= 0).

    Returns
    -------
    float or ndarray of float64
        The bound, a probability in [0, 1] (NaN outside the domain); a float
        for scalar arguments, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> farmass_lower(100, 1, 0.0)
    0.9900990099009901
    >>> farmass_lower(65024, 8, np.linspace(0, 4, 3))
    array([0.99987698, 0.99332753, 0.73166178])
    """
    return _vec("rl_farmass_lower", "ddd", m, k, lam)


def farmass_lower_log(m: npt.ArrayLike, k: npt.ArrayLike, lam: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The log of the far-mass lower bound, finite for every finite lambda.

    log rho_D >= log M - logaddexp(log M, log K + 2 lambda), the log of
    farmass_lower, finite for every finite lambda (the bound itself
    underflows past lambda ~ 372).  docs/theory/claim3-farmass.md#eq-far-mass-lower,
    docs/verdicts.md#numerics; rl_farmass_lower_log.

    Parameters
    ----------
    m : float or array_like
        M, the number of far tokens (>= 0).
    k : float or array_like
        K, the number of near tokens (>= 0).
    lam : float or array_like
        Logit bound lambda (nats, >= 0).

    Returns
    -------
    float or ndarray of float64
        The log of the bound (nats, <= 0); a float for scalar arguments,
        else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> farmass_lower(1, 1, 400.0), farmass_lower_log(1, 1, 400.0)
    (0.0, -800.0)
    """
    return _vec("rl_farmass_lower_log", "ddd", m, k, lam)


def farmass_upper(m: npt.ArrayLike, k: npt.ArrayLike, lam: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The matching far-mass upper bound for logits in [-lambda, lambda].

    rho_D <= M / (M + K exp(-2 lambda)).  docs/theory/claim3-farmass.md#eq-far-mass-lower;
    `routelab bound farmass-upper`; rl_farmass_upper.

    Parameters
    ----------
    m : float or array_like
        M, the number of far tokens (>= 0).
    k : float or array_like
        K, the number of near tokens (>= 0).
    lam : float or array_like
        Logit bound lambda (nats, >= 0).

    Returns
    -------
    float or ndarray of float64
        The bound, a probability in [0, 1]; a float for scalar arguments,
        else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> farmass_upper(100, 1, 0.0)
    0.9900990099009901
    """
    return _vec("rl_farmass_upper", "ddd", m, k, lam)


def farmass_half(k: npt.ArrayLike, lam: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The number of far tokens at which the far-mass lower bound reaches 1/2.

    M = K exp(2 lambda).  docs/theory/claim3-farmass.md#eq-far-mass-half; `routelab bound
    farmass-half --k K
    --lambda LAMBDA`; rl_farmass_half.

    Parameters
    ----------
    k : float or array_like
        K, the number of near tokens (>= 0).
    lam : float or array_like
        Logit bound lambda (nats, >= 0).

    Returns
    -------
    float or ndarray of float64
        M, a number of tokens (not rounded); a float for scalar arguments,
        else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> farmass_half(8, 2.0)
    436.7852002651539
    """
    return _vec("rl_farmass_half", "dd", k, lam)


def farmass_half_log(k: npt.ArrayLike, lam: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The log of farmass_half.

    log M = log K + 2 lambda.  docs/theory/claim3-farmass.md#eq-far-mass-half;
    rl_farmass_half_log.

    Parameters
    ----------
    k : float or array_like
        K, the number of near tokens (>= 0).
    lam : float or array_like
        Logit bound lambda (nats, >= 0).

    Returns
    -------
    float or ndarray of float64
        log M (log of a number of tokens); a float for scalar arguments,
        else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> farmass_half_log(8, 2.0)
    6.079441541679836
    """
    return _vec("rl_farmass_half_log", "dd", k, lam)


def farmass_range(m: npt.ArrayLike, k: npt.ArrayLike, delta: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The shift-invariant far-mass lower bound for realised logits.

    rho_D >= M / (M + K exp(Delta)), Delta = max near logit - min far
    logit.  docs/theory/claim3-farmass.md#eq-far-mass-range; rl_farmass_range.

    Parameters
    ----------
    m : float or array_like
        M, the number of far tokens (>= 0).
    k : float or array_like
        K, the number of near tokens (>= 0).
    delta : float or array_like
        Delta, the logit range max near - min far (nats).

    Returns
    -------
    float or ndarray of float64
        The bound, a probability in [0, 1]; a float for scalar arguments,
        else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> farmass_range(100, 1, 0.0)
    0.9900990099009903
    """
    return _vec("rl_farmass_range", "ddd", m, k, delta)


def farmass_range_log(m: npt.ArrayLike, k: npt.ArrayLike, delta: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The log of farmass_range, finite for every finite Delta.

    log M - logaddexp(log M, log K + Delta).  docs/theory/claim3-farmass.md#eq-far-mass-range;
    rl_farmass_range_log.

    Parameters
    ----------
    m : float or array_like
        M, the number of far tokens (>= 0).
    k : float or array_like
        K, the number of near tokens (>= 0).
    delta : float or array_like
        Delta, the logit range max near - min far (nats).

    Returns
    -------
    float or ndarray of float64
        The log of the bound (nats, <= 0); a float for scalar arguments,
        else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> farmass_range_log(100, 1, 0.0)
    -0.009950330853167877
    """
    return _vec("rl_farmass_range_log", "ddd", m, k, delta)


def farmass_admissible(k: npt.ArrayLike, p: npt.ArrayLike, delta: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The far keys at which farmass_range forces rho_D >= p.

    M*(p) = K p exp(Delta) / (1 - p), 0 < p < 1; the context is then
    L* = K + M*.  docs/theory/claim3-farmass.md#eq-admissible-length; rl_farmass_admissible.

    Parameters
    ----------
    k : float or array_like
        K, the number of near tokens (>= 0).
    p : float or array_like
        The far mass to force, a probability in (0, 1) (NaN outside).
    delta : float or array_like
        Delta, the logit range max near - min far (nats).

    Returns
    -------
    float or ndarray of float64
        M*, a number of tokens (not rounded); a float for scalar arguments,
        else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> farmass_admissible(1, 0.5, 0.0)
    1.0
    """
    return _vec("rl_farmass_admissible", "ddd", k, p, delta)


def farmass_admissible_log(k: npt.ArrayLike, p: npt.ArrayLike,
                           delta: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The log of farmass_admissible.

    log M*(p) = log K + log p - log(1 - p) + Delta.
    docs/theory/claim3-farmass.md#eq-admissible-length; rl_farmass_admissible_log.

    Parameters
    ----------
    k : float or array_like
        K, the number of near tokens (>= 0).
    p : float or array_like
        The far mass to force, a probability in (0, 1) (NaN outside).
    delta : float or array_like
        Delta, the logit range max near - min far (nats).

    Returns
    -------
    float or ndarray of float64
        log M* (log of a number of tokens); a float for scalar arguments,
        else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> farmass_admissible_log(1, 0.5, 0.0)
    0.0
    """
    return _vec("rl_farmass_admissible_log", "ddd", k, p, delta)


def alibi(m: npt.ArrayLike, k: npt.ArrayLike, lam: npt.ArrayLike, slope: npt.ArrayLike,
          best: npt.ArrayLike = False) -> float | npt.NDArray[np.float64]:
    """Far mass under an ALiBi distance bias, logits in [-lambda, lambda].

    With a bias -slope * distance, K near tokens at distances 0..K-1 and M
    far ones at K..K+M-1, the worst case is

        rho <= 1 / (1 + exp(-2 lambda) N/F),
        N/F = (exp(slope K) - 1) / (1 - exp(-slope M));

    best=True gives the matching lower bound (exp(+2 lambda) in place of
    exp(-2 lambda)).  docs/theory/claim3-farmass.md#eq-far-mass-alibi; `routelab bound alibi
    [--best]`; rl_farmass_alibi.

    Parameters
    ----------
    m : float or array_like
        M, the number of far tokens (>= 0).
    k : float or array_like
        K, the number of near tokens (>= 0).
    lam : float or array_like
        Logit bound lambda (nats, >= 0).
    slope : float or array_like
        ALiBi slope (nats of bias per token of distance, >= 0).
    best : bool or array_like of bool, default False
        False: the worst-case upper bound; True: the best-case lower bound.

    Returns
    -------
    float or ndarray of float64
        The far mass bound, a probability in [0, 1]; a float for scalar
        arguments, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> alibi(1000, 16, 1.0, 0.0), alibi(1000, 16, 1.0, 0.0, best=True)
    (0.9978393141407381, 0.8942744900078325)
    """
    return _vec("rl_farmass_alibi", "ddddi", m, k, lam, slope, np.asarray(best).astype(np.int64))


def alibi_log(m: npt.ArrayLike, k: npt.ArrayLike, lam: npt.ArrayLike, slope: npt.ArrayLike,
              best: npt.ArrayLike = False) -> float | npt.NDArray[np.float64]:
    """The log of alibi, finite for every finite lambda and slope.

    log rho for the bound of `alibi` (-log(1 + exp(-+2 lambda) N/F)).
    docs/theory/claim3-farmass.md#eq-far-mass-alibi; rl_farmass_alibi_log.

    Parameters
    ----------
    m : float or array_like
        M, the number of far tokens (>= 0).
    k : float or array_like
        K, the number of near tokens (>= 0).
    lam : float or array_like
        Logit bound lambda (nats, >= 0).
    slope : float or array_like
        ALiBi slope (nats of bias per token of distance, >= 0).
    best : bool or array_like of bool, default False
        False: the worst-case upper bound; True: the best-case lower bound.

    Returns
    -------
    float or ndarray of float64
        The log of the bound (nats, <= 0); a float for scalar arguments,
        else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> alibi_log(1000, 16, 1.0, 0.0)
    -0.0021630235088443005
    """
    return _vec("rl_farmass_alibi_log", "ddddi", m, k, lam, slope, np.asarray(best).astype(np.int64))


def value_coherent(rho: npt.ArrayLike, vnorm: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The far value contribution without transport.

    ||r|| = rho ||v||: far mass rho times the norm of the (shared) far
    value.  docs/theory/claim4-values.md#eq-value-transport; `routelab bound value-coherent`;
    rl_value_coherent.

    Parameters
    ----------
    rho : float or array_like
        Far attention mass, a probability in [0, 1].
    vnorm : float or array_like
        ||v||, the norm of the far value vector (value units).

    Returns
    -------
    float or ndarray of float64
        ||r|| (value units); a float for scalar arguments, else an array of
        the broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> value_coherent(0.25, 2.0)
    0.5
    """
    return _vec("rl_value_coherent", "dd", rho, vnorm)


def _window(cname, x, eps):
    w = _vec(cname, "dd", x, eps)
    arr = np.asarray(w, dtype=np.float64)
    # -1 (never) is inf, the undefined window (a NaN input) NaN, as `bound window` prints them
    arr = np.where(arr == -1, np.inf, np.where(arr == WINDOW_UNDEFINED, np.nan, arr))
    return float(arr[()]) if np.ndim(w) == 0 else arr


def window(norm: npt.ArrayLike, eps: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The mixing window W(eps) from the mean step's norm.

    W(eps) = ceil(log(1/eps) / log(1/norm)), the least n >= 1 with
    norm^n <= eps; 1 for norm = 0, inf (never) for norm >= 1, NaN for a
    NaN norm or eps, or eps <= 0 (no window).  docs/theory/claim1-mixing.md#eq-mixing-window; `routelab
    bound window --norm N --eps E`; rl_mixing_window.

    Parameters
    ----------
    norm : float or array_like
        ||E M||_op, the operator norm of the mean step (dimensionless, >= 0).
    eps : float or array_like
        Tolerance, in (0, 1).

    Returns
    -------
    float or ndarray of float64
        W(eps) in steps (an integral value), inf when it never mixes, NaN
        when undefined; a float for scalar arguments, else an array of the
        broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> window(0.5, 0.01), window(1.0, 0.01), window(0.0, 0.01)
    (7.0, inf, 1.0)
    >>> window([0.5, 0.9], 0.01)
    array([ 7., 44.])
    """
    return _window("rl_mixing_window", norm, eps)


def window_log(lognorm: npt.ArrayLike, eps: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """The mixing window W(eps) from the log of the mean step's norm.

    W(eps) = ceil(-log(eps) / -lognorm), at least 1, from lognorm =
    log ||E M|| <= 0; inf for lognorm >= 0 (or a window beyond 9e18).
    Exact to the integer when lognorm is good to a few ulps.
    docs/theory/claim1-mixing.md#eq-mixing-window, docs/verdicts.md#numerics; rl_mixing_window_log.

    Parameters
    ----------
    lognorm : float or array_like
        log ||E M||_op (nats, <= 0).
    eps : float or array_like
        Tolerance, in (0, 1).

    Returns
    -------
    float or ndarray of float64
        W(eps) in steps (an integral value), inf when it never mixes, NaN
        when undefined; a float for scalar arguments, else an array of the
        broadcast shape.

    Raises
    ------
    ValueError
        Arguments that do not broadcast, or an output that does not fit in
        memory.
    RuntimeError
        The library lacks rl_form_eval.

    Examples
    --------
    >>> window_log(np.log(0.5), 0.01), window_log(0.0, 0.01)
    (7.0, inf)
    """
    return _window("rl_mixing_window_log", lognorm, eps)


# ---- routelab's mix-or-stay condition (theory/mixstay_forms.h) ------------------

class _Block(ctypes.Structure):
    """rl_mixstay_block of <routelab/bounds.h>: { double lo, hi; long far, near; }."""

    _fields_ = [("lo", L.c_double), ("hi", L.c_double), ("far", L.c_long), ("near", L.c_long)]


_f("rl_watson_dist", I, L.c_void_p, L.c_void_p, I, L.dptr, L.dptr, L.P(L.Err))
_f("rl_mixstay_chi", I, L.c_void_p, I, LG, LG, L.P(_Block), L.dptr, L.P(L.Err))
_f("rl_mixstay_family", I, L.c_void_p, LG, LG, I, L.P(_Block), L.dptr, L.P(L.Err))
_f("rl_mixstay_grid", LG, LG, LG, L.lptr)
_f("rl_mixstay_block_sizeof", L.c_size_t)
_f("rl_so2_freqs", None, I, D, D, L.dptr)

#: The default harmonics N (RL_MIXSTAY_HARMONICS) and far multiple (RL_MIXSTAY_MULT) of
#: `routelab bound mixstay`; the C header's values, checked against the library's numbers
#: by the tests (api/python/tests/test_bounds.py).
MIXSTAY_HARMONICS = 2048
MIXSTAY_MULT = 16


def _check_block_struct():
    """The struct mirrors the C one: the same size, or no call is made."""
    n = L.need(_c["rl_mixstay_block_sizeof"], "rl_mixstay_block_sizeof")()
    if n != ctypes.sizeof(_Block):
        raise RuntimeError("routelab: rl_mixstay_block is %d bytes in the library, %d here (a mismatched library?)"
                           % (n, ctypes.sizeof(_Block)))


def _phi(name, a):
    a = np.asarray(a)
    if a.ndim < 1 or a.shape[-1] < 1:
        raise ValueError("%s must hold characteristic function values phi(1..N) along its last axis, got shape %s"
                         % (name, a.shape))
    if a.dtype.kind not in "biufc":
        raise ValueError("%s must be numeric, got dtype %s" % (name, a.dtype))
    if a.shape[-1] > L.INT_MAX:
        raise ValueError("%s: too many harmonics" % name)
    return a.astype(np.complex128)


def watson_distance(phi_mu: npt.ArrayLike, phi_nu: npt.ArrayLike
                    ) -> tuple[float, float] | tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Watson's (circular Cramér–von Mises) distance between two laws on the circle.

    From the characteristic functions phi(k) = E e^{ikX}, k = 1..N, of laws
    mu, nu on the circle (radians), along the last axis (leading axes
    broadcast):

        d_U = ((1/2pi) int (G - mean G)^2)^{1/2}, G = F_mu - F_nu
            = sqrt(sum_k |phi_mu(k) - phi_nu(k)|^2 / k^2) / (pi sqrt 2)   in [0, 1/2].

    The sum is truncated at N harmonics (lo) and bracketed above by
    hi = sqrt(lo^2 + 2/(pi^2 N)) (capped at 1/2): the exact distance lies
    between.  theory/mixstay_forms.h; rl_watson_dist.

    Parameters
    ----------
    phi_mu : array_like of complex, shape (..., N)
        phi_mu(k), k = 1..N, along the last axis; modulus <= 1.
    phi_nu : array_like of complex, shape (..., N)
        phi_nu(k), the same N harmonics; leading axes broadcast with
        phi_mu's.

    Returns
    -------
    lo, hi : float or ndarray of float64
        The truncated distance and its upper end, both in [0, 1/2]
        (dimensionless: a fraction of the circle's CDF); floats for 1-D
        inputs, else arrays of the broadcast leading shape.

    Raises
    ------
    ValueError
        A NaN or a modulus above 1 (the library's message), a non-numeric
        or 0-d input, or different numbers of harmonics.
    RuntimeError
        The library lacks rl_watson_dist.

    Examples
    --------
    >>> watson_distance(np.ones(4), np.zeros(4))   # a point mass against uniform
    (0.2685534982309497, 0.3504020165941537)
    """
    fn = L.need(_c["rl_watson_dist"], "rl_watson_dist")
    a, b = _phi("phi_mu", phi_mu), _phi("phi_nu", phi_nu)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError("phi_mu and phi_nu must hold the same harmonics, got %d and %d" % (a.shape[-1], b.shape[-1]))
    n = a.shape[-1]
    lead = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    a = np.ascontiguousarray(np.broadcast_to(a, lead + (n,))).reshape(-1, n)
    b = np.ascontiguousarray(np.broadcast_to(b, lead + (n,))).reshape(-1, n)
    lo, hi = np.empty(a.shape[0]), np.empty(a.shape[0])
    x, y = L.c_double(), L.c_double()
    for i in range(a.shape[0]):
        L.call(fn, "rl_watson_dist", a[i].ctypes.data_as(L.c_void_p), b[i].ctypes.data_as(L.c_void_p), n,
               ctypes.byref(x), ctypes.byref(y))
        lo[i], hi[i] = x.value, y.value
    if not lead:
        return float(lo[0]), float(hi[0])
    return lo.reshape(lead), hi.reshape(lead)


def _length(ctx, mult, length):
    ctx = L.as_int("ctx", ctx, 1, L.LONG_MAX)
    if length is not None:
        if mult is not None:
            raise ValueError("length and mult exclude each other (L = length, or L = mult*ctx)")
        return ctx, L.as_int("length", length, 2, L.LONG_MAX)
    mult = L.as_int("mult", MIXSTAY_MULT if mult is None else mult, 1, L.LONG_MAX)
    if ctx * mult > L.LONG_MAX:
        raise ValueError("ctx x mult = %d x %d does not fit a C long" % (ctx, mult))
    return ctx, ctx * mult


def mixstay_grid(ctx: int, length: int) -> npt.NDArray[np.int64]:
    """The far lengths delta that routelab's mix-or-stay condition searches.

    At T = ctx, L = length: every delta in [T, L-1] when (L - T) T <= 2^20
    (exact), else every delta below 4T and then 64 per octave up to L - 1
    (L - 1 included).  theory/mixstay_forms.h; rl_mixstay_grid.

    Parameters
    ----------
    ctx : int
        T, the training length (tokens), >= 1.
    length : int
        L, the longest length (tokens), T < L <= 1e15.

    Returns
    -------
    ndarray of int64, shape (n,)
        The far lengths (tokens), ascending; n = L - T when exact.

    Raises
    ------
    ValueError
        ctx or length not an integer or out of range (T < 1, L <= T,
        L > 1e15).
    RuntimeError
        The library lacks rl_mixstay_grid.

    Examples
    --------
    >>> mixstay_grid(4, 8)
    array([4, 5, 6, 7])
    """
    fn = L.need(_c["rl_mixstay_grid"], "rl_mixstay_grid")
    t, l = L.as_int("ctx", ctx, 1, L.LONG_MAX), L.as_int("length", length, 2, L.LONG_MAX)
    n = fn(t, l, None)
    if n < 0:
        raise ValueError("no far lengths for T = %d, L = %d (T >= 1 and T < L <= 1e15)" % (t, l))
    g = L.empty("mixstay_grid", (n,), np.int64)
    fn(t, l, g.ctypes.data_as(L.lptr))
    return g


@dataclass
class MixStay:
    """Routelab's mix-or-stay condition for an SO(2) head (theory/mixstay_forms.h;
    `routelab bound mixstay`): per block b, D_b(T, L) = max over far lengths delta
    (T <= delta < L) of min over delta' < T of Watson's distance between the laws of
    delta and delta' accumulated angle steps, as [lo, hi] (the sum to `harmonics`
    terms and its upper end), its arg max far length and nearest near length; the
    score S = mean_b D_b (score, and score_hi from the upper ends).  far_lengths: the
    lengths searched (exact: every delta)."""

    angles: str
    d: int
    base: float
    scale: float
    ctx: int
    length: int
    harmonics: int
    far_lengths: int
    exact: bool
    omega: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    far: np.ndarray
    near: np.ndarray
    score: float
    score_hi: float


def mixstay(angles: str = "uniform", d: int = 64, base: float = 10000.0, scale: float = 1.0, ctx: int = 128,
            mult: int | None = None, length: int | None = None, harmonics: int | None = None) -> MixStay:
    """Routelab's mix-or-stay condition for an so2 head.

    Per block b (omega_b = scale base^(-2b/d), steps theta_b ~
    law(omega_b)):

        D_b(T, L) = max_{T <= delta < L} min_{0 <= delta' < T} d_U(mu_delta, mu_delta'),

    Watson's distance between the laws of delta and delta' accumulated
    angle steps, and the score S(T, L) = (1/(d/2)) sum_b D_b, at T = ctx and
    L = mult*ctx (mult 16 by default) or L = length.  The numbers `routelab
    bound mixstay --d D --angles A --base B --scale S --ctx T --mult M
    --harmonics N` prints.  theory/mixstay_forms.h; rl_mixstay_family.

    Parameters
    ----------
    angles : str, default "uniform"
        The angle law (constant, uniform, pm, gauss, circle, drift).
    d : int, default 64
        Head dimension, even, in [2, 4096] (d/2 blocks).
    base : float, default 10000.0
        Frequency base B, in (1, inf): omega_b = scale B^(-2b/d).
    scale : float, default 1.0
        Frequency scale, in (0, inf) (radians per step at b = 0).
    ctx : int, default 128
        T, the training length (tokens), >= 1.
    mult : int, optional
        L = mult * ctx (default 16, MIXSTAY_MULT); excludes `length`.
    length : int, optional
        L itself (tokens), T < L <= 1e15; excludes `mult`.
    harmonics : int, optional
        N, the harmonics summed (default 2048, MIXSTAY_HARMONICS), in
        [1, 2^20].

    Returns
    -------
    MixStay
        The condition's numbers: per-block lo, hi (distances in [0, 1/2]),
        far, near (lengths in tokens), omega (radians per step), score and
        score_hi.

    Raises
    ------
    ValueError
        A bad flag (each parsed and range-checked by the CLI's option
        entry), mult and length both given, a range out of bounds, or a
        search beyond the pair or memory limits.
    MemoryError
        Memory ran out inside the library (RL_ENOMEM).
    RuntimeError
        An internal failure, or a library that lacks the calls or whose
        rl_mixstay_block differs.
    """
    from .family import Family  # the one parser of the family flags
    _check_block_struct()
    fn = L.need(_c["rl_mixstay_family"], "rl_mixstay_family")
    t, l = _length(ctx, mult, length)
    n = L.as_int("harmonics", MIXSTAY_HARMONICS if harmonics is None else harmonics, 1, L.INT_MAX)
    f = Family("so2", d, angles=angles, base=base, scale=scale)
    nb = f.d // 2
    blocks = (_Block * nb)()
    score = np.empty(2)
    L.call(fn, "rl_mixstay_family", f.ptr, t, l, n, blocks, L.dbuf(score))
    omega = np.empty(nb)
    L.need(_c["rl_so2_freqs"], "rl_so2_freqs")(f.d, float(base), float(scale), L.dbuf(omega))
    nf = L.need(_c["rl_mixstay_grid"], "rl_mixstay_grid")(t, l, None)
    return MixStay(angles=angles, d=f.d, base=float(base), scale=float(scale), ctx=t, length=l, harmonics=n,
                   far_lengths=int(nf), exact=bool(nf == l - t), omega=omega,
                   lo=np.array([b.lo for b in blocks]), hi=np.array([b.hi for b in blocks]),
                   far=np.array([b.far for b in blocks], dtype=np.int64),
                   near=np.array([b.near for b in blocks], dtype=np.int64),
                   score=float(score[0]), score_hi=float(score[1]))


def mixstay_block(chi: npt.ArrayLike, ctx: int, mult: int | None = None, length: int | None = None,
                  curve: bool = False
                  ) -> tuple[float, float, int, int] | tuple[float, float, int, int, npt.NDArray[np.float64]]:
    """D_b(T, L) of one block from its step law's characteristic function.

        D_b(T, L) = max_{delta in far grid} min_{0 <= delta' <= T-1} d_U(mu_delta, mu_delta'),

    mu_delta the law of delta accumulated angle steps (characteristic
    function chi(k)^delta), d_U Watson's distance truncated at N harmonics
    (lo) and its upper end hi = sqrt(lo^2 + 2/(pi^2 N)) capped at 1/2.
    theory/mixstay_forms.h; rl_mixstay_chi.

    Parameters
    ----------
    chi : array_like of complex, shape (N,)
        chi[k-1] = E e^{ik theta}, k = 1..N, modulus <= 1.
    ctx : int
        T, the training length (tokens), >= 1.
    mult : int, optional
        L = mult * ctx (default 16, MIXSTAY_MULT); excludes `length`.
    length : int, optional
        L itself (tokens), T < L <= 1e15; excludes `mult`.
    curve : bool, default False
        Also return min_{delta' < T} d_U(mu_delta, mu_delta') at each far
        length of mixstay_grid.

    Returns
    -------
    lo, hi : float
        D_b's lower and upper ends, in [0, 1/2].
    far, near : int
        The arg max far length and its nearest near length (tokens).
    curve : ndarray of float64, shape (n,)
        Only with curve=True: the lower-end distance at each far length.

    Raises
    ------
    ValueError
        chi not 1-D, NaN or beyond 1 in modulus; mult and length both given;
        lengths out of range; a search beyond the pair or memory limits.
    MemoryError
        Memory ran out inside the library (RL_ENOMEM).
    RuntimeError
        An internal failure, or a library that lacks the calls or whose
        rl_mixstay_block differs.

    Examples
    --------
    >>> mixstay_block(np.zeros(8), 4, length=8)   # circle steps: mixed at once
    (0.0, 0.15915494309189535, 7, 3)
    """
    _check_block_struct()
    fn = L.need(_c["rl_mixstay_chi"], "rl_mixstay_chi")
    c = _phi("chi", chi)
    if c.ndim != 1:
        raise ValueError("chi must be 1-D (one block), got shape %s" % (c.shape,))
    c = np.ascontiguousarray(c)
    t, l = _length(ctx, mult, length)
    out = _Block()
    cv = None
    if curve:
        nf = L.need(_c["rl_mixstay_grid"], "rl_mixstay_grid")(t, l, None)
        cv = L.empty("mixstay_block", (max(nf, 1),))
    L.call(fn, "rl_mixstay_chi", c.ctypes.data_as(L.c_void_p), c.size, t, l, ctypes.byref(out),
           L.dbuf(cv) if cv is not None else None)
    res = (out.lo, out.hi, out.far, out.near)
    return res + (cv,) if curve else res
