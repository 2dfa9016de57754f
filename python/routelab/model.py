"""Trained models (include/routelab/model.h): a checkpoint of `routelab
train`, its configuration and parameters, the token-paired evaluation of
`routelab eval` (NOTES.md §9) and the attention probe of `routelab probe`
(NOTES.md §3.8, §7.6)."""

import ctypes
import io
import os
from dataclasses import dataclass, fields

import numpy as np

from . import _lib as L


class _Info(ctypes.Structure):
    _fields_ = [("layers", L.c_int), ("width", L.c_int), ("heads", L.c_int), ("ctx", L.c_int),
                ("vocab", L.c_int), ("dropout", L.c_double), ("rot_base", L.c_double),
                ("pos", ctypes.c_char * 64), ("step", L.c_long), ("steps", L.c_long), ("seed", L.c_ulong),
                ("nparams", L.c_long), ("ntensors", L.c_int)]


_ROW = ["L", "windows", "targets", "windows_wanted", "loss", "se", "ppl", "ratio", "ref_loss", "dlog",
        "dlog_se", "paired_ratio", "new_targets", "new_loss", "new_ref", "new_dlog", "new_se", "new_ratio",
        "unigram", "spans", "slots"]
_LONGS = {"L", "windows", "targets", "windows_wanted", "new_targets", "spans", "slots"}


class _Row(ctypes.Structure):
    _fields_ = [(n, L.c_long if n in _LONGS else L.c_double) for n in _ROW]


_load = L.proto("rl_model_load", L.c_int, L.c_char_p, L.P(L.c_void_p), L.P(L.Err))
_free = L.proto("rl_model_free", None, L.c_void_p)
_info = L.proto("rl_model_get_info", None, L.c_void_p, L.P(_Info))
_tensor = L.proto("rl_model_tensor", L.c_int, L.c_void_p, L.c_int, L.P(L.c_char_p), L.P(L.P(ctypes.c_float)),
                  L.P(L.c_long), L.P(L.Err))
_data = L.proto("rl_model_data", L.c_int, L.c_char_p, L.c_int, L.P(L.u16ptr), L.P(L.c_long), L.P(L.u16ptr),
                L.P(L.c_long), L.P(L.Err))
_buffree = L.proto("rl_model_buffer_free", None, L.c_void_p)
_eval = L.proto("rl_model_eval", L.c_int, L.c_void_p, L.u16ptr, L.c_long, L.u16ptr, L.c_long, L.lptr, L.c_int,
                L.c_long, L.c_ulong, L.c_int, L.P(_Row), L.P(L.Err))
_probe = L.proto("rl_model_probe", L.c_int, L.c_void_p, L.u16ptr, L.c_long, L.lptr, L.c_int, L.c_long, L.c_ulong,
                 L.c_int, L.P(L.c_void_p), L.P(L.c_void_p), L.P(L.Err))


@dataclass
class EvalRow:
    """One length of the token-paired evaluation (a row of eval.tsv; model/evaluate.h):
    loss = mean cross-entropy (nats) of the targets, se over windows; ppl = e^loss;
    ratio = ppl / ppl(first length); paired D(L) = mean(l_L(p) - r(p)) (dlog, dlog_se),
    paired_ratio = e^{D(L)} = ppl(L)/ppl(T) on the same tokens; new_*: the targets at
    positions p >= T alone; unigram: the no-context loss of the same targets."""

    L: int
    windows: int
    targets: int
    windows_wanted: int
    loss: float
    se: float
    ppl: float
    ratio: float
    ref_loss: float
    dlog: float
    dlog_se: float
    paired_ratio: float
    new_targets: int
    new_loss: float
    new_ref: float
    new_dlog: float
    new_se: float
    new_ratio: float
    unigram: float
    spans: int
    slots: int


def _table(text):
    """A TSV text into a dict of column name -> numpy array."""
    lines = text.splitlines()
    if not lines:
        return {}
    head = lines[0].split("\t")
    rows = [ln.split("\t") for ln in lines[1:] if ln]
    out = {}
    for j, h in enumerate(head):
        col = [r[j] for r in rows]
        try:
            arr = np.array([int(v) for v in col], dtype=np.int64)
        except ValueError:
            arr = np.array([float(v) for v in col], dtype=np.float64)
        out[h] = arr
    return out


@dataclass
class Probe:
    """`routelab probe`'s two tables: probe (probe.tsv: length, layer, head, W,
    far_mass, ..., entropy) and distance (distance.tsv), each a dict of column
    -> array, and their text byte for byte (probe_tsv, distance_tsv)."""

    probe: dict
    distance: dict
    probe_tsv: str
    distance_tsv: str


