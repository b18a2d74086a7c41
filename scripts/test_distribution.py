#!/usr/bin/env python3
"""The distributions behind the selftests' thresholds (issue 33 step 3).

Reads serial console logs of boots of tests/thresholds.list (or any list
that runs sched_yield_to_test, svm_pause_filter_test and ple_spin_test) and
prints, for each measured quantity that a check compares with a bound, the
number of samples, min, median, max, mean and standard deviation.

usage: scripts/test_distribution.py console.log...
"""
import re
import statistics
import sys

# (regex of one message, [(name, function of the match's groups giving
# one sample of that quantity), ...])
SIMPLE = [
    (r"runnable target on the caller's CPU: boosted (\d+)/100 \(target ran in (\d+)",
     [("syt boost: boosted calls of 100", lambda g: int(g[0])),
      ("syt boost: boosted calls whose target did not run", lambda g: int(g[0]) - int(g[1]))]),
    (r"donation makes the target the next task: (\d+)% with, (\d+)% without",
     [("syt ran next with donation (%)", lambda g: int(g[0])),
      ("syt ran next without donation (%)", lambda g: int(g[1]))]),
    (r"forfeited \d+/100, another thread ran in (\d+) calls \(sched_yield\(\): (\d+)\)",
     [("syt forfeit cases: calls another thread ran in / the same with sched_yield()",
       lambda g: int(g[0]) / int(g[1]) if int(g[1]) else float("nan"))]),
    (r"other process's share ([\d.]+) \(caller in sched_yield\(\): ([\d.]+)\)",
     [("syt group victim: its share / the same with sched_yield()",
       lambda g: float(g[0]) / float(g[1]) if float(g[1]) else float("nan"))]),
    (r"bystander keeps (?:at least \d+%+ of )?its fair share \(([\d.]+) of 1/3",
     [("syt fairness: bystander's share (of 1/3)", lambda g: float(g[0]))]),
    (r"CPU \d+ spinning: (\d+) PAUSE exits, expected (\d+) \((?:half of alone|[\d.]+ of alone (\d+))\)",
     [("svm phase 4 (check 3): exits beside a spinning CPU / exits alone",
       lambda g: int(g[0]) / (int(g[2]) if g[2] else 2 * int(g[1])))]),
    (r"donation: local yield target ran next (\d+)% with, (\d+)% without",
     [("ple donation: ran next with donation (%)", lambda g: int(g[0])),
      ("ple donation: ran next without donation (%)", lambda g: int(g[1]))]),
    (r"ok \d+ ticket: directed yields yielded \((\d+) boosts, (\d+) forfeits of (\d+) attempts",
     [("ple ticket (default policy): yield_to() attempts", lambda g: int(g[2])),
      ("ple ticket (default policy): forfeits", lambda g: int(g[1]))]),
]

# sched_yield_to_test's hostile caller prints, per quantity and case (the
# other CPU first, then the caller's), "baseline MEAN [LO, HI], hostile
# MEAN (H1 H2 H3), tol T".  Samples: the hostile mean's distance from the
# baseline mean, relative to it, and the baseline's own range, relative.
HOSTILE = re.compile(r"# (victim CPU share|victim wake-up latency \(s\)|reschedule IPIs to [^:]+): "
                     r"baseline ([\d.e+-]+) \[([\d.e+-]+), ([\d.e+-]+)\], hostile ([\d.e+-]+)")
CASES = ["other CPU", "caller's CPU"]


def parse(paths):
    samples = {}

    def add(name, value):
        samples.setdefault(name, []).append(value)

    for path in paths:
        with open(path, errors="replace") as f:
            seen = {}
            for line in f:
                line = re.sub(r"^\[ *\d+\.\d+\] ", "", line.rstrip("\r\n"))
                if line.startswith("### BEGIN"):
                    seen = {}
                for rx, quantities in SIMPLE:
                    m = re.search(rx, line)
                    if m:
                        for name, fn in quantities:
                            add(name, fn(m.groups()))
                m = HOSTILE.search(line)
                if m:
                    what = m.group(1)
                    if what.startswith("reschedule IPIs"):
                        what = "reschedule IPIs"
                    case = CASES[min(seen.get(what, 0), 1)]
                    seen[what] = seen.get(what, 0) + 1
                    mean, lo, hi, hostile = (float(x) for x in m.group(2, 3, 4, 5))
                    if what == "reschedule IPIs":
                        add(f"syt hostile, {case}: {what}, hostile mean - baseline mean", hostile - mean)
                        add(f"syt hostile, {case}: {what}, baseline range", hi - lo)
                    elif mean > 0:
                        add(f"syt hostile, {case}: {what}, (hostile - baseline) / baseline",
                            (hostile - mean) / mean)
                        add(f"syt hostile, {case}: {what}, baseline range / baseline",
                            (hi - lo) / mean)
    return samples


def summary(values):
    v = sorted(values)
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    return (len(v), v[0], statistics.median(v), v[-1], statistics.fmean(v), sd)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    samples = parse(argv[1:])
    print(f"{'quantity':<88} {'n':>3} {'min':>9} {'median':>9} {'max':>9} {'mean':>9} {'sd':>9}")
    for name in sorted(samples):
        n, lo, med, hi, mean, sd = summary(samples[name])
        print(f"{name:<88} {n:>3} {lo:>9.4g} {med:>9.4g} {hi:>9.4g} {mean:>9.4g} {sd:>9.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
