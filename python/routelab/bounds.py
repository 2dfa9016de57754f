"""The closed forms and bounds of the study as functions of numpy arrays
(theory/theory.h; include/routelab/bounds.h).

Each function broadcasts its arguments (numpy rules) and returns a float64
array of the broadcast shape, or a Python float when every argument is a
scalar; a whole array is one C call (rl_form_eval), whose value at each point
is the scalar C function's, so a grid gives exactly the numbers of
`routelab bound NAME` at its points (%.17g).
Integer arguments (d) must be integers.  Outside a formula's domain the C
function's value is returned as it is (NaN where it has none).
"""

import ctypes
from dataclasses import dataclass

import numpy as np

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


def levy_tail(d, t):
    """The spherical-cap bound (Ball 1997, Lemma 2.2) for u uniform on
    S^{d-1}: P(|<e,u>| >= t) <= min(1, 2 exp(-d t^2 / 2)).  NOTES.md §2.1;
    `routelab bound levy --d D --t T`."""
    return _vec("rl_levy_tail", "id", d, t)


def levy_so_tail(d, t):
    """Levy's concentration on SO(d), d >= 3: P(|f - E f| >= t) <=
    min(1, 2 exp(-(d - 2) t^2 / 8)) for f 1-Lipschitz in the Hilbert-Schmidt
    metric (1 for d < 3).  NOTES.md §2.1; `routelab bound levy-so`."""
    return _vec("rl_levy_so_tail", "id", d, t)


def beta_tail(d, t):
    """The exact tail P(|<e,u>| >= t), <e,u>^2 ~ Beta(1/2, (d-1)/2) for u
    uniform on S^{d-1}.  NOTES.md §2.1; `routelab bound beta-tail`."""
    return _vec("rl_beta_tail", "id", d, t)


def beta_coord_cdf(d, x):
    """The exact CDF P(<e,u> <= x), x in [-1, 1], u uniform on S^{d-1}.
    NOTES.md §2.1."""
    return _vec("rl_beta_coord_cdf", "id", d, x)


def sphere_log_mgf(d, lam):
    """log E e^{lambda <e,u>} for u uniform on S^{d-1}, d >= 2:
    log of Gamma(d/2) (2/lambda)^{d/2-1} I_{d/2-1}(lambda) (NOTES.md §2.3.2);
    even in lambda, |lambda| <= 500."""
    return _vec("rl_sphere_log_mgf", "id", d, lam)


def hoeffding(t, a):
    """Hoeffding for a sum of independent block scores s_b in [-a_b, a_b]:
    P(|s - E s| >= t) <= min(1, 2 exp(-t^2 / (2 sum_b a_b^2))).  t broadcasts;
    a is one 1-D array of block ranges a_b = ||q_b|| ||k_b||.  NOTES.md §2.1;
    `routelab bound hoeffding --t T --a a1,a2,...`."""
    a = np.ascontiguousarray(np.asarray(a, dtype=np.float64).reshape(-1))
    if a.size == 0 or a.size > L.INT_MAX:
        raise ValueError("hoeffding: a must hold at least one block range")
    tt = np.asarray(t, dtype=np.float64)
    flat = np.ascontiguousarray(tt.reshape(-1))
    out = np.empty(tt.shape, dtype=np.float64)
    L.call(L.need(_hoeff, "rl_hoeffding_so2_array"), "rl_hoeffding_so2_array", L.dbuf(flat), flat.size, L.dbuf(a),
           int(a.size), L.dbuf(out))
    return float(out[()]) if tt.ndim == 0 else out


def farmass_lower(m, k, lam):
    """The far-mass lower bound with logits in [-lambda, lambda], K near and
    M far tokens: rho_D >= M / (M + K e^{2 lambda}) (equality when every near
    logit is +lambda and every far one -lambda).  NOTES.md §3.1;
    `routelab bound farmass --ml M --k K --lambda LAMBDA`."""
    return _vec("rl_farmass_lower", "ddd", m, k, lam)


def farmass_lower_log(m, k, lam):
    """log of farmass_lower: log M - logaddexp(log M, log K + 2 lambda),
    finite for every finite lambda (the bound itself underflows past lambda
    ~ 372).  NOTES.md §3.1, §10.5."""
    return _vec("rl_farmass_lower_log", "ddd", m, k, lam)


def farmass_upper(m, k, lam):
    """The matching upper bound M / (M + K e^{-2 lambda}).  NOTES.md §3.1;
    `routelab bound farmass-upper`."""
    return _vec("rl_farmass_upper", "ddd", m, k, lam)


def farmass_half(k, lam):
    """Far tokens M at which the lower bound reaches 1/2: M = K e^{2 lambda}.
    NOTES.md §3.1; `routelab bound farmass-half --k K --lambda LAMBDA`."""
    return _vec("rl_farmass_half", "dd", k, lam)


def farmass_half_log(k, lam):
    """log of farmass_half: log K + 2 lambda.  NOTES.md §3.1."""
    return _vec("rl_farmass_half_log", "dd", k, lam)


def farmass_range(m, k, delta):
    """The shift-invariant far-mass bound for realised logits:
    rho_D >= M / (M + K e^{Delta}), Delta = max near logit - min far logit.
    NOTES.md §3.8."""
    return _vec("rl_farmass_range", "ddd", m, k, delta)