def load_data(path, vocab):
    """A data set as the commands read it: DIR (DIR/train.bin, DIR/val.bin) or
    one token FILE split 90% / 10%; returns (train, val) as uint16 arrays.
    ValueError naming the file when it is missing or malformed, or an id is
    >= vocab."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError("path must be a str, got %r" % (path,))
    vocab = L.as_int("vocab", vocab, 2, 65536)
    tp, vp = L.u16ptr(), L.u16ptr()
    nt, nv = L.c_long(), L.c_long()
    L.call(_data, "rl_model_data", os.fsencode(path), vocab, ctypes.byref(tp), ctypes.byref(nt),
           ctypes.byref(vp), ctypes.byref(nv))
    try:
        train = np.ctypeslib.as_array(tp, shape=(nt.value,)).copy() if nt.value else np.empty(0, np.uint16)
        val = np.ctypeslib.as_array(vp, shape=(nv.value,)).copy() if nv.value else np.empty(0, np.uint16)
    finally:
        _buffree(ctypes.cast(tp, L.c_void_p))
        _buffree(ctypes.cast(vp, L.c_void_p))
    return train, val


class Model:
    """A trained model loaded from a checkpoint of `routelab train`."""

    def __init__(self, handle, path):
        self._h = handle
        self.path = path
        i = _Info()
        _info(self._h, ctypes.byref(i))
        self.config = {f[0]: (getattr(i, f[0]).decode() if f[0] == "pos" else getattr(i, f[0]))
                       for f in _Info._fields_}
        self._params = None

    @classmethod
    def load(cls, ckpt):
        """Load a checkpoint (parameters only).  ValueError naming the file
        when it is missing, unreadable, truncated, corrupt, of another format
        or holds non-finite parameters (model/ckpt.h)."""
        if not isinstance(ckpt, (str, os.PathLike)):
            raise ValueError("ckpt must be a path, got %r" % (ckpt,))
        h = L.c_void_p()
        L.call(L.need(_load, "rl_model_load"), "rl_model_load", os.fsencode(ckpt), ctypes.byref(h))
        return cls(h, os.fspath(ckpt))

    def close(self):
        if getattr(self, "_h", None) and _free is not None:  # _free: None at interpreter exit
            _free(self._h)
            self._h = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def _handle(self):
        if not self._h:
            raise ValueError("the model is closed")
        return self._h

    @property
    def parameters(self):
        """name -> float32 array (a copy) of every parameter tensor, in the
        checkpoint's order (flat: the shapes are the tensors' roles in
        model/gpt.h)."""
        if self._params is None:
            out = {}
            for i in range(self.config["ntensors"]):
                nm, data, n = L.c_char_p(), L.P(ctypes.c_float)(), L.c_long()
                L.call(_tensor, "rl_model_tensor", self._handle(), i, ctypes.byref(nm), ctypes.byref(data),
                       ctypes.byref(n))
                out[nm.value.decode()] = np.ctypeslib.as_array(data, shape=(n.value,)).copy()
            self._params = out
        return self._params

    def eval(self, tokens, lengths, targets=65536, full=False, seed=42, train_tokens=None, threads=1):
        """`routelab eval --lengths L1,... --targets N [--full] --seed S` on the
        validation stream `tokens` (1-D token ids), the unigram loss from
        `train_tokens` (None: NaN): one EvalRow per length (NOTES.md §9.1).
        The numbers are those of eval.tsv (which prints them at %.6f)."""
        tok = L.tokens("tokens", tokens)
        ls = L.lengths("lengths", lengths)
        targets = 0 if full else L.as_int("targets", targets, 1, L.LONG_MAX)
        seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
        threads = L.as_int("threads", threads, 1, 1024)
        tr = None if train_tokens is None else L.tokens("train_tokens", train_tokens)
        rows = (_Row * ls.size)()
        L.call(_eval, "rl_model_eval", self._handle(), tok.ctypes.data_as(L.u16ptr), tok.size,
               tr.ctypes.data_as(L.u16ptr) if tr is not None else None, 0 if tr is None else tr.size,
               ls.ctypes.data_as(L.lptr), ls.size, targets, seed, threads, rows)
        return [EvalRow(**{n: getattr(r, n) for n in _ROW}) for r in rows]

    def probe(self, tokens, lengths=None, windows=4, seed=42, threads=1):
        """`routelab probe --lengths L1,... --windows W --seed S` on the
        validation stream `tokens`: far mass beyond W, the bound M/(M + K
        e^{2 lambda}) and its shift-invariant form, logits against distance
        (NOTES.md §3.8, §7.6).  lengths None: T and 16 T.  Returns a Probe."""
        tok = L.tokens("tokens", tokens)
        ls = np.empty(0, np.int64) if lengths is None else L.lengths("lengths", lengths)
        windows = L.as_int("windows", windows, 1, 10**6)
        seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
        threads = L.as_int("threads", threads, 1, 1024)
        pp, dp = L.c_void_p(), L.c_void_p()
        L.call(_probe, "rl_model_probe", self._handle(), tok.ctypes.data_as(L.u16ptr), tok.size,
               ls.ctypes.data_as(L.lptr), ls.size, windows, seed, threads, ctypes.byref(pp), ctypes.byref(dp))
        try:
            ptxt = ctypes.string_at(pp).decode()
            dtxt = ctypes.string_at(dp).decode()
        finally:
            _buffree(pp)
            _buffree(dp)
        return Probe(_table(ptxt), _table(dtxt), ptxt, dtxt)
