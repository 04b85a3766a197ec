#!/usr/bin/python3
"""Writes scipy_reference.json: reference values for the tests of src/stats, computed by SciPy.

Run once with Debian's interpreter and python3-scipy (the tests only read the committed output):

    /usr/bin/python3 src/stats/testdata/make_scipy_reference.py > src/stats/testdata/scipy_reference.json

Every sample is generated here from a fixed seed and written into the JSON next to the expected
values, so the C++ tests need no random generator of their own to reproduce them. Where SciPy has
no function (Hodges-Lehmann shift, Cliff's delta, Holm's step-down) the reference is the textbook
definition written out in numpy, over all pairs, with no shortcuts.
"""
import json
import sys

import numpy as np
import scipy
from scipy import stats
from scipy.stats import _resampling

rng = np.random.default_rng(20240611)


def r(values, digits=6):
    """Rounds generated samples so that JSON text round-trips them exactly."""
    return [float(round(v, digits)) for v in values]


def samples():
    """Named (x, y) pairs covering the shapes validate meets: step times, small run counts, ties."""
    out = {}
    out["normal_30_30_shift"] = (r(rng.normal(100, 5, 30)), r(rng.normal(104, 5, 30)))
    out["normal_12_20_unequal_var"] = (r(rng.normal(50, 2, 12)), r(rng.normal(51, 8, 20)))
    out["lognormal_200_180"] = (r(rng.lognormal(3, 0.4, 200)), r(rng.lognormal(3.05, 0.4, 180)))
    out["same_dist_50_50"] = (r(rng.normal(10, 1, 50)), r(rng.normal(10, 1, 50)))
    out["small_3_3"] = (r(rng.normal(10, 1, 3)), r(rng.normal(12, 1, 3)))
    out["small_5_4"] = (r(rng.normal(10, 1, 5)), r(rng.normal(11, 1, 4)))
    out["small_8_9_exact"] = (r(rng.normal(10, 1, 8)), r(rng.normal(11, 1, 9)))
    out["small_5_40_exact"] = (r(rng.normal(10, 1, 5)), r(rng.normal(10.8, 1, 40)))
    out["small_7_7_separated"] = ([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
                                  [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0])
    out["small_6_6_ties"] = ([1.0, 2.0, 2.0, 3.0, 4.0, 4.0], [2.0, 3.0, 5.0, 5.0, 6.0, 7.0])
    out["ints_60_70_many_ties"] = ([float(v) for v in rng.integers(0, 10, 60)],
                                   [float(v) for v in rng.integers(1, 11, 70)])
    out["large_9_9_asymptotic"] = (r(rng.normal(0, 1, 9)), r(rng.normal(0.5, 1, 9)))
    out["skewed_600_600"] = (r(rng.gamma(2.0, 10.0, 600)), r(rng.gamma(2.0, 10.5, 600)))
    return out


def welch(x, y):
    res = stats.ttest_ind(x, y, equal_var=False)
    vx, vy = np.var(x, ddof=1) / len(x), np.var(y, ddof=1) / len(y)
    df = (vx + vy) ** 2 / (vx ** 2 / (len(x) - 1) + vy ** 2 / (len(y) - 1))
    # 95% interval of mean(x) - mean(y), Welch's df.
    d = np.mean(x) - np.mean(y)
    half = stats.t.ppf(0.975, df) * np.sqrt(vx + vy)
    return {"t": float(res.statistic), "df": float(df), "p_value": float(res.pvalue),
            "ci95_low": float(d - half), "ci95_high": float(d + half)}


def mwu(x, y):
    res = stats.mannwhitneyu(x, y, alternative="two-sided", method="auto")
    n1, n2 = len(x), len(y)
    ties = len(np.unique(np.concatenate([x, y]))) != n1 + n2
    method = "asymptotic" if (n1 > 8 and n2 > 8) or ties else "exact"
    out = {"u1": float(res.statistic), "p_value": float(res.pvalue), "method": method}
    # The other method too, so both code paths are checked on every pair.
    other = "asymptotic" if method == "exact" else "exact"
    if other == "exact" and n1 * n2 <= 400:
        out["p_exact"] = float(stats.mannwhitneyu(x, y, method="exact").pvalue)
    if other == "asymptotic":
        out["p_asymptotic"] = float(stats.mannwhitneyu(x, y, method="asymptotic").pvalue)
    return out


def hodges_lehmann(x, y):
    # Shift of y relative to x: median of all y_j - x_i.
    return float(np.median(np.subtract.outer(np.asarray(y), np.asarray(x))))


def cliffs_delta(x, y):
    x, y = np.asarray(x), np.asarray(y)
    gt = (y[:, None] > x[None, :]).sum()
    lt = (y[:, None] < x[None, :]).sum()
    return float((gt - lt) / (len(x) * len(y)))


STATS = {
    "mean": lambda a, axis=-1: np.mean(a, axis=axis),
    "median": lambda a, axis=-1: np.median(a, axis=axis),
    "p90": lambda a, axis=-1: np.percentile(a, 90, axis=axis),
    "p99": lambda a, axis=-1: np.percentile(a, 99, axis=axis),
}


def ratio_of(stat):
    return lambda before, after, axis=-1: STATS[stat](after, axis=axis) / STATS[stat](before, axis=axis)


def bca_case(data, statistic, n_resamples, seed, keep_replicates):
    res = stats.bootstrap(data, statistic, n_resamples=n_resamples, method="BCa",
                          confidence_level=0.95, random_state=np.random.default_rng(seed),
                          vectorized=True)
    theta_hat_b = res.bootstrap_distribution
    _, _, a_hat = _resampling._bca_interval(data, statistic, axis=-1, alpha=0.025,
                                             theta_hat_b=theta_hat_b, batch=None)
    out = {"estimate": float(statistic(*data)), "low": float(res.confidence_interval.low),
           "high": float(res.confidence_interval.high), "acceleration": float(a_hat),
           "n_resamples": n_resamples}
    if keep_replicates:
        # The bootstrap distribution itself, so the BCa step can be checked exactly.
        out["replicates"] = [float(v) for v in theta_hat_b]
    return out


def main():
    pairs = samples()
    doc = {"generator": "src/stats/testdata/make_scipy_reference.py", "scipy_version": scipy.__version__,
           "numpy_version": np.__version__, "samples": {k: {"x": x, "y": y} for k, (x, y) in pairs.items()},
           "welch": {}, "mann_whitney": {}, "hodges_lehmann": {}, "cliffs_delta": {}}
    for name, (x, y) in pairs.items():
        if len(x) >= 2 and len(y) >= 2:
            doc["welch"][name] = welch(x, y)
        doc["mann_whitney"][name] = mwu(x, y)
        doc["hodges_lehmann"][name] = hodges_lehmann(x, y)
        doc["cliffs_delta"][name] = cliffs_delta(x, y)

    # Bootstrap BCa: one-sample statistics and the two-sample ratio after/before.
    boot = []
    for name, stat, exact in [("lognormal_200_180", "mean", True), ("lognormal_200_180", "median", True),
                              ("lognormal_200_180", "p90", False), ("skewed_600_600", "p99", True),
                              ("normal_30_30_shift", "mean", False), ("same_dist_50_50", "median", False)]:
        x = np.asarray(pairs[name][0])
        case = bca_case((x,), STATS[stat], 2000 if exact else 9999, 7, exact)
        case.update({"sample": name, "statistic": stat, "two_sample": False})
        boot.append(case)
    for name, stat, exact in [("lognormal_200_180", "mean", True), ("normal_30_30_shift", "mean", False),
                              ("skewed_600_600", "median", True), ("skewed_600_600", "p90", False)]:
        x, y = np.asarray(pairs[name][0]), np.asarray(pairs[name][1])
        case = bca_case((x, y), ratio_of(stat), 2000 if exact else 9999, 11, exact)
        case.update({"sample": name, "statistic": stat, "two_sample": True})
        boot.append(case)
    doc["bootstrap_bca"] = boot

    # Holm-Bonferroni step-down adjusted p-values (statsmodels' 'holm' definition).
    holm = []
    for p in [[0.01, 0.04, 0.03, 0.005], [0.2, 0.5, 0.01], [0.001], [0.04, 0.04, 0.04], [0.3, 0.02, 0.6, 0.01, 0.049]]:
        p = np.asarray(p)
        order = np.argsort(p, kind="stable")
        m = len(p)
        adj_sorted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
        adj = np.empty(m)
        adj[order] = adj_sorted
        # Benjamini-Hochberg (statsmodels' 'fdr_bh'): step-up, min over j >= i of m / j * p_(j).
        bh_sorted = np.minimum(1.0, np.minimum.accumulate((m / np.arange(m, 0, -1)) * p[order][::-1])[::-1])
        bh = np.empty(m)
        bh[order] = bh_sorted
        holm.append({"p": p.tolist(), "adjusted": adj.tolist(), "bh": bh.tolist()})
    doc["holm"] = holm

    # MAD outliers: modified z-score |x - median| / (MAD * 1.4826) > 3.5 (Iglewicz & Hoaglin).
    mad = []
    for name in ["lognormal_200_180", "skewed_600_600", "ints_60_70_many_ties"]:
        x = np.asarray(pairs[name][0])
        s = stats.median_abs_deviation(x, scale="normal")
        z = np.abs(x - np.median(x)) / s
        mad.append({"sample": name, "median": float(np.median(x)), "mad_normal": float(s),
                    "outliers": [int(i) for i in np.nonzero(z > 3.5)[0]]})
    spiky = [10.0, 10.2, 9.9, 10.1, 10.0, 9.8, 10.3, 25.0, 10.1, 9.95, 3.0]
    s = stats.median_abs_deviation(spiky, scale="normal")
    z = np.abs(np.asarray(spiky) - np.median(spiky)) / s
    mad.append({"sample": "spiky", "values": spiky, "median": float(np.median(spiky)), "mad_normal": float(s),
                "outliers": [int(i) for i in np.nonzero(z > 3.5)[0]]})
    doc["mad_outliers"] = mad

    json.dump(doc, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