def farmass_range_log(m, k, delta):
    """log of farmass_range (finite for every finite Delta).  NOTES.md §3.8."""
    return _vec("rl_farmass_range_log", "ddd", m, k, delta)


def farmass_admissible(k, p, delta):
    """Far keys at which farmass_range forces rho_D >= p (0 < p < 1):
    M*(p) = K p e^{Delta} / (1 - p); the context is L* = K + M*.  NOTES.md §3.8."""
    return _vec("rl_farmass_admissible", "ddd", k, p, delta)


def farmass_admissible_log(k, p, delta):
    """log of farmass_admissible.  NOTES.md §3.8."""
    return _vec("rl_farmass_admissible_log", "ddd", k, p, delta)


def alibi(m, k, lam, slope, best=False):
    """Far mass under an ALiBi bias -slope * distance, K near tokens at
    distances 0..K-1 and M far ones at K..K+M-1, logits in [-lambda, lambda]:
    worst case rho <= 1 / (1 + e^{-2 lambda} N/F), N/F = (e^{slope K} - 1) /
    (1 - e^{-slope M}); best=True gives the matching lower bound
    (e^{+2 lambda}).  NOTES.md §3.1; `routelab bound alibi [--best]`."""
    return _vec("rl_farmass_alibi", "ddddi", m, k, lam, slope, np.asarray(best).astype(np.int64))


def alibi_log(m, k, lam, slope, best=False):
    """log of alibi, finite for every finite lambda and slope.  NOTES.md §3.1."""
    return _vec("rl_farmass_alibi_log", "ddddi", m, k, lam, slope, np.asarray(best).astype(np.int64))


def value_coherent(rho, vnorm):
    """The far value contribution without transport: ||r|| = rho ||v||.
    NOTES.md §4.1; `routelab bound value-coherent`."""
    return _vec("rl_value_coherent", "dd", rho, vnorm)


def _window(cname, x, eps):
    w = _vec(cname, "dd", x, eps)
    arr = np.asarray(w, dtype=np.float64)
    # -1 (never) is inf, the undefined window (a NaN input) NaN, as `bound window` prints them
    arr = np.where(arr == -1, np.inf, np.where(arr == WINDOW_UNDEFINED, np.nan, arr))
    return float(arr[()]) if np.ndim(w) == 0 else arr


def window(norm, eps):
    """Mixing window W(eps) = ceil(log(1/eps) / log(1/norm)): the least n >= 1
    with norm^n <= eps; 1 for norm = 0, inf (never) for norm >= 1, NaN for a
    NaN norm.  NOTES.md §1.1; `routelab bound window --norm N --eps E`."""
    return _window("rl_mixing_window", norm, eps)


def window_log(lognorm, eps):
    """W(eps) from log ||E M|| <= 0: ceil(-log(eps) / -lognorm), at least 1;
    inf for lognorm >= 0.  Exact to the integer when lognorm is good to a
    few ulps.  NOTES.md §1.1, §10.5."""
    return _window("rl_mixing_window_log", lognorm, eps)


# ---- routelab's mix-or-stay condition (theory/mixstay.h) ------------------

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
#: by the tests (python/tests/test_bounds.py).
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


def watson_distance(phi_mu, phi_nu):
    """Watson's (circular Cramér–von Mises) distance between laws mu, nu on the
    circle from their characteristic functions phi(k) = E e^{ikX}, k = 1..N, along the
    last axis (leading axes broadcast):

        d_U = ((1/2pi) int (G - mean G)^2)^{1/2}, G = F_mu - F_nu
            = sqrt(sum_k |phi_mu(k) - phi_nu(k)|^2 / k^2) / (pi sqrt 2)   in [0, 1/2].

    Returns (lo, hi): the sum truncated at N harmonics and sqrt(lo^2 + 2/(pi^2 N))
    (capped at 1/2): the exact distance lies between.  Floats for 1-D inputs, else arrays
    of the broadcast leading shape.  ValueError (the library's message) for a NaN or a
    modulus above 1.  theory/mixstay.h; rl_watson_dist."""
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


def mixstay_grid(ctx, length):
    """The far lengths delta of routelab's condition at T = ctx, L = length (every delta
    in [T, L-1] when (L - T) T <= 2^20, else every delta below 4T and 64 per octave
    to L - 1): an int64 array.  rl_mixstay_grid."""
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
    """Routelab's mix-or-stay condition for an SO(2) head (theory/mixstay.h;
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


def mixstay(angles="uniform", d=64, base=10000.0, scale=1.0, ctx=128, mult=None, length=None, harmonics=None):
    """Routelab's mix-or-stay condition for the so2 head (d, angles, base, scale, as the
    CLI's flags: each parsed and range-checked by the CLI's option entry) at T = ctx and
    L = mult*ctx (mult 16 by default) or L = length: a MixStay with the numbers
    `routelab bound mixstay --d D --angles A --base B --scale S --ctx T --mult M
    --harmonics N` prints.  rl_mixstay_family."""
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


def mixstay_block(chi, ctx, mult=None, length=None, curve=False):
    """D_b(T, L) of one block whose step law has chi[k-1] = E e^{ik theta}, k = 1..N
    (1-D, modulus <= 1): (lo, hi, far, near), and with curve=True also
    min_{delta' < T} d_U(mu_delta, mu_delta') at each far length of mixstay_grid (an
    array).  rl_mixstay_chi."""
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
