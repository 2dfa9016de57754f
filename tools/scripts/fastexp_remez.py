#!/usr/bin/env python3
"""fastexp_remez.py: the coefficients of rl_expf's polynomial and its error
bound (model/fastmath.h derives both; docs/speed/reproduction-and-pruning.md#cheaper-exp).  Python's
standard library only (decimal at 50 digits); a second or two.

    python3 tools/scripts/fastexp_remez.py

1. The interval: e^x = 2^n e^r, n = rint(x L), L = fl(log2 e), so
   |r| <= A = ln2/2 + 88.7 |1 - L ln2| + 2^-26 (the reduction's rounding).
2. The polynomial p(r) = 1 + c1 r + ... + c5 r^5 (p(0) = 1: e^0 is exact)
   minimising max |p(r) e^-r - 1| on |r| <= A.  With q = (p - 1)/r that error
   is the weighted one |r| e^-r |q(r) - (e^r - 1)/r|, q of degree 4, whose
   Remez reference alternates the sign of q - (e^r - 1)/r (6 points): the
   error p e^-r - 1 itself changes sign at 0 as well.
3. The coefficients rounded to float, and the bound: at each r of a dense
   grid, |p(r) e^-r - 1| (the float coefficients) plus the rounding of the
   FMA Horner scheme to first order, u sum_k |P_k(r)| |r|^k / P_0(r)
   (P_5 = c5, P_k = P_(k+1) r + c_k, one rounding each), plus u |r| (the
   rounding of r), u = 2^-24; the largest sum, rounded up, is
   RL_EXPF_MAX_RELERR.
"""
from decimal import Decimal as D, getcontext
import math
import re
import struct

getcontext().prec = 50
U = D(2) ** -24
DEG = 5


def f32(x):
    return struct.unpack('f', struct.pack('f', float(x)))[0]


LN2 = D(2).ln()
L = D(f32(1 / LN2))
A = LN2 / 2 + D('88.7') * abs(1 - L * LN2) + D(2) ** -26


def sgn(r):
    return 1 if r > 0 else -1


def err(c, r):
    """p(r) e^-r - 1 for p = 1 + c[0] r + ... + c[4] r^5"""
    p = D(0)
    for k in range(DEG, 0, -1):
        p = (p + c[k - 1]) * r
    return (1 + p) * (-r).exp() - 1


def solve(m, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(m)]
    for i in range(n):
        piv = max(range(i, n), key=lambda j: abs(m[j][i]))
        m[i], m[piv] = m[piv], m[i]
        for j in range(i + 1, n):
            f = m[j][i] / m[i][i]
            for k in range(i, n + 1):
                m[j][k] -= f * m[i][k]
    x = [D(0)] * n
    for i in range(n - 1, -1, -1):
        x[i] = (m[i][n] - sum(m[i][k] * x[k] for k in range(i + 1, n))) / m[i][i]
    return x


def remez():
    npts = DEG + 1
    ref = [A * D(-math.cos(math.pi * i / (npts - 1))) for i in range(npts)]
    ref = [r if r != 0 else D('1e-3') for r in ref]
    grid = [-A + 2 * A * i / 4000 for i in range(4001)]
    for _ in range(20):
        # p(r_i) e^-r_i - 1 = sgn(r_i) (-1)^i h
        rows, rhs = [], []
        for i, r in enumerate(ref):
            er = (-r).exp()
            rows.append([r ** k * er for k in range(1, DEG + 1)] + [-sgn(r) * D(-1) ** i])
            rhs.append(1 - er)
        sol = solve(rows, rhs)
        c, h = sol[:DEG], abs(sol[DEG])
        ev = [err(c, r) * sgn(r) for r in grid]
        ext = [0] + [i for i in range(1, len(grid) - 1)
                     if (ev[i] - ev[i - 1]) * (ev[i + 1] - ev[i]) <= 0] + [len(grid) - 1]
        alt = []
        for i in ext:
            if alt and (ev[i] > 0) == (ev[alt[-1]] > 0):
                if abs(ev[i]) > abs(ev[alt[-1]]):
                    alt[-1] = i
            else:
                alt.append(i)
        top = max(abs(e) for e in ev)
        if len(alt) >= npts:
            s = max(range(len(alt) - npts + 1),
                    key=lambda s: min(abs(ev[alt[j]]) for j in range(s, s + npts)))
            ref = [grid[alt[j]] for j in range(s, s + npts)]
        if top / h - 1 < D('1e-9'):
            break
    return c, h


def bound(c):
    cs = [D(1)] + c
    worst = (D(0), D(0), D(0), None)
    we = wr = D(0)
    n = 40000
    for i in range(n + 1):
        r = -A + 2 * A * i / n
        P = [D(0)] * (DEG + 1)
        P[DEG] = cs[DEG]
        for k in range(DEG - 1, -1, -1):
            P[k] = P[k + 1] * r + cs[k]
        e = abs(P[0] * (-r).exp() - 1)
        rnd = U * (abs(r) + sum(abs(P[k]) * (abs(r) ** k if k else 1) for k in range(DEG)) / P[0])
        we, wr = max(we, e), max(wr, rnd)
        if e + rnd > worst[0]:
            worst = (e + rnd, e, rnd, r)
    return worst + (we, wr)


def main():
    c, h = remez()
    print("A = %.10f" % A)
    print("minimax relative error, exact coefficients: %.4g (%.3f u)" % (h, h / U))
    cf = [D(f32(x)) for x in c]
    for k, x in enumerate(cf, 1):
        m = re.fullmatch(r'(-?0x1\.[0-9a-f]*?)0*(p[-+]\d+)', float(x).hex())
        print("#define RL_EXP_C%d %s%sf" % (k, m.group(1), m.group(2)))
    tot, e, rnd, r, we, wr = bound(cf)
    print("float coefficients, largest over |r| <= A: |p e^-r - 1| %.4g (%.3f u), rounding %.4g (%.3f u)"
          % (we, we / U, wr, wr / U))
    print("the largest sum: |p e^-r - 1| %.4g (%.3f u) + rounding %.4g (%.3f u) at r = %.4f"
          % (e, e / U, rnd, rnd / U, r))
    print("bound: %.5g (%.3f u)" % (tot, tot / U))


if __name__ == '__main__':
    main()
