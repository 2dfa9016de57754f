"""routelab.Model on a tiny checkpoint trained in the test: the numbers of
`routelab eval` (eval.tsv, %.6f / %.4f) and `routelab probe` (probe.tsv and
distance.tsv, byte for byte), its configuration and parameters, and bad
inputs (a missing or corrupt checkpoint, tokens of the wrong dtype, shape
or range, lengths beyond the stream) as ValueError."""

import numpy as np
import pytest

import routelab
from conftest import cli


def fmt(x, spec):
    return "NA" if np.isnan(x) else spec % x


def test_config_and_parameters(tiny):
    _, _, ckpt = tiny
    m = routelab.Model.load(ckpt)
    c = m.config
    assert (c["layers"], c["width"], c["heads"], c["ctx"], c["vocab"]) == (1, 16, 2, 16, 256)
    assert c["pos"].startswith("alibi+random") and c["step"] == 10
    p = m.parameters
    assert len(p) == c["ntensors"] and sum(a.size for a in p.values()) == c["nparams"]
    assert p["wte"].dtype == np.float32 and p["wte"].size == 256 * 16
    assert all(np.all(np.isfinite(a)) for a in p.values())


def test_eval_is_the_eval_commands_table(tiny):
    d, text, ckpt = tiny
    out = d / "eval.tsv"
    cli("eval", "--ckpt", ckpt, "--data", text, "--lengths", "16,32,64", "--targets", 2048, "--seed", 7,
        "--threads", 1, "--out", out)
    lines = out.read_text().splitlines()
    head = lines[0].split("\t")
    want = [dict(zip(head, ln.split("\t"))) for ln in lines[1:]]
    m = routelab.Model.load(ckpt)
    train, val = routelab.load_data(text, m.config["vocab"])
    rows = m.eval(val, [16, 32, 64], targets=2048, seed=7, train_tokens=train)
    assert len(rows) == len(want) == 3
    for r, w in zip(rows, want):
        got = {"length": "%d" % r.L, "windows": "%d" % r.windows, "mean_loss": "%.6f" % r.loss,
               "stderr": "%.6f" % r.se, "ppl": "%.4f" % r.ppl, "ratio": "%.4f" % r.ratio,
               "targets": "%d" % r.targets, "windows_wanted": "%d" % r.windows_wanted,
               "ref_loss": fmt(r.ref_loss, "%.6f"), "paired_logratio": fmt(r.dlog, "%.6f"),
               "paired_se": fmt(r.dlog_se, "%.6f"), "paired_ratio": fmt(r.paired_ratio, "%.6f"),
               "new_targets": "%d" % r.new_targets, "new_loss": fmt(r.new_loss, "%.6f"),
               "new_ref_loss": fmt(r.new_ref, "%.6f"), "new_logratio": fmt(r.new_dlog, "%.6f"),
               "new_se": fmt(r.new_se, "%.6f"), "new_ratio": fmt(r.new_ratio, "%.6f"),
               "unigram_loss": fmt(r.unigram, "%.6f"), "spans": "%d" % r.spans, "slots": "%d" % r.slots}
        for k, v in got.items():
            assert v == w[k], "L = %d: %s %s, eval.tsv has %s" % (r.L, k, v, w[k])
    # the full stream, and no training stream (no unigram)
    full = m.eval(val, [16], full=True, seed=7)
    assert full[0].windows >= rows[0].windows and np.isnan(full[0].unigram)


def test_probe_is_the_probe_commands_tables(tiny):
    d, text, ckpt = tiny
    out = d / "probe"
    cli("probe", "--ckpt", ckpt, "--data", text, "--lengths", "16,64", "--windows", 3, "--seed", 5,
        "--threads", 1, "--out", out)
    m = routelab.Model.load(ckpt)
    _, val = routelab.load_data(text, 256)
    p = m.probe(val, [16, 64], windows=3, seed=5)
    assert p.probe_tsv == (out / "probe.tsv").read_text()
    assert p.distance_tsv == (out / "distance.tsv").read_text()
    assert set(p.probe["length"]) == {16, 64} and np.all(p.probe["violations"] == 0)
    assert np.all(p.probe["far_mass"] >= p.probe["bound_mean"] - 1e-12)
    # the default lengths are T and 16 T, as the command's
    q = m.probe(val, windows=1)
    assert set(q.probe["length"]) == {16, 256}


def test_bad_inputs_raise(tiny):
    d, text, ckpt = tiny
    with pytest.raises(ValueError, match="nosuch"):
        routelab.Model.load(d / "nosuch.bin")
    raw = ckpt.read_bytes()
    cut = d / "cut.bin"
    cut.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError):
        routelab.Model.load(cut)
    flip = d / "flip.bin"
    flip.write_bytes(raw[:200] + bytes([raw[200] ^ 0xFF]) + raw[201:])
    with pytest.raises(ValueError):
        routelab.Model.load(flip)
    with pytest.raises(ValueError):
        routelab.Model.load(text)  # a file of another format
    with pytest.raises(ValueError):
        routelab.Model.load(None)
    m = routelab.Model.load(ckpt)
    _, val = routelab.load_data(text, 256)
    for bad in (val.astype(np.float64), val.reshape(2, -1)[:, :100], np.array([-1, 3, 4] * 100),
                np.array([70000] * 300), np.array([300] * 300)):
        with pytest.raises(ValueError):
            m.eval(bad, [16])
    with pytest.raises(ValueError):
        m.eval(val, [len(val) + 5])  # beyond the stream
    with pytest.raises(ValueError):
        m.eval(val, [0])
    with pytest.raises(ValueError):
        m.eval(val, [])
    with pytest.raises(ValueError):
        m.eval(val, [16], targets=-4)
    with pytest.raises(ValueError):
        m.probe(val, [1])  # the probe needs L >= 2
    with pytest.raises(ValueError):
        m.probe(val, [16], windows=0)
    with pytest.raises(ValueError):
        routelab.load_data(d / "nosuch.txt", 256)
    m.close()
    with pytest.raises(ValueError):
        m.eval(val, [16])
