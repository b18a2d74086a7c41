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


def interval(table, row):
    """yield's ratio to stock and its interval on @row."""
    r = table[(row, "yield")]
    return float(r["ratio"]), float(r["ci_low"]), float(r["ci_high"])


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

    # A rerun gives the same numbers (fixed seeds).
    again = run_stats()
    results.append((again == table, "a rerun gives the same table"))

    print("1..%d" % len(results))
    for i, (ok, what) in enumerate(results, 1):
        print("%sok %d %s" % ("" if ok else "not ", i, what))
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
