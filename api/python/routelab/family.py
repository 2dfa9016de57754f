"""Step families and their samplers (docs/sampling.md#step-families), through the library's
api/include/routelab/family.h: rl_family_named, rl_family_set, rl_sample,
rl_family_window, rl_family_norm.

A family is named as on the command line (`--family so2 --d 64 --angles
uniform`): the registry name, the dimension, and the family flags as keyword
arguments with the CLI's flag names (angles='uniform', base=10000,
scale=1, beta=1, p=0.5, sigma=0.1, vocab=256), each passed to the library as
its string and parsed and range-checked by the same option entry the CLI
uses.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np
import numpy.typing as npt

from . import _lib as L

_sizeof = L.proto("rl_family_sizeof", L.c_size_t)
_named = L.proto("rl_family_named", L.c_int, L.c_void_p, L.c_char_p, L.c_int, L.P(L.Err))
_set = L.proto("rl_family_set", L.c_int, L.c_void_p, L.c_char_p, L.c_char_p, L.P(L.Err))
_sample = L.proto("rl_sample", L.c_int, L.c_void_p, L.c_long, L.c_ulong, L.c_int, L.dptr, L.P(L.Err))
_window = L.proto("rl_family_window", L.c_int, L.c_void_p, L.c_int, L.c_double, L.dptr, L.P(L.Err))
_norm = L.proto("rl_family_norm", L.c_int, L.c_void_p, L.c_int, L.dptr, L.P(L.Err))


def _flag_text(v):
    """A flag value as the CLI would read it: numbers at full precision."""
    if isinstance(v, bool):
        raise ValueError("a family flag takes a value, not %r" % v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


class Family:
    """A step family M_t named and set as on the command line (docs/sampling.md#step-families).

    The C rl_family (an opaque buffer of rl_family_sizeof() bytes) of
    registry name `name` at dimension d with the CLI's defaults (angles
    uniform, base 10000, scale 1, beta 1, p 0.5, sigma 0.1, vocab 256), then
    each keyword flag set as on the command line (rl_family_named,
    rl_family_set).  The families: haar, haar-so (Haar on O(d) / SO(d)); so2
    (block-diagonal rotations by theta_b ~ law(omega_b), omega_b = scale *
    base^(-2b/d) radians per step); token-so2; householder (I - 2 w w^T);
    path (I - beta w w^T); lazy-haar; brownian (exp(sigma A)); cayley
    ((I - sigma A)^{-1} (I + sigma A)).

    Parameters
    ----------
    name : str
        The registry name (``routelab sample --family``).
    d : int
        Dimension of the step matrices (``--d``), 2..4096 (even for so2 and
        token-so2).
    **params
        Family flags under the CLI's names without dashes (angles, base,
        scale, beta, p, sigma, vocab), each a value whose text the CLI's
        option entry parses (numbers at full precision).

    Attributes
    ----------
    name : str
        The registry name.
    d : int
        The dimension.
    params : dict
        The flags as given.

    Raises
    ------
    ValueError
        The library's one-line message: an unknown family, d out of range,
        a bad flag value or a flag the family does not read.
    RuntimeError
        The library lacks the family calls.

    Examples
    --------
    >>> Family('so2', 8, angles='pm')
    Family('so2', d=8, angles='pm')
    """

    def __init__(self, name: str, d: int, **params: object) -> None:
        if not isinstance(name, str):
            raise ValueError("family must be a registry name (str), got %r" % (name,))
        d = L.as_int("d", d)
        self.name, self.d, self.params = name, d, dict(params)
        self._buf = ctypes.create_string_buffer(L.need(_sizeof, "rl_family_sizeof")())
        L.call(_named, "rl_family_named", self._buf, name.encode(), d)
        for k, v in params.items():
            L.call(_set, "rl_family_set", self._buf, k.encode(), _flag_text(v).encode())

    @property
    def ptr(self) -> ctypes.c_void_p:
        """The address of the C rl_family, for the library's calls.

        Returns
        -------
        ctypes.c_void_p
            A pointer into this Family's buffer (valid while the Family
            lives).
        """
        return ctypes.cast(self._buf, L.c_void_p)

    def __repr__(self):
        extra = "".join(", %s=%r" % kv for kv in self.params.items())
        return "Family(%r, d=%d%s)" % (self.name, self.d, extra)


def family(name: str | Family, d: int | None = None, **params: object) -> Family:
    """A Family from a registry name, or a Family passed through.

    Family(name, d, **params); a Family passes through unchanged, and a d or
    flags given beside it must be its own (ValueError otherwise: a Family's
    d never overrides d= in silence).

    Parameters
    ----------
    name : str or Family
        The registry name (``--family``), or a Family.
    d : int, optional
        Dimension of the step matrices (``--d``), 2..4096; needed with a
        name, and equal to the Family's own d when given with one.
    **params
        Family flags under the CLI's names (angles, base, scale, beta, p,
        sigma, vocab); none with a Family.

    Returns
    -------
    Family
        The family (the very object when a Family is given).

    Raises
    ------
    ValueError
        No d with a name; a d or flags beside a Family that differ from its
        own; the library's message for an unknown family, d out of range or
        a bad flag.
    RuntimeError
        The library lacks the family calls.

    Examples
    --------
    >>> family('haar', 8)
    Family('haar', d=8)
    >>> f = family('so2', 8, angles='pm')
    >>> family(f, d=8) is f
    True
    """
    if isinstance(name, Family):
        if d is not None and L.as_int("d", d) != name.d:
            raise ValueError("d=%r given with %r, whose d is %d" % (d, name, name.d))
        if params:
            raise ValueError("flags %s given with %r: set them when the Family is made"
                             % (", ".join(sorted(params)), name))
        return name
    if d is None:
        raise ValueError("d (the dimension) is needed with a family name")
    return Family(name, d, **params)


def _default(name: str) -> float:
    """The shared default of `name` (<routelab/defaults.h>): the number the
    command line takes when the flag is left out."""
    v = L.need(_defaults, "rl_default")(name.encode())
    if math.isnan(v):
        raise RuntimeError("routelab: no default %r in the library's table" % name)
    return v


_defaults = L.proto("rl_default", L.c_double, L.c_char_p)


def sample(family: str | Family, d: int | None, count: int, seed: int, threads: int = 1,
           **params: object) -> npt.NDArray[np.float64]:
    """Draw `count` steps M_t of a family.

    Step k is drawn from random stream k of `seed`, so the numbers do not
    depend on the thread count.  Haar on O(d) is QR of a Gaussian matrix
    with the signs of R's diagonal fixed (Mezzadri 2007); SO(2) families are
    block-diagonal rotations by theta_b ~ law(omega_b), omega_b = scale *
    base^(-2b/d) radians per step (docs/sampling.md#haar, docs/sampling.md#step-families).
    rl_sample.

    Parameters
    ----------
    family : str or Family
        The registry name (``routelab sample --family``) or a Family.
    d : int or None
        Dimension of the step matrices (``--d``), 2..4096; None with a
        Family.
    count : int
        Steps drawn, in [1, 1e9].
    seed : int
        Random seed, in [0, 2^64 - 1]; step k comes from random stream k of
        `seed`.
    threads : int, default 1
        Worker threads, 1..1024; the numbers do not depend on it.
    **params
        Family flags under the CLI's names (angles, base, scale, beta, p,
        sigma, vocab).

    Returns
    -------
    ndarray of float64, shape (count, d, d)
        The steps (dimensionless matrices): the numbers ``routelab sample
        --family NAME --d D --count N --seed S`` prints (%.17g, one
        row-major matrix a line).

    Raises
    ------
    ValueError
        A bad argument or flag (the library's message), or an output
        beyond the machine's memory.
    MemoryError
        Memory ran out inside the library (RL_ENOMEM).
    RuntimeError
        A step's draw failed (internal failure), or the library lacks
        rl_sample.

    Examples
    --------
    >>> U = sample('haar', d=8, count=4, seed=1)
    >>> U.shape
    (4, 8, 8)
    >>> bool(np.allclose(U[0] @ U[0].T, np.eye(8)))
    True
    """
    count = L.as_int("count", count, 1, 10**9)
    seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
    threads = L.as_int("threads", threads, 1, 1024)
    f = _family_of(family, d, **params)
    out = L.empty("sample", (count, f.d, f.d))
    L.call(_sample, "rl_sample", f.ptr, count, seed, threads, L.dbuf(out))
    return out


def mixing_window(family: str | Family, d: int | None = None, block: int | None = None,
                  eps: float | None = None, **params: object) -> int | float:
    """The mixing window W(eps) of a family, in steps.

    W(eps) = ceil(log(1/eps) / log(1/||E M||)), the least n >= 1 with
    ||E[M]||^n <= eps (docs/theory/claim1-mixing.md#mixing-window), from the family's closed-form
    log ||E M|| (SO(2): the slowest block, or block `block`).
    rl_family_window.

    Parameters
    ----------
    family : str or Family
        The registry name or a Family, as in `sample`.
    d : int, optional
        Dimension of the step matrices, 2..4096; None with a Family.
    block : int, optional
        One SO(2) block b, in [0, d/2 - 1]; default (None) the shared
        default, -1: the maximum over blocks.
    eps : float, optional
        Tolerance in (0, 1); default (None) the shared default 0.01, the
        number ``routelab bound window`` takes (<routelab/defaults.h>).
    **params
        Family flags under the CLI's names, as in `sample`.

    Returns
    -------
    int or float
        W(eps) in steps (an int), or math.inf when the family never mixes
        (||E M|| = 1): the number ``routelab bound window --family NAME
        --d D --block B --eps E`` prints.

    Raises
    ------
    ValueError
        The family has no certain closed form (its mean must be certain to
        1e-7), block or eps out of range, or a bad family argument.
    MemoryError
        Memory ran out inside the library (RL_ENOMEM).
    RuntimeError
        An internal failure, or a library without the call or its defaults.

    Examples
    --------
    >>> mixing_window('so2', d=64, block=31, angles='uniform')
    1553806503
    >>> mixing_window('haar', d=8)
    1
    """
    block = L.as_int("block", _default("block") if block is None else block, -1, 2048)
    eps = L.as_double("eps", _default("eps") if eps is None else eps)
    f = _family_of(family, d, **params)
    w = ctypes.c_double()
    L.call(_window, "rl_family_window", f.ptr, block, eps, ctypes.byref(w))
    return math.inf if math.isinf(w.value) else int(w.value)


def family_norm(family: str | Family, d: int | None = None, block: int | None = None,
                **params: object) -> float:
    """||E[M]||_op of a step family in closed form (docs/theory/claim1-mixing.md#mixing-window).

    SO(2) families: the largest |chi_b| = |E e^{i theta_b}| over blocks (or
    block `block`); E[M] = cI families: |c|.  The number ``routelab bound
    norm --family NAME --d D [--block B]`` prints.  (Named family_norm, not
    norm: it is no distribution.)  rl_family_norm.

    Parameters
    ----------
    family : str or Family
        The registry name or a Family, as in `sample`.
    d : int, optional
        Dimension of the step matrices, 2..4096; None with a Family.
    block : int, optional
        One SO(2) block b, in [0, d/2 - 1]; default (None) the shared
        default, -1: the maximum over blocks.
    **params
        Family flags under the CLI's names, as in `sample`.

    Returns
    -------
    float
        The operator norm of the mean step, in [0, 1] (dimensionless).

    Raises
    ------
    ValueError
        No closed form at these parameters (or its error bound not below
        1e-9), a block out of range or on a family that is not SO(2), or a
        bad family argument.
    MemoryError
        Memory ran out inside the library (RL_ENOMEM).
    RuntimeError
        An internal failure, or a library without the call or its defaults.

    Examples
    --------
    >>> family_norm('so2', 8, angles='uniform')
    0.9999998333333416
    """
    block = L.as_int("block", _default("block") if block is None else block, -1, 2048)
    f = _family_of(family, d, **params)
    v = ctypes.c_double()
    L.call(_norm, "rl_family_norm", f.ptr, block, ctypes.byref(v))
    return v.value


_family_of = family  # the function, under a name the parameters named family do not shadow
