"""Shared fixtures: the command-line binary ($ROUTELAB, else build/routelab
of this repository) that every comparison runs, and one tiny model trained
for the whole session (as the C tests make theirs: tests/test_eval_protocol.c)."""

import os
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


def routelab_bin():
    b = os.environ.get("ROUTELAB") or os.path.join(ROOT, "build", "routelab")
    if not os.access(b, os.X_OK):
        raise RuntimeError("no routelab binary at %s (set ROUTELAB or run make)" % b)
    return b


def blas_core():
    """The OpenBLAS kernel set the binding loaded in this process ("Haswell",
    "SkylakeX", "Prescott", ...), or None.  The tests that compare the
    binding's numbers with the command's byte for byte hand it to the command
    (OPENBLAS_CORETYPE): the promise is the same bytes within one kernel set
    (docs/speed/reproduction-and-pruning.md#reproduction-across-builds), and on a virtual CPU
    OpenBLAS does not recognise the library loads Prescott's kernels while the command pins SkylakeX
    or Haswell at start-up (base/core/blas_arch.h; docs/speed/kernels.md#training-attention-kernels)."""
    import ctypes

    import routelab  # noqa: F401  (loads libroutelab, and with it OpenBLAS)
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "libopenblas" in line and line.split()[-1].startswith("/")}
    for path in sorted(paths):
        try:
            ob = ctypes.CDLL(path)  # the instance already loaded: dlopen returns it
            ob.openblas_get_corename.restype = ctypes.c_char_p
            return ob.openblas_get_corename().decode()
        except (OSError, AttributeError):
            continue
    return None


def run_cli(*args, cwd=None):
    """routelab ARGS: (status, stdout, stderr); one thread, passive OpenMP
    waits, the binding's OpenBLAS kernels (blas_core)."""
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    core = blas_core()
    if core and "OPENBLAS_CORETYPE" not in os.environ:
        env["OPENBLAS_CORETYPE"] = core
    p = subprocess.run([routelab_bin()] + [str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def cli(*args, cwd=None):
    """routelab ARGS that must succeed: its stdout."""
    st, out, err = run_cli(*args, cwd=cwd)
    assert st == 0, "routelab %s: exit %d: %s" % (" ".join(map(str, args)), st, err)
    return out


# A tiny model with rotation noise keyed by the seed (random) and an ALiBi bias:
# eval's reference windows and probe's bias both get exercised.
TINY = ["--layers", "1", "--width", "16", "--heads", "2", "--ctx", "16", "--batch", "4", "--val-every", "5",
        "--val-batches", "4", "--lr", "3e-3:10", "--pos", "alibi+random", "--threads", "1"]


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """(folder, text file, checkpoint) of a model trained for 10 steps on the
    first 60,000 bytes of NOTES.md."""
    d = tmp_path_factory.mktemp("tiny")
    text = d / "text.txt"
    with open(os.path.join(ROOT, "NOTES.md"), "rb") as f:
        text.write_bytes(f.read(60000))
    cli("train", "--data", text, "--out", d / "run", *TINY)
    return d, text, d / "run" / "ckpt.bin"


def interrupt_child(code, *args, wait):
    """Run `code` in a child interpreter that prints "started" before a long
    call, send it SIGINT `wait` seconds later, and return (its next line, the
    seconds that line took after the signal, the rest of its output, its
    exit status).  The Ctrl-C tests of Model.eval and of the Monte Carlo
    calls (docs/library-robustness.md#ctrl-c, docs/library-robustness.md#out-of-memory) assert on
    these."""
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    p = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, env=env)
    assert p.stdout.readline().strip() == "started"
    time.sleep(wait)  # well inside the call
    assert p.poll() is None, "the call finished before the signal: the test would prove nothing"
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    line = p.stdout.readline().strip()
    dt = time.monotonic() - t
    rest = p.communicate(timeout=60)[0]
    return line, dt, rest, p.returncode
