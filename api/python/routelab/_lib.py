"""Loading libroutelab and its error convention (docs/layout.md#errors,
docs/library.md#library).

The shared library is found at $ROUTELAB_LIB, else inside the package
(routelab/libroutelab.so, where `pip install ./api/python` puts it), else at
build/libroutelab.so of this repository (two folders above this package),
else by ctypes.util.find_library("routelab").  Every C call returns an rl_status and
fills an rl_err: RL_EINPUT (2) becomes ValueError(message), RL_EINTERNAL (1)
RuntimeError(message).  Arguments the C side would refuse are checked here
first where a wrong type could otherwise reach C (dtype, shape, ranges of
C int), so that no call can crash the interpreter.
"""

import ctypes
import ctypes.util
import os

import numpy as np

RL_OK, RL_EINTERNAL, RL_EINPUT, RL_ECANCEL, RL_ENOMEM = 0, 1, 2, 3, 4

INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
ULONG_MAX = 2**64 - 1


class Err(ctypes.Structure):
    """rl_err of base/core/err.h: { int status; char msg[512]; }."""

    _fields_ = [("status", ctypes.c_int), ("msg", ctypes.c_char * 512)]


def _find():
    env = os.environ.get("ROUTELAB_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    shipped = os.path.join(here, "libroutelab.so")
    if os.path.exists(shipped):
        return shipped
    local = os.path.join(here, "..", "..", "..", "build", "libroutelab.so")
    if os.path.exists(local):
        return os.path.normpath(local)
    found = ctypes.util.find_library("routelab")
    if found:
        return found
    raise ImportError("routelab: libroutelab not found: set ROUTELAB_LIB, or run `make lib` "
                      "(build/libroutelab.so), or install it where the loader looks")


_path = _find()
try:
    lib = ctypes.CDLL(_path)
except OSError as e:  # a wrong path or a broken file: say which
    raise ImportError("routelab: cannot load %s: %s" % (_path, e)) from None

c_int, c_long, c_ulong, c_double = ctypes.c_int, ctypes.c_long, ctypes.c_ulong, ctypes.c_double
c_char_p, c_void_p, c_size_t = ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t
P = ctypes.POINTER
dptr = P(c_double)
lptr = P(c_long)
u16ptr = P(ctypes.c_uint16)


def proto(name, restype, *argtypes):
    """The C function `name` with its prototype (None when the library lacks it)."""
    f = getattr(lib, name, None)
    if f is not None:
        f.restype = restype
        f.argtypes = list(argtypes)
    return f


def need(f, name):
    if f is None:
        raise RuntimeError("routelab: %s is not in %s (a library older than this package?)" % (name, _path))
    return f


def check(status, err):
    """Raise the Python form of a failed rl_status."""
    if status == RL_OK:
        return
    msg = err.msg.decode("utf-8", "replace")
    if status == RL_EINPUT:
        raise ValueError(msg)
    if status == RL_ECANCEL:
        raise KeyboardInterrupt(msg)
    if status == RL_ENOMEM:
        raise MemoryError(msg)
    raise RuntimeError(msg or "routelab: internal failure (status %d)" % status)


def call(f, name, *args):
    """f(*args, &err) and raise on a failed status."""
    err = Err()
    check(need(f, name)(*args, ctypes.byref(err)), err)


_cancel = getattr(lib, "rl_cancel_request", None)
_cancel_clear = getattr(lib, "rl_cancel_clear", None)
for _f in (_cancel, _cancel_clear):
    if _f is not None:
        _f.restype, _f.argtypes = None, []


_worker = None


def call_long(f, name, *args):
    """call() for a long call (a model's evaluation, probe, forward,
    attention; the Monte Carlo kernels of mc.py) that Ctrl-C can stop: the C call runs in a worker thread
    (ctypes releases the GIL), the main thread waits in short slices so that
    Python's SIGINT handler runs; on KeyboardInterrupt the library is asked to
    stop (rl_cancel_request), its long loops return RL_ECANCEL within about a
    second, and the KeyboardInterrupt is raised once the call has returned
    (nothing of it is kept).  docs/library-robustness.md#ctrl-c."""
    import concurrent.futures
    global _worker
    f = need(f, name)
    err = Err()
    box = {}

    def work():
        box["status"] = f(*args, ctypes.byref(err))

    # one worker thread for every long call, kept: a new thread per call made OpenMP a team per
    # thread, and an interrupted call's team sometimes crashed the interpreter at exit
    if _worker is None:
        _worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="routelab")
    fut = _worker.submit(work)
    interrupted = False
    while not fut.done():
        try:
            concurrent.futures.wait([fut], timeout=0.05)
        except KeyboardInterrupt:
            interrupted = True
            if _cancel is not None:
                _cancel()
    fut.result()
    if interrupted or box.get("status") == RL_ECANCEL:
        if _cancel_clear is not None:
            _cancel_clear()
        raise KeyboardInterrupt("routelab: %s interrupted" % name)
    check(box["status"], err)


def as_int(name, v, lo=-INT_MAX - 1, hi=INT_MAX):
    """An integer argument in [lo, hi] (a C int unless told), or ValueError."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        if isinstance(v, (float, np.floating)) and float(v).is_integer():
            v = int(v)
        else:
            raise ValueError("%s must be an integer, got %r" % (name, v))
    v = int(v)
    if not lo <= v <= hi:
        raise ValueError("%s = %d is outside [%d, %d]" % (name, v, lo, hi))
    return v


def as_double(name, v):
    try:
        return float(v)
    except (TypeError, ValueError):
        raise ValueError("%s must be a number, got %r" % (name, v)) from None


def empty(what, shape, dtype=np.float64):
    """An output array, or ValueError when it does not fit in memory (the
    library's rule for a request beyond the machine: a bad input)."""
    try:
        return np.empty(shape, dtype=dtype)
    except (MemoryError, ValueError):
        raise ValueError("%s: an output of shape %s does not fit in memory" % (what, shape)) from None


def dbuf(a):
    """A pointer to a C-contiguous float64 array."""
    return a.ctypes.data_as(dptr)


def tokens(name, a):
    """A 1-D array of token ids as C-contiguous uint16 (ids are checked in C
    against the model's vocabulary); ValueError for another shape, a
    non-integer dtype or ids outside [0, 65535]."""
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError("%s must be a 1-D array of token ids, got shape %s" % (name, a.shape))
    if a.dtype != np.uint16:
        if not np.issubdtype(a.dtype, np.integer):
            raise ValueError("%s must hold integer token ids, got dtype %s" % (name, a.dtype))
        if a.size and (a.min() < 0 or a.max() > 65535):
            raise ValueError("%s: token ids must lie in [0, 65535]" % name)
        a = a.astype(np.uint16)
    return np.ascontiguousarray(a)


def lengths(name, ls):
    a = np.atleast_1d(np.asarray(ls))
    if a.ndim != 1 or a.size == 0 or not np.issubdtype(a.dtype, np.integer):
        raise ValueError("%s must be a non-empty list of integers, got %r" % (name, ls))
    return np.ascontiguousarray(a, dtype=np.int64)
