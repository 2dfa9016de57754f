#!/usr/bin/python3
"""bigram_ceiling.py DATA: what a perplexity ratio can reach on a token data set.

A model that loses every use of attention still sees its own token through
the residual stream: at best it predicts like a bigram.  So ppl(bigram) /
ppl(T) is about the ceiling of ppl(L)/ppl(T) for a model that keeps its MLP
(the unigram ratio, the report's "range", is the ceiling of one that loses
its own token too).  Prints both perplexities over DATA/val.bin, counted on
DATA/train.bin: the unigram with add-one counts, and the bigram interpolated
with it (Jelinek-Mercer) at the weight that is best on val.bin itself, an
optimistic (low) bigram perplexity, so a conservative ceiling.

    /usr/bin/python3 tools/scripts/bigram_ceiling.py data/brown-bpe4096
"""
import os
import sys

import numpy as np

HEADER_BYTES = 256 * 4  # the llm.c token file's int32 header (base/core/tokfile.h)


def fail(msg):
    """One line on stderr, status 2 (a bad input): the project's convention."""
    print(f"bigram_ceiling: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    if not os.path.isfile(path):
        fail(f"{path} is not a regular file")
    try:
        with open(path, "rb") as f:
            b = f.read()
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    head = np.frombuffer(b[:HEADER_BYTES], dtype="<i4") if len(b) >= HEADER_BYTES else None
    if head is None or head[0] != 20240520 or len(b) != HEADER_BYTES + 2 * int(head[2]):
        fail(f"{path} is not an llm.c token file (routelab data writes them)")
    tok = np.frombuffer(b[HEADER_BYTES:], dtype="<u2").astype(np.int64)
    if len(tok) < 2:
        fail(f"{path} holds {len(tok)} tokens, a bigram needs 2")
    return tok


def main():
    if len(sys.argv) != 2:
        fail("usage: bigram_ceiling.py DATA (a folder with train.bin and val.bin)")
    tr, va = load(sys.argv[1] + "/train.bin"), load(sys.argv[1] + "/val.bin")
    v = int(max(tr.max(), va.max())) + 1
    uni = np.bincount(tr, minlength=v) + 1.0
    uni /= uni.sum()
    pairs = tr[:-1] * v + tr[1:]
    keys, n = np.unique(pairs, return_counts=True)
    counts = dict(zip(keys.tolist(), n.tolist()))
    rows = np.bincount(tr[:-1], minlength=v).astype(float)
    c = np.array([counts.get(k, 0) for k in (va[:-1] * v + va[1:]).tolist()], dtype=float)
    pb = np.where(rows[va[:-1]] > 0, c / np.maximum(rows[va[:-1]], 1), 0.0)
    pu = uni[va[1:]]
    best = min((np.exp(-np.mean(np.log(lam * pb + (1 - lam) * pu))), lam) for lam in np.arange(0.05, 1.0, 0.05))
    print(f"unigram ppl {np.exp(-np.mean(np.log(uni[va]))):.1f}")
    print(f"bigram ppl {best[0]:.1f} (interpolated, weight {best[1]:.2f})")


if __name__ == "__main__":
    main()
