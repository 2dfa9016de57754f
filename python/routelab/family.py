"""Step families and their samplers (NOTES.md §14.3), through lib24's
include/routelab/family.h: rl_family_named, rl_family_set, rl_sample,
rl_family_window, rl_family_norm.

A family is named as on the command line (`--family so2 --d 64 --angles
uniform`): the registry name, the dimension, and the family flags as keyword
arguments with the CLI's flag names (angles='uniform', base=10000,
scale=1, beta=1, p=0.5, sigma=0.1, vocab=256), each passed to the library as
its string and parsed and range-checked by the same option entry the CLI
uses.
"""

import ctypes
import math

import numpy as np

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
    """The C rl_family (an opaque buffer of rl_family_sizeof() bytes) of
    registry name `name` at dimension d with the CLI's defaults, then each
    keyword flag set as on the command line.  ValueError carries the
    library's one-line message (an unknown family, d out of range, a bad
    flag value)."""

    def __init__(self, name, d, **params):
        if not isinstance(name, str):
            raise ValueError("family must be a registry name (str), got %r" % (name,))
        d = L.as_int("d", d)
        self.name, self.d, self.params = name, d, dict(params)
        self._buf = ctypes.create_string_buffer(L.need(_sizeof, "rl_family_sizeof")())
        L.call(_named, "rl_family_named", self._buf, name.encode(), d)
        for k, v in params.items():
            L.call(_set, "rl_family_set", self._buf, k.encode(), _flag_text(v).encode())

    @property
    def ptr(self):
        return ctypes.cast(self._buf, L.c_void_p)

    def __repr__(self):
        extra = "".join(", %s=%r" % kv for kv in self.params.items())
        return "Family(%r, d=%d%s)" % (self.name, self.d, extra)


def family(name, d, **params):
    """Family(name, d, **params); a Family passes through unchanged."""
    return name if isinstance(name, Family) else Family(name, d, **params)


def sample(family_name, d, count, seed, threads=1, **params):
    """Draw `count` steps M_t of a family: an array of shape (count, d, d),
    float64, step k from random stream k of `seed`, so the numbers are those
    `routelab sample --family NAME --d D --count N --seed S [flags]` prints
    (%.17g, one row-major matrix a line) for any thread count.

    Haar on O(d) is QR of a Gaussian matrix with the signs of R's diagonal
    fixed (Mezzadri 2007); SO(2) families are block-diagonal rotations by
    theta_b ~ law(omega_b), omega_b = scale * base^(-2b/d) (NOTES.md §14.2,
    §14.3).
    """
    count = L.as_int("count", count, 1, 10**9)
    seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
    threads = L.as_int("threads", threads, 1, 1024)
    f = family(family_name, d, **params)
    out = L.empty("sample", (count, f.d, f.d))
    L.call(_sample, "rl_sample", f.ptr, count, seed, threads, L.dbuf(out))
    return out


def mixing_window(family_name, d, block=-1, eps=0.1, **params):
    """The mixing window W(eps) = ceil(log(1/eps) / log(1/||E M||)): the least
    n >= 1 with ||E[M]||^n <= eps (NOTES.md §1.1), from the family's
    closed-form log ||E M|| (SO(2): the slowest block, or block `block`).
    math.inf when the family never mixes (||E M|| = 1).  The number
    `routelab bound window --family NAME --d D --block B --eps E [flags]`
    prints.  ValueError when the family has no certain closed form."""
    block = L.as_int("block", block, -1, 2048)
    eps = L.as_double("eps", eps)
    f = family(family_name, d, **params)
    w = ctypes.c_double()
    L.call(_window, "rl_family_window", f.ptr, block, eps, ctypes.byref(w))
    return math.inf if math.isinf(w.value) else int(w.value)


def norm(family_name, d, block=-1, **params):
    """||E[M]||_op of a step family in closed form (NOTES.md §1.1): SO(2)
    families the largest |chi_b| = |E e^{i theta_b}| over blocks (or block
    `block`), E[M] = cI families |c|.  The number `routelab bound norm
    --family NAME --d D [--block B] [flags]` prints."""
    block = L.as_int("block", block, -1, 2048)
    f = family(family_name, d, **params)
    v = ctypes.c_double()
    L.call(_norm, "rl_family_norm", f.ptr, block, ctypes.byref(v))
    return v.value
