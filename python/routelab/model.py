"""Trained models (include/routelab/model.h): a checkpoint of `routelab
train`, its configuration and parameters, the token-paired evaluation of
`routelab eval` (NOTES.md §9) and the attention probe of `routelab probe`
(NOTES.md §3.8, §7.6)."""

import ctypes
import io
import os
import threading
from dataclasses import dataclass

import numpy as np

from . import _lib as L


class _Info(ctypes.Structure):
    _fields_ = [("layers", L.c_int), ("width", L.c_int), ("heads", L.c_int), ("ctx", L.c_int),
                ("vocab", L.c_int), ("dropout", L.c_double), ("rot_base", L.c_double),
                ("pos", ctypes.c_char * 64), ("step", L.c_long), ("steps", L.c_long), ("seed", L.c_ulong),
                ("nparams", L.c_long), ("ntensors", L.c_int)]


# rl_model_eval_row's fields in their C order, each under its eval.tsv column name (the names a
# researcher reads in the files; model/evaluate.h)
_ROW = ["length", "windows", "targets", "windows_wanted", "mean_loss", "stderr", "ppl", "ratio", "ref_loss",
        "paired_logratio", "paired_se", "paired_ratio", "new_targets", "new_loss", "new_ref_loss",
        "new_logratio", "new_se", "new_ratio", "unigram_loss", "spans", "slots"]
_LONGS = {"length", "windows", "targets", "windows_wanted", "new_targets", "spans", "slots"}


class _Row(ctypes.Structure):
    _fields_ = [(n, L.c_long if n in _LONGS else L.c_double) for n in _ROW]


#: The dtype of Model.eval's result: eval.tsv's columns that the library computes.
EVAL_DTYPE = np.dtype([(n, np.int64 if n in _LONGS else np.float64) for n in _ROW])


def _check_layout(struct, name):
    """The ctypes mirror of a C struct against the library's own sizeof: a
    library built from other headers is refused at import, not read wrong."""
    f = getattr(L.lib, name, None)
    if f is None:
        return  # an older library: the calls that need it say so
    f.restype, f.argtypes = L.c_size_t, []
    if f() != ctypes.sizeof(struct):
        raise ImportError("routelab: %s is %d bytes in %s, %d here: the package and the library differ"
                          % (struct.__name__, f(), L._path, ctypes.sizeof(struct)))


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
_shape = L.proto("rl_model_tensor_shape", L.c_int, L.c_void_p, L.c_int, L.P(L.c_long), L.P(L.c_int), L.P(L.Err))
_forward = L.proto("rl_model_forward", L.c_int, L.c_void_p, L.u16ptr, L.c_long, L.c_ulong, L.c_int,
                   L.P(ctypes.c_float), L.P(L.Err))
_attention = L.proto("rl_model_attention", L.c_int, L.c_void_p, L.u16ptr, L.c_long, L.c_int, L.c_ulong, L.c_int,
                     L.P(ctypes.c_float), L.P(L.Err))
_check_layout(_Info, "rl_model_info_sizeof")
_check_layout(_Row, "rl_model_eval_row_sizeof")
_probe = L.proto("rl_model_probe", L.c_int, L.c_void_p, L.u16ptr, L.c_long, L.lptr, L.c_int, L.c_long, L.c_ulong,
                 L.c_int, L.P(L.c_void_p), L.P(L.c_void_p), L.P(L.Err))


def _table(text):
    """A TSV text into a numpy record array, one field per column (int64 when
    every value is an integer, else float64); rows[i].column or rows["column"]."""
    lines = text.splitlines()
    if not lines:
        return np.rec.array(np.empty(0, dtype=[]))
    head = lines[0].split("\t")
    rows = [ln.split("\t") for ln in lines[1:] if ln]
    cols = []
    for j in range(len(head)):
        col = [r[j] for r in rows]
        try:
            cols.append(np.array([int(v) for v in col], dtype=np.int64))
        except ValueError:
            cols.append(np.array([float(v) for v in col], dtype=np.float64))
    return np.rec.fromarrays(cols, names=head) if rows else np.rec.array(
        np.empty(0, dtype=[(h, np.float64) for h in head]))


