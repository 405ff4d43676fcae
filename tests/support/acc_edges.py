#!/usr/bin/env python3
"""Reference answers for the statistics of chunkwise::acc at the edges of double.

Writes one case per line for tests/core/test_acc_edges.cpp:

    STAT NP p... NX x... NY y... NE (NAME MODE VALUE TOL)...

Numbers are written as float.hex() (inf, -inf and nan as such). MODE is `exact` (the same value:
equal, or both NaN), `tol` (within TOL of VALUE), `tol_or_inf` (within TOL, or ±inf: a sum of
squares that leaves the double range while the variance does not), or `tol_or_nan` (within TOL,
±inf or NaN: a compensated sum or mean, or a covariance's co-moments, that may leave the double
range in some block, where ±inf of both signs meet; numpy gives ±inf or NaN there too).

References: exact rational arithmetic (fractions.Fraction, rounded once to double; math.fsum
where it answers, checked against it) for finite values; numpy for infinities and NaN (what
np.sum, np.mean, np.var, np.cov and np.histogram's edges give); bins from np.linspace's edges.

    acc_edges.py OUT
"""
import math
import random
import sys
from fractions import Fraction

import numpy as np

MAX = sys.float_info.max
TINY = 5e-324
U = 2.0 ** -53
INF = math.inf
NAN = math.nan

POOL = [0.0, -0.0, 1.0, -1.0, 0.1, 3.0, 1e308, -1e308, MAX, -MAX, 1.7e308, 1e154, -1e154, 2.2250738585072014e-308,
        1e-310, -1e-310, TINY, -TINY, 1e-320, 1e300, -1e300, INF, -INF, NAN]


