#!/usr/bin/env python3
"""Tests of scripts/bench_stats.py on tests/fixtures/stats-console.log.

Each test states what the interval of a ratio must do on a fixture whose
answer is known by construction (the fixture's header says how it was
drawn), with bounds derived from a model of the resampling, not from what
a run happened to give.  Prints TAP; exit status 1 if a test failed.

BENCH_STATS=PATH tests another copy of the script (to show a broken
resampler failing).
usage: bench_stats_test.py
"""
import csv
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(TOP, "tests", "fixtures")
SCRIPT = os.environ.get("BENCH_STATS", os.path.join(TOP, "scripts",
                                                     "bench_stats.py"))


def run_stats():
    """bench.tsv of the fixture, as {(row, policy): {column: value}}."""
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, SCRIPT,
                        os.path.join(FIX, "stats.rows"), out,
                        os.path.join(FIX, "stats-console.log")], check=True)
        with open(os.path.join(out, "bench.tsv")) as f:
            return {(r["row"], r["policy"]): r
                    for r in csv.DictReader(f, delimiter="\t")}


def interval(table, row, pre=""):
    """yield's ratio to stock and its interval on @row (pre="p": paired)."""
    r = table[(row, "yield")]
    return tuple(float(r[pre + c]) for c in ("ratio", "ci_low", "ci_high"))


def main():
    table = run_stats()
    results = []

    # One distribution: the interval must contain 1.  The level of each boot
    # is shared by both policies, so a resampler that gets the pairing of
    # boots wrong can still pass this; the next two tests catch that.
    _, lo, hi = interval(table, "same")
    results.append((lo <= 1 <= hi,
                    "two policies from one distribution: 1 in [%.3f, %.3f]"
                    % (lo, hi)))

    # Exactly twice the distribution with 1% noise and 15 windows: the
    # median of 15 draws has a relative spread of about 1.25 * 1% / sqrt(15)
    # = 0.32%, the ratio of two such medians about 0.45%, so 95% of the
    # replicates lie within 2 * 0.45% = 0.9% of 2.  The boots' levels differ
    # by about 15%, which cancels only when both policies are resampled from
    # the same boots; the interval must stay within 5% of 2, five times the
    # model's half-width.
    _, lo, hi = interval(table, "double")
    results.append((1.9 <= lo <= 2 <= hi <= 2.1,
                    "a policy exactly 2x another: [%.3f, %.3f] within 2 +- 5%%"
                    % (lo, hi)))

    # One boot of three where yield is 2x: a replicate that draws that boot
    # at least twice of three has a yield median of 2x, and that happens in
    # 3 * (1/3)^2 * (2/3) + (1/3)^3 = 7/27 = 26% of them, far above the
    # 2.5% of the upper bound, which must therefore reach the boot's ratio
    # (1.9: 2 less 5%, as above).  Resampling the 60 windows as if they were
    # independent needs 31 of 60 draws from the 20 high ones for the same
    # median (Bin(60, 1/3) >= 31: p = 0.002), and stays near 1.
    _, lo_a, hi_a = interval(table, "agree")
    _, lo_o, hi_o = interval(table, "odd")
    results.append((hi_o >= 1.9 and hi_o - lo_o > hi_a - lo_a,
                    "one boot that disagrees widens the interval: [%.3f, %.3f]"
                    " against [%.3f, %.3f], upper end at least 1.9"
                    % (lo_o, hi_o, lo_a, hi_a)))

    # A row below a second "policies" line has its own policies, and its
    # ratios are against the first reference it has (a pthread mutex, for
    # the user-space lock rows): the "double" windows again, renamed, must
    # give the same interval as "double", and the row has no stock.
    r = table.get(("user", "sched_yield"), {})
    ok = ("user", "stock") not in table and r.get("ratio") not in (None, "-")
    lo = float(r["ci_low"]) if ok else 0
    hi = float(r["ci_high"]) if ok else 0
    results.append((ok and 1.9 <= lo <= 2 <= hi <= 2.1,
                    "a row with its own policies compares with its own reference:"
                    " sched_yield over mutex [%.3f, %.3f] within 2 +- 5%%" % (lo, hi)))

    # Boots whose levels differ by a constant factor (sqrt(2) from boot to
    # boot, 5% noise, yield 1.2x stock in every boot).  The paired estimate
    # divides within each boot, so the level cancels: the median of 5 draws
    # with 5% noise has a relative spread of about 1.25 * 5% / sqrt(5) =
    # 2.8%, the ratio of two such medians 4.0%, their geometric mean over 5
    # boots 1.8%, so 95% of the replicates lie within 1.96 * 1.8% = 3.5% of
    # 1.2; the interval must stay within 7% of 1.2, twice that.  Drawn
    # independently for the two policies (the pairing removed), the boots'
    # levels (a spread of 0.55 in log) do not cancel and the interval is
    # about [0.6, 2.4].  The pooled interval mixes windows of fast and slow
    # boots in each median, and must be wider than the paired one.
    _, plo, phi = interval(table, "levels", "p")
    _, lo, hi = interval(table, "levels")
    results.append((1.2 * 0.93 <= plo <= 1.2 <= phi <= 1.2 * 1.07,
                    "boots at different levels: the paired interval [%.3f, %.3f]"
                    " within 1.2 +- 7%%" % (plo, phi)))
    results.append((hi - lo > phi - plo,
                    "boots at different levels widen the pooled interval"
                    " [%.3f, %.3f] beyond the paired one [%.3f, %.3f]"
                    % (lo, hi, plo, phi)))

    # The verdict needs both intervals on one side of 1: the pooled one of
    # "levels" is above 1; with a paired interval that contains 1 it is a
    # tie, with both above a win; without a paired interval (one boot) a tie.
    sys.path.insert(0, os.path.dirname(SCRIPT))
    import bench_stats  # noqa: E402 (the copy under test)
    cases = [(((1.2, 1.1, 1.3), (1.2, 0.9, 1.5)), "tie"),
             (((1.2, 0.9, 1.5), (1.2, 1.1, 1.3)), "tie"),
             (((1.2, 1.1, 1.3), (1.2, 1.05, 1.4)), "win"),
             (((0.8, 0.7, 0.9), (0.8, 0.75, 0.85)), "loss"),
             (((1.2, 1.1, 1.3), (1.2, None, None)), "tie")]
    got = [bench_stats.verdict(*c) for c, _ in cases]
    results.append((got == [v for _, v in cases],
                    "a win or a loss only when both intervals exclude 1: %s"
                    % " ".join(got)))
    results.append((table[("levels", "yield")]["verdict"] == "win" and
                    table[("odd", "yield")]["verdict"] == "tie",
                    "bench.tsv carries the verdicts (levels: win, odd: tie)"))

    # A rerun gives the same numbers (fixed seeds).
    again = run_stats()
    results.append((again == table, "a rerun gives the same table"))

    print("1..%d" % len(results))
    for i, (ok, what) in enumerate(results, 1):
        print("%sok %d %s" % ("" if ok else "not ", i, what))
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