@dataclass
class Probe:
    """`routelab probe`'s two tables as record arrays, one field per column:
    probe (probe.tsv: length, layer, head, W, far_mass, ..., entropy) and
    distance (distance.tsv); and their text byte for byte (probe_tsv,
    distance_tsv), as the command writes them."""

    probe: np.recarray
    distance: np.recarray
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
    """A trained model loaded from a checkpoint of `routelab train`.

    Threads may share a Model: its calls run one at a time (a lock), and close() waits for a
    running call before it frees the model."""

    def __init__(self, handle, path):
        # held by every call into the model and by close(): close() from another thread waits for a
        # running call instead of freeing the model under it (issue 40, fault 4: a segfault)
        self._lock = threading.RLock()
        self._h = handle
        self.path = path
        i = _Info()
        _info(self._h, ctypes.byref(i))
        self.config = {f[0]: (getattr(i, f[0]).decode() if f[0] == "pos" else getattr(i, f[0]))
                       for f in _Info._fields_}
        self._params = None

    def __repr__(self):
        c = self.config
        return ("Model(%r: %s, %d layers x width %d in %d heads, T = %d, vocab %d, step %d of %d, seed %d, "
                "%d parameters)" % (self.path, c["pos"], c["layers"], c["width"], c["heads"], c["ctx"], c["vocab"],
                                    c["step"], c["steps"], c["seed"], c["nparams"]))

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
        """Free the model; a call running in another thread finishes first (close waits for it)."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
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
    def parameters(self) -> "dict[str, np.ndarray]":
        """name -> float32 array (a copy) of every parameter tensor, in the
        checkpoint's order, in its shape: a linear layer's weight is (out,
        in) ("h0.qkv.w": (3 width, width)), wte and head.w (vocab, width),
        biases and norms vectors (model/gpt.c, the one place shapes are
        written)."""
        if self._params is None:
            need = L.need(_shape, "rl_model_tensor_shape")
            out = {}
            with self._lock:  # close() from another thread waits (see __init__)
                for i in range(self.config["ntensors"]):
                    nm, data, n = L.c_char_p(), L.P(ctypes.c_float)(), L.c_long()
                    L.call(_tensor, "rl_model_tensor", self._handle(), i, ctypes.byref(nm), ctypes.byref(data),
                           ctypes.byref(n))
                    shape, nd = (L.c_long * 2)(), L.c_int()
                    L.call(need, "rl_model_tensor_shape", self._handle(), i, shape, ctypes.byref(nd))
                    a = np.ctypeslib.as_array(data, shape=(n.value,)).copy()
                    out[nm.value.decode()] = a.reshape(tuple(shape[:nd.value]))
            self._params = out
        return self._params

    def forward(self, tokens, seed: int = 0, threads: int = 1) -> np.ndarray:
        """The logits of every position of one window of `tokens` (1-D ids).

        Returns
        -------
        ndarray, shape (n, vocab), float32
            Row i scores the token after tokens[i] (log-softmax of a row is
            the model's log-probabilities), through the kernels of ``routelab
            eval`` (full causal attention, any n, beyond the trained context
            too).  `seed` draws the rotation noise of the schemes that have
            it (random, random_pos, lf, random-hh) as eval with that seed
            draws it for a window at the start of its stream: same seed,
            same logits, and the logits eval scores there.
        """
        tok = L.tokens("tokens", tokens)
        seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
        threads = L.as_int("threads", threads, 1, 1024)
        out = np.empty((tok.size, self.config["vocab"]), dtype=np.float32)
        with self._lock:
            L.call_long(_forward, "rl_model_forward", self._handle(),
                   tok.ctypes.data_as(L.u16ptr), tok.size, seed, threads, out.ctypes.data_as(L.P(ctypes.c_float)))
        return out

    def attention(self, tokens, layer: int, seed: int = 0, threads: int = 1) -> np.ndarray:
        """The attention map of `layer` on one window of `tokens`.

        Returns
        -------
        ndarray, shape (heads, n, n), float32
            att[h, i, j] = softmax over j <= i of head h's scaled logits
            with its distance bias (ALiBi), 0 for j > i: each row sums to 1.
            n at most 8192 (RL_MODEL_ATTENTION_MAX).  `seed` as in forward.
        """
        tok = L.tokens("tokens", tokens)
        layer = L.as_int("layer", layer, -L.INT_MAX, L.INT_MAX)
        seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
        threads = L.as_int("threads", threads, 1, 1024)
        if tok.size > 8192:
            raise ValueError("attention: %d tokens, more than 8192 (the map holds heads x n x n floats)" % tok.size)
        out = np.empty((self.config["heads"], tok.size, tok.size), dtype=np.float32)
        with self._lock:
            L.call_long(_attention, "rl_model_attention", self._handle(),
                   tok.ctypes.data_as(L.u16ptr), tok.size, layer, seed, threads, out.ctypes.data_as(L.P(ctypes.c_float)))
        return out

    def eval(self, tokens, lengths, targets=65536, full=False, seed=42, train_tokens=None, threads=1) -> np.recarray:
        """`routelab eval --lengths L1,... --targets N [--full] --seed S` on the
        validation stream `tokens` (1-D token ids), the unigram loss from
        `train_tokens` (None: NaN) (NOTES.md §9.1).

        Returns
        -------
        numpy record array, one row per length, dtype EVAL_DTYPE: eval.tsv's
        columns under their names (length, windows, mean_loss, stderr, ppl,
        ratio, ..., paired_ratio, ..., unigram_loss, spans, slots), the
        numbers eval.tsv prints at %.6f.
        """
        tok = L.tokens("tokens", tokens)
        ls = L.lengths("lengths", lengths)
        targets = 0 if full else L.as_int("targets", targets, 1, L.LONG_MAX)
        seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
        threads = L.as_int("threads", threads, 1, 1024)
        tr = None if train_tokens is None else L.tokens("train_tokens", train_tokens)
        rows = (_Row * ls.size)()
        with self._lock:
            L.call_long(_eval, "rl_model_eval", self._handle(), tok.ctypes.data_as(L.u16ptr), tok.size,
                   tr.ctypes.data_as(L.u16ptr) if tr is not None else None, 0 if tr is None else tr.size,
                   ls.ctypes.data_as(L.lptr), ls.size, targets, seed, threads, rows)
        return np.rec.fromrecords([tuple(getattr(r, n) for n in _ROW) for r in rows], dtype=EVAL_DTYPE)

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
        with self._lock:
            L.call_long(_probe, "rl_model_probe", self._handle(), tok.ctypes.data_as(L.u16ptr), tok.size,
                   ls.ctypes.data_as(L.lptr), ls.size, windows, seed, threads, ctypes.byref(pp), ctypes.byref(dp))
        try:
            ptxt = ctypes.string_at(pp).decode()
            dtxt = ctypes.string_at(dp).decode()
        finally:
            _buffree(pp)
            _buffree(dp)
        return Probe(_table(ptxt), _table(dtxt), ptxt, dtxt)