def hx(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v.hex()


def rounded(fr):
    """A Fraction rounded to the nearest double; ±inf beyond the range."""
    try:
        return float(fr)
    except OverflowError:
        return INF if fr > 0 else -INF


def specials(xs):
    """The IEEE (numpy) sum of the non-finite values, or None when all are finite."""
    bad = [x for x in xs if not math.isfinite(x)]
    if not bad:
        return None
    with np.errstate(invalid="ignore"):
        return float(np.sum(np.array(bad, dtype=np.float64)))


def fr_sum(xs):
    return sum((Fraction(x) for x in xs), Fraction(0))


def cap(v):
    return min(float(v), MAX)


class Cases:
    def __init__(self):
        self.lines = []

    def add(self, stat, params, xs, ys, expects):
        parts = [stat, str(len(params))] + [hx(p) for p in params]
        parts += [str(len(xs))] + [hx(x) for x in xs] + [str(len(ys))] + [hx(y) for y in ys]
        parts += [str(len(expects))]
        for name, mode, value, tol in expects:
            parts += [name, mode, hx(value), hx(tol)]
        self.lines.append(" ".join(parts))


def sum_like(xs):
    """(mode, value, tol) of a compensated sum: numpy's specials, else the exact sum."""
    sp = specials(xs)
    if sp is not None:  # (a block of the finite values may overflow the other way: NaN then)
        finite = [x for x in xs if math.isfinite(x)]
        return ("tol_or_nan" if fr_sum([abs(x) for x in finite]) > MAX else "exact"), sp, 0.0
    exact = fr_sum(xs)
    value = rounded(exact)
    if math.isinf(value):
        return "exact", value, 0.0
    abs_sum = fr_sum([abs(x) for x in xs])
    tol = cap(4 * U * abs(value) + 4 * len(xs) * U * U * rounded(abs_sum) + 4 * TINY)
    return ("tol_or_nan" if abs_sum > MAX else "tol"), value, tol


def add_sum_cases(c, xs):
    mode, value, tol = sum_like(xs)
    c.add("sum", [], xs, [], [("value", mode, value, tol)])
    # The exact sum: correctly rounded, whatever the order; numpy's answer for specials.
    sp = specials(xs)
    exact = sp if sp is not None else rounded(fr_sum(xs))
    if sp is None and all(math.isfinite(x) for x in xs):
        try:
            assert math.fsum(xs) == exact or math.isinf(exact)
        except OverflowError:
            pass  # fsum gives up where an intermediate sum overflows; the exact sum does not
    c.add("exact_sum", [], xs, [], [("value", "exact", exact, 0.0)])
    if xs:
        n = len(xs)
        if sp is not None:
            mean = sum_like(xs)
        else:
            m = fr_sum(xs) / n
            mv = rounded(m)
            abs_sum = fr_sum([abs(x) for x in xs])
            tol = cap(4 * U * abs(mv) + 4 * n * U * rounded(abs_sum / n) + 4 * TINY)
            mean = ("tol_or_nan" if abs_sum > MAX else "tol", mv, tol)
        c.add("mean", [], xs, [], [("value",) + mean])


def moments(xs):
    n = len(xs)
    m = fr_sum(xs) / n
    m2 = sum(((Fraction(x) - m) ** 2 for x in xs), Fraction(0))
    spread = max(abs(Fraction(x) - m) for x in xs)
    return m, m2, spread


def add_variance_cases(c, xs):
    if not xs:
        return
    n = len(xs)
    sp = specials(xs)
    if sp is not None:
        c.add("variance", [], xs, [], [("mean", "exact", sp, 0.0), ("var", "exact", NAN, 0.0)])
        return
    m, m2, spread = moments(xs)
    mv = rounded(m)
    mean_tol = cap(8 * n * U * rounded(spread) + 8 * n * TINY + 4 * U * abs(mv))
    var = rounded(m2 / n)
    var_tol = cap(16 * n * U * rounded(spread * spread / n) + 16 * n * TINY * (1 + rounded(spread))) \
        if not math.isinf(var) else 0.0
    # A variance whose sum of squares (n times it) leaves the range while it does not: ±inf too.
    var_mode = "exact" if math.isinf(var) else ("tol_or_inf" if m2 > MAX else "tol")
    c.add("variance", [], xs, [], [("mean", "tol", mv, mean_tol), ("var", var_mode, var, var_tol)])


def add_covariance_cases(c, xs, ys):
    if not xs:
        return
    n = len(xs)
    if specials(xs) is not None or specials(ys) is not None:
        c.add("covariance", [], xs, ys, [("cov", "exact", NAN, 0.0), ("corr", "exact", NAN, 0.0)])
        return
    mx, m2x, sx = moments(xs)
    my, m2y, sy = moments(ys)
    cxy = sum(((Fraction(a) - mx) * (Fraction(b) - my) for a, b in zip(xs, ys)), Fraction(0))
    cov = rounded(cxy / n)
    spread = sx * sy
    tol = cap(16 * n * U * rounded(spread) + 16 * n * TINY * (1 + rounded(sx) + rounded(sy)))
    far = sum((abs(Fraction(a) - mx) * abs(Fraction(b) - my) for a, b in zip(xs, ys)), Fraction(0)) > MAX or \
        m2x > MAX or m2y > MAX
    if far:
        mode = "tol_or_nan"
    else:
        mode = "exact" if math.isinf(cov) else "tol"
    expects = [("cov", mode, cov, tol if mode != "exact" else 0.0)]
    if not far and m2x > 0 and m2y > 0 and abs(cxy) <= MAX and \
            rounded(m2x) > 1e-290 and rounded(m2y) > 1e-290:
        r2 = cxy * cxy / (m2x * m2y)
        corr = math.copysign(math.sqrt(rounded(r2)), float(cxy))
        expects.append(("corr", "tol", corr, 1e-9))
    c.add("covariance", [], xs, ys, expects)


def add_extrema_cases(c, xs):
    vals = [(x, i) for i, x in enumerate(xs) if not math.isnan(x)]
    if not vals:
        return
    lo = min(v for v, _ in vals)
    hi = max(v for v, _ in vals)
    # ties to the lowest index; -0.0 and 0.0 compare equal (the first one seen is kept)
    argmin = min(i for v, i in vals if v == lo)
    argmax = min(i for v, i in vals if v == hi)
    c.add("extrema", [], xs, [], [("min", "exact", xs[argmin], 0.0), ("max", "exact", xs[argmax], 0.0),
                                  ("argmin", "exact", float(argmin), 0.0), ("argmax", "exact", float(argmax), 0.0)])


def edges_of(lo, hi, bins):
    with np.errstate(over="ignore", invalid="ignore"):
        span = hi - lo
        if math.isfinite(span):
            e = np.linspace(lo, hi, bins + 1)
            # numpy's own formula: i * step + lo, the last edge hi
            return [float(v) for v in e]
    # a span beyond the range: the same in halves
    step = (hi * 0.5 - lo * 0.5) / bins
    return [lo] + [2.0 * (k * step + lo * 0.5) for k in range(1, bins)] + [hi]


def add_histogram_cases(c, lo, hi, bins, extra):
    e = edges_of(lo, hi, bins)
    xs = list(extra)
    for v in e:
        xs += [v, math.nextafter(v, -INF), math.nextafter(v, INF)]
    counts = [0] * bins
    under = over = nans = 0
    for x in xs:
        if math.isnan(x):
            nans += 1
        elif x < lo:
            under += 1
        elif x >= hi:
            over += 1
        else:
            i = max(k for k in range(bins) if e[k] <= x)  # bin i: [e[i], e[i + 1])
            counts[i] += 1
    expects = [("edge%d" % k, "exact", v, 0.0) for k, v in enumerate(e)]
    expects += [("count%d" % k, "exact", float(v), 0.0) for k, v in enumerate(counts)]
    expects += [("under", "exact", float(under), 0.0), ("over", "exact", float(over), 0.0),
                ("nans", "exact", float(nans), 0.0)]
    c.add("histogram", [lo, hi, float(bins)], xs, [], expects)


def add_quantile_cases(c, xs):
    vals = sorted(x for x in xs if not math.isnan(x))
    if not vals:
        return
    n = len(vals)
    expects = []
    for q in (0.0, 1e-300, 0.25, 0.5, 0.75, 1.0):
        target = q * n
        rank = next(i for i in range(1, n + 1) if i >= target)  # the smallest rank reaching q n
        expects.append(("q%s" % q.hex(), "exact", vals[rank - 1], 0.0))
    c.add("quantiles", [], xs, [], expects)


def main():
    out = sys.argv[1]
    c = Cases()
    rng = random.Random(20261126)
    sets = [[], [INF], [1.0, -INF], [1e308, 1e308], [INF, 1.0], [INF, -INF], [NAN, 1.0], [1e308, -1e308],
            [-1e308, 1e308, 0.0], [MAX, MAX, -MAX], [1e308, 1e308, -1e308, -1e308], [TINY, TINY, -TINY],
            [1e-310, 2e-310, 3e-310], [1e154, 1e154, -1e154], [MAX, -MAX], [0.1] * 6, [1e300, 1.0, -1e300],
            [-0.0], [-0.0, 0.0], [0.0, -0.0], [1.7e308, 1e308], [1e308, 1.0, 1e308, -1e308, -1e308]]
    for _ in range(220):
        sets.append([rng.choice(POOL) for _ in range(rng.randint(1, 6))])
    for xs in sets:
        add_sum_cases(c, xs)
        add_variance_cases(c, xs)
        add_extrema_cases(c, xs)
        add_quantile_cases(c, xs)
        ys = [rng.choice(POOL[:-3]) if rng.random() < 0.9 else rng.choice(POOL) for _ in xs]
        add_covariance_cases(c, xs, ys)
        add_covariance_cases(c, xs, list(xs))
    specials_extra = [INF, -INF, NAN, MAX, -MAX, 0.0, -0.0, TINY]
    for lo, hi, bins in [(0.0, 1.0, 49), (0.0, 1.0, 1), (0.0, 1.0, 7), (-1.0, 1.0, 3), (-1e308, 1e308, 2),
                         (-1e308, 1e308, 7), (-MAX, MAX, 3), (-MAX, MAX, 1000), (0.0, 1e-320, 10),
                         (TINY, 4 * TINY, 3), (-1e-310, 1e-310, 5), (1e300, 1.0000000001e300, 9),
                         (0.1, 0.7, 6), (-3.0, 1e308, 11), (1e308, MAX, 4)]:
        add_histogram_cases(c, lo, hi, bins, specials_extra)
    with open(out, "w") as f:
        f.write("\n".join(c.lines) + "\n")
    print("%d cases" % len(c.lines))


if __name__ == "__main__":
    main()
