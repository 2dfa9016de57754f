#!/usr/bin/python3
"""check_orderings.py GRID: recompute a grid's orderings from its table.tsv.

An independent check of reproduce's verdicts (docs/grids/vtraj-and-reruns.md#cpu-grid-second-run,
docs/grids/vtraj-and-reruns.md#bpe-grid-rerun): it shares no code with routelab.  From
GRID/table.tsv (the 4-digit ratios ppl(L)/ppl(T) per variant, seed and multiple) it forms each row
of GRID/orderings.tsv again, from the row's own words:

  "A degrades more than B" at m   d_s = log r_A(m, s) - log r_B(m, s)
  "A against B (...)"  at m       the same d_s, with the row's delta
  "A degrades by 128x"            d_s = log r_A(128 or the top, s)
  "A near flat (ratio < c)"       d_s = log r_A(m, s), threshold log c

and decides it by the rules as the docs state them (docs/grids/design.md#grid-design,
docs/grids/seed-question.md#mechanism-orderings): mean m and SE s = sd/sqrt(k) over the k seeds; t
read as the normal quantile of its Student tail with k - 1 degrees of freedom (x = z(t)).  Rule
effect: absent at this scale when z((m + delta)/s) >= 3 and z((m - delta)/s) <= -3, else
holds when x >= 3, contradicted when x <= -3, else unresolved.  Rule below:
x = z((m - log c)/s); holds when x <= -3, contradicted when x >= 3.  The
rank row needs the mix-or-stay score, which table.tsv does not hold: it is
listed as not recomputed.

Prints one line per row (same or DIFFERENT, with both readings) and a
summary; exit 0 when every recomputed row agrees with the file to its
printed digits (mean within 1e-3 + 2e-3 |mean|, the 4-digit ratios' rounding;
the same verdict), 1 otherwise, 2 on a bad input.
"""
import math
import re
import sys
from statistics import NormalDist


def betacf(a, b, x):
    """The continued fraction of the regularised incomplete beta function
    (modified Lentz's method), valid for x < (a + 1) / (a + b + 2)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def ibeta(a, b, x):
    """I_x(a, b), the regularised incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * betacf(b, a, 1.0 - x) / b


def t_upper(t, nu):
    """P(T > t) for Student's t with nu degrees of freedom."""
    tail = 0.5 * ibeta(nu / 2.0, 0.5, nu / (nu + t * t))
    return tail if t >= 0 else 1.0 - tail


def z_of_t(t, nu):
    """The normal quantile with the same upper tail as t (a t of 10^300 is
    read as 38, beyond any rule's 3)."""
    if math.isnan(t):
        return math.nan
    if t < 0:  # by symmetry, so that a far lower tail keeps its digits
        return -z_of_t(-t, nu)
    if math.isinf(t):
        return 38.0
    p = t_upper(t, nu)
    if p <= 0.0:
        return 38.0
    return -NormalDist().inv_cdf(p)


def mean_se(d):
    k = len(d)
    if k < 2:  # no seed SE: every rule is then unresolved
        return (d[0] if d else math.nan), math.nan
    m = sum(d) / k
    sd = math.sqrt(sum((v - m) ** 2 for v in d) / (k - 1))
    return m, sd / math.sqrt(k)


def decide(d, rule, delta, threshold):
    k = len(d)
    m, s = mean_se(d)
    nu = k - 1
    if math.isnan(s):
        return m, s, math.nan, "unresolved"

    def tstat(a):  # a / s, an SE of 0 (identical seeds) read as an infinite t
        return a / s if s > 0 else math.copysign(math.inf, a) if a else math.nan

    if rule == "below":
        x = z_of_t(tstat(m - threshold), nu)
        v = "holds" if x <= -3 else "contradicted" if x >= 3 else "unresolved"
        return m, s, x, v
    x = z_of_t(tstat(m), nu)
    xlo = z_of_t(tstat(m + delta), nu)
    xhi = z_of_t(tstat(m - delta), nu)
    if xlo >= 3 and xhi <= -3:
        v = "absent at this scale"
    elif x >= 3:
        v = "holds"
    elif x <= -3:
        v = "contradicted"
    else:
        v = "unresolved"
    return m, s, x, v


def read_tsv(path):
    try:
        with open(path, encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    except OSError as e:
        print(f"check_orderings: cannot read {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    if not rows:
        print(f"check_orderings: {path} is empty", file=sys.stderr)
        sys.exit(2)
    head = rows[0]
    return [dict(zip(head, r)) for r in rows[1:]]


def main():
    if len(sys.argv) != 2:
        print("usage: check_orderings.py GRID (a folder holding table.tsv and orderings.tsv)", file=sys.stderr)
        sys.exit(2)
    grid = sys.argv[1]
    table = read_tsv(grid + "/table.tsv")
    orders = read_tsv(grid + "/orderings.tsv")
    need = ("ordering", "mult", "mean", "se", "verdict")
    if orders and any(c not in orders[0] for c in need):
        print(f"check_orderings: {grid}/orderings.tsv lacks a column of {', '.join(need)}", file=sys.stderr)
        sys.exit(2)
    ratio = {}  # (variant, mult, seed) -> ratio
    for r in table:
        try:
            ratio[(r["variant"], int(r["mult"]), int(r["seed"]))] = float(r["ratio"])
        except (KeyError, ValueError):
            print(f"check_orderings: {grid}/table.tsv: a row without variant, mult, seed or ratio", file=sys.stderr)
            sys.exit(2)
    seeds = sorted({s for (_, _, s) in ratio})

    def logs(variant, mult):
        return [math.log(ratio[(variant, mult, s)]) for s in seeds]

    same = diff = skipped = 0
    for o in orders:
        name, mult = o["ordering"], int(o["mult"])
        delta = float(o["delta"]) if o.get("delta", "nan") != "nan" else math.nan
        try:
            m = re.match(r"(\S+) degrades more than (\S+)", name) or re.match(r"(\S+) against (\S+) ", name)
            if m:
                b = m.group(2)
                if "@" not in b and "(the algebra at matched mixing)" in name:
                    b = b + "@2"
                d = [x - y for x, y in zip(logs(m.group(1), mult), logs(b, mult))]
                got = decide(d, "effect", delta, 0.0)
            elif (m := re.match(r"(\S+) degrades by 128×", name)):
                got = decide(logs(m.group(1), mult), "effect", delta, 0.0)
            elif (m := re.match(r"(\S+) (?:near )?flat \(ratio < ([0-9.]+)\)", name)):
                got = decide(logs(m.group(1), mult), "below", math.nan, math.log(float(m.group(2))))
            else:
                print(f"not recomputed  {name} (its statistic is not in table.tsv)")
                skipped += 1
                continue
        except KeyError as e:
            print(f"check_orderings: {grid}/table.tsv has no ratio for {e.args[0]}", file=sys.stderr)
            sys.exit(2)
        fm, fs, fv = float(o["mean"]), float(o["se"]), o["verdict"]
        ok = abs(got[0] - fm) <= 1e-3 + 2e-3 * abs(fm) and got[3] == fv
        same += ok
        diff += not ok
        print(f"{'same' if ok else 'DIFFERENT':9s} {name} @{mult}: file {fm:+.4f} ± {fs:.4f} {fv}; "
              f"recomputed {got[0]:+.4f} ± {got[1]:.4f} (x {got[2]:+.2f}) {got[3]}")
    print(f"{same} rows the same, {diff} different, {skipped} not recomputed ({len(seeds)} seeds)")
    sys.exit(1 if diff else 0)


if __name__ == "__main__":
    main()
