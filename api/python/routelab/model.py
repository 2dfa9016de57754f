"""Trained models (api/include/routelab/model.h): a checkpoint of `routelab
train`, its configuration and parameters, the token-paired evaluation of
`routelab eval` (docs/protocol.md#evaluation-protocol) and the attention probe of `routelab probe`
(docs/theory/claim3-farmass.md#far-mass-three-forms, docs/model/schemes.md#probe)."""

from __future__ import annotations

import ctypes
import io
import os
import threading
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

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


def load_data(path: str | os.PathLike[str], vocab: int
              ) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint16]]:
    """A data set as the commands read it (model/data.h).

    DIR (DIR/train.bin, DIR/val.bin) or one token FILE split 90% / 10%,
    every id < vocab.  rl_model_data.

    Parameters
    ----------
    path : str or os.PathLike
        The data folder DIR or token FILE.
    vocab : int
        Vocabulary size V, in [2, 65536]: every id must be < V.

    Returns
    -------
    train, val : ndarray of uint16, shape (n,)
        The training and validation token streams (token ids).

    Raises
    ------
    ValueError
        Naming the file when it is missing or malformed, or an id is
        >= vocab; path not a str or path; vocab out of range.
    MemoryError
        Memory ran out inside the library (RL_ENOMEM).
    RuntimeError
        An internal failure, or a library without rl_model_data.
    """
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
    """A trained model loaded from a checkpoint of `routelab train` (model.h).

    Made by Model.load(ckpt); the constructor wraps a handle the library
    returned.  Threads may share a Model: its calls run one at a time (a
    lock), and close() waits for a running call before it frees the model.
    A Model is a context manager (close() on exit).

    Parameters
    ----------
    handle : ctypes.c_void_p
        The rl_model pointer rl_model_load filled (the Model owns it).
    path : str
        The checkpoint's path (for repr).

    Attributes
    ----------
    path : str
        The checkpoint's path.
    config : dict
        The checkpoint's rl_model_info: layers, width, heads, ctx (the
        trained context T, tokens), vocab, dropout, rot_base, pos (the
        position scheme's name), step, steps, seed, nparams, ntensors.
    """

    def __init__(self, handle: ctypes.c_void_p, path: str) -> None:
        # held by every call into the model and by close(): close() from another thread waits for a
        # running call instead of freeing the model under it (which once segfaulted)
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
    def load(cls, ckpt: str | os.PathLike[str]) -> Model:
        """Load a checkpoint (parameters only, for evaluation).

        rl_model_load (model/ckpt.h).

        Parameters
        ----------
        ckpt : str or os.PathLike
            Path of a checkpoint written by `routelab train` (ckpt.bin).

        Returns
        -------
        Model
            The loaded model.

        Raises
        ------
        ValueError
            Naming the file when it is missing, unreadable, truncated,
            corrupt, of another format or holds non-finite parameters
            (model/ckpt.h); ckpt not a path.
        MemoryError
            Memory ran out inside the library (RL_ENOMEM).
        RuntimeError
            An internal failure, or a library without rl_model_load.
        """
        if not isinstance(ckpt, (str, os.PathLike)):
            raise ValueError("ckpt must be a path, got %r" % (ckpt,))
        h = L.c_void_p()
        L.call(L.need(_load, "rl_model_load"), "rl_model_load", os.fsencode(ckpt), ctypes.byref(h))
        return cls(h, os.fspath(ckpt))

    def close(self) -> None:
        """Free the model; a call running in another thread finishes first (close waits for it).

        Closing twice is harmless; any later call raises ValueError ("the
        model is closed").
        """
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
    def parameters(self) -> dict[str, npt.NDArray[np.float32]]:
        """Every parameter tensor of the model, by name, in its shape.

        rl_model_tensor and rl_model_tensor_shape (model/gpt.c, the one
        place shapes are written).

        Returns
        -------
        dict of str to ndarray of float32
            name -> array (a copy) of every parameter tensor, in the
            checkpoint's order, in its shape: a linear layer's weight is
            (out, in) ("h0.qkv.w": (3 width, width)), wte and head.w (vocab,
            width), biases and norms vectors.

        Raises
        ------
        ValueError
            The model is closed.
        RuntimeError
            A library without rl_model_tensor_shape.
        """
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

    def forward(self, tokens: npt.ArrayLike, seed: int = 0, threads: int = 1) -> npt.NDArray[np.float32]:
        """The logits of every position of one window of `tokens`.

        Through the kernels of ``routelab eval`` (full causal attention,
        any n, beyond the trained context too); the log-softmax of row i is
        the model's log-probabilities of the token after tokens[i].
        rl_model_forward (a long call).

        Parameters
        ----------
        tokens : array_like of int, shape (n,)
            The window's token ids, in [0, vocab), n >= 1.
        seed : int, default 0
            Draws the rotation noise of the schemes that have it (random,
            random_pos, lf, random-hh) as eval with that seed draws it for a
            window at the start of its stream: same seed, same logits, and
            the logits eval scores there.  In [0, 2^64 - 1].
        threads : int, default 1
            Worker threads, 1..1024.

        Returns
        -------
        ndarray of float32, shape (n, vocab)
            Row i scores the token after tokens[i] (logits, nats up to an
            additive constant per row).

        Raises
        ------
        ValueError
            A bad argument (tokens not a 1-D array of integer ids in [0,
            65535], an id >= vocab, threads outside [1, 1024]), a closed
            model, or a workspace beyond the machine's memory (the
            library's one-line message).
        MemoryError
            Memory ran out inside the library (RL_ENOMEM).
        RuntimeError
            An internal failure, or a library without the call.
        KeyboardInterrupt
            Ctrl-C: the call stops within about a second (docs/library-robustness.md#ctrl-c).
        """
        tok = L.tokens("tokens", tokens)
        seed = L.as_int("seed", seed, 0, L.ULONG_MAX)
        threads = L.as_int("threads", threads, 1, 1024)
        out = np.empty((tok.size, self.config["vocab"]), dtype=np.float32)
        with self._lock:
            L.call_long(_forward, "rl_model_forward", self._handle(),
                   tok.ctypes.data_as(L.u16ptr), tok.size, seed, threads, out.ctypes.data_as(L.P(ctypes.c_float)))
        return out

    def attention(self, tokens: npt.ArrayLike, layer: int, seed: int = 0,
                  threads: int = 1) -> npt.NDArray[np.float32]:
        """The attention map of `layer` on one window of `tokens`.

        att[h, i, j] = softmax over j <= i of head h's scaled logits with its
        distance bias (ALiBi), 0 for j > i: each row sums to 1.
        rl_model_attention (a long call).

        Parameters
        ----------
        tokens : array_like of int, shape (n,)
            The window's token ids, in [0, vocab); n at most 8192
            (RL_MODEL_ATTENTION_MAX).
        layer : int
            The decoder block, in [0, layers).
        seed : int, default 0
            Rotation noise, as in forward.
        threads : int, default 1
            Worker threads, 1..1024.

        Returns
        -------
        ndarray of float32, shape (heads, n, n)
            The attention weights (probabilities; rows sum to 1).

        Raises
        ------
        ValueError
            A bad argument (tokens not a 1-D array of integer ids in [0,
            65535], an id >= vocab, threads outside [1, 1024], a layer
            outside [0, layers), more than 8192 tokens), a closed
            model, or a workspace beyond the machine's memory (the
            library's one-line message).
        MemoryError
            Memory ran out inside the library (RL_ENOMEM).
        RuntimeError
            An internal failure, or a library without the call.
        KeyboardInterrupt
            Ctrl-C: the call stops within about a second (docs/library-robustness.md#ctrl-c).
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

    def eval(self, tokens: npt.ArrayLike, lengths: npt.ArrayLike, targets: int = 65536, full: bool = False,
             seed: int = 42, train_tokens: npt.ArrayLike | None = None, threads: int = 1) -> np.recarray:
        """The token-paired length-extrapolation evaluation (docs/protocol.md#spans-token-pairing).

        `routelab eval --lengths L1,... --targets N [--full] --seed S` on the
        validation stream `tokens`: at each length L the mean cross-entropy
        loss (nats), ppl = exp(loss), and the paired D(L) = mean(l_L(p) -
        r(p)) against the same targets with at most T tokens of context
        (paired_ratio = exp(D(L)) = ppl(L)/ppl(T) on the same tokens).
        rl_model_eval (a long call).

        Parameters
        ----------
        tokens : array_like of int, shape (n,)
            The validation stream's token ids (1-D), in [0, vocab).
        lengths : array_like of int
            Context lengths L (tokens), each >= 1 and within the stream.
        targets : int, default 65536
            Target tokens scored per length (>= 1); ignored with full.
        full : bool, default False
            Score the whole stream (``--full``).
        seed : int, default 42
            The windows' seed, in [0, 2^64 - 1].
        train_tokens : array_like of int, optional
            The training stream, for the unigram loss (None: NaN).
        threads : int, default 1
            Worker threads, 1..1024 (the numbers do not depend on it).

        Returns
        -------
        numpy record array, shape (len(lengths),), dtype EVAL_DTYPE
            One row per length, eval.tsv's columns under their names
            (length, windows, mean_loss, stderr, ppl, ratio, ...,
            paired_ratio, ..., unigram_loss, spans, slots; losses in nats),
            the numbers eval.tsv prints at %.6f.

        Raises
        ------
        ValueError
            A bad argument (tokens not a 1-D array of integer ids in [0,
            65535], an id >= vocab, a length < 1 or
            beyond the stream, threads outside [1, 1024]), a closed
            model, or a workspace beyond the machine's memory (the
            library's one-line message).
        MemoryError
            Memory ran out inside the library (RL_ENOMEM).
        RuntimeError
            An internal failure, or a library without the call.
        KeyboardInterrupt
            Ctrl-C: the call stops within about a second (docs/library-robustness.md#ctrl-c).
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

    def probe(self, tokens: npt.ArrayLike, lengths: npt.ArrayLike | None = None, windows: int = 4, seed: int = 42,
              threads: int = 1) -> Probe:
        """The attention probe: far mass against its bounds.

        The bounds: docs/theory/claim3-farmass.md#far-mass-three-forms and
        docs/model/schemes.md#probe.

        `routelab probe --lengths L1,... --windows W --seed S` on the
        validation stream `tokens`: far mass beyond W, the bound
        M/(M + K exp(2 lambda)) and its shift-invariant form
        M/(M + K exp(Delta)), logits against distance.  rl_model_probe (a
        long call).

        Parameters
        ----------
        tokens : array_like of int, shape (n,)
            The validation stream's token ids (1-D), in [0, vocab).
        lengths : array_like of int, optional
            Context lengths (tokens, >= 2); None: T and 16 T.
        windows : int, default 4
            Windows probed per length, in [1, 1e6].
        seed : int, default 42
            The windows' seed, in [0, 2^64 - 1].
        threads : int, default 1
            Worker threads, 1..1024.

        Returns
        -------
        Probe
            probe.tsv and distance.tsv as record arrays (one field per
            column) and as their text, byte for byte the command's.

        Raises
        ------
        ValueError
            A bad argument (tokens not a 1-D array of integer ids in [0,
            65535], an id >= vocab, threads outside [1, 1024]), a closed
            model, or a workspace beyond the machine's memory (the
            library's one-line message).
        MemoryError
            Memory ran out inside the library (RL_ENOMEM).
        RuntimeError
            An internal failure, or a library without the call.
        KeyboardInterrupt
            Ctrl-C: the call stops within about a second (docs/library-robustness.md#ctrl-c).
        """
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
