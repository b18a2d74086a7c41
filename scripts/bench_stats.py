#!/usr/bin/env python3
"""The benchmark's statistics, in one place.

Reads the "# BENCH key=value ..." window lines of `make bench` (one per
measured window, or per nested boot for the boot rows; `boot=N` says which
boot of L1 it came from, 1 when absent) and "# BENCH-FAILED row=R
policy=P ... reason=..." lines, and writes, per row and policy:

  OUT/bench.tsv      the published table: row policy overcommit vms runs
                     median min max unit boots, then the ratio of the
                     policy's median to stock's with its 95% interval
                     (ratio ci_low ci_high), the same against yield()
                     (ratio_yield ci_low_yield ci_high_yield), default
                     (1 on the lines of the policy the kernel uses by
                     default), then the paired estimates against stock
                     and yield() (pratio pci_low pci_high, pratio_yield
                     pci_low_yield pci_high_yield) and the verdicts
                     (verdict, verdict_yield: win, loss or tie);
  OUT/bench.records  what scripts/bench-report.sh formats (tab-separated,
                     columns in RECORD_COLUMNS).

Each row has the policies of the "policies" line above it in ROWS_FILE;
the user-space lock rows (yield_to_lock_bench's methods) have no stock or
yield(), and their ratio columns compare with a pthread mutex and with
sched_yield() instead (REFERENCE_COLUMNS).
Ratios are oriented so that more than 1 is better: policy over reference
for a throughput, reference over policy for a time (the boot rows).  The
interval is a hierarchical bootstrap: resample the boots with replacement,
then the windows within each resampled boot, pool them, and take the ratio
of the two policies' medians; the boots are resampled once per replicate
for both policies, because every policy runs in every boot.  10000
replicates and a seed derived from the row, the policy and the reference,
so that a rerun, or a report with other rows, gives the same numbers.
The percentile interval is reported.

Beside it, the paired estimate: per boot, the ratio of the policy's median
to the reference's median (both ran in that boot, in rotated order); the
geometric mean of those ratios over the boots; a 95% percentile interval
from resampling the boots (each replicate draws the same boots for both
policies, i.e. draws per-boot ratios).  A factor by which a whole boot is
faster or slower cancels in each per-boot ratio, where the pooled medians
mix windows of fast and slow boots.  With few boots its interval is
coarse (3 boots give at most 10 distinct replicate means): it is reported,
not trusted alone.

A ratio is a win when both intervals are above 1, a loss when both are
below, else a tie.

Python 3 standard library only.
usage: bench_stats.py [--resamples N] [--seed S] [--default POLICY]
                      ROWS_FILE OUTDIR LOG...
"""
import argparse
import math
import os
import random
import statistics
import sys

RESAMPLES = 10000
# The references of the ratio columns, by column suffix: stock (the KVM
# rows) or, for rows whose policies are user-space lock methods
# (yield_to_lock_bench), a pthread mutex; yield() or sched_yield(); sleep.
REFERENCE_COLUMNS = (("", ("stock", "mutex")), ("_yield", ("yield", "sched_yield")),
                     ("_sleep", ("sleep",)))
# The unit of acq_per_s by lock= (nested_boot's workloads); else acquisitions.
UNITS = {"kernel": "iter/s", "dbench": "op/s", "hackbench": "msg/s"}
# Per-window diagnostics whose median the report shows beside the metric.
DIAGNOSTICS = ("jain", "exits_per_acq", "yields_per_acq", "ran_next")
RECORD_COLUMNS = (
    "row policy overcommit vms runs median min max unit failed lower jain "
    "exits_per_acq yields_per_acq ran_next why lock boots default "
    "ratio ci_low ci_high ratio_yield ci_low_yield ci_high_yield "
    "ratio_sleep ci_low_sleep ci_high_sleep "
    "pratio pci_low pci_high pratio_yield pci_low_yield pci_high_yield "
    "pratio_sleep pci_low_sleep pci_high_sleep "
    "verdict verdict_yield verdict_sleep").split()
TSV_COLUMNS = (
    "row policy overcommit vms runs median min max unit boots "
    "ratio ci_low ci_high ratio_yield ci_low_yield ci_high_yield "
    "default pratio pci_low pci_high pratio_yield pci_low_yield "
    "pci_high_yield verdict verdict_yield").split()


def parse_rows(path, only=None):
    """
    Rows in order and each row's policy list (the "policies" line above it)
    from a bench.rows file; with @only (names separated by blanks or
    commas), those rows only.
    """
    keep = set(only.replace(",", " ").split()) if only else None
    rows, policies, current = [], {}, []
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] == "policies":
                current = words[1].split(",")
            elif words[0] == "default-rows":
                continue
            elif keep is None or words[0] in keep:
                rows.append(words[0])
                policies[words[0]] = current
    return rows, policies


def parse_line(line):
    """The key=value pairs of one BENCH line."""
    kv = {}
    for word in line.split()[2:]:
        key, sep, value = word.partition("=")
        if sep:
            kv[key] = value
    return kv


def read_logs(paths):
    """Window lines and failed-window lines of the console logs."""
    windows, failed = [], []
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.rstrip("\r\n")
                if line.startswith("# BENCH "):
                    windows.append(parse_line(line))
                elif line.startswith("# BENCH-FAILED "):
                    kv = parse_line(line)
                    kv["reason"] = line.split("reason=", 1)[-1]
                    failed.append(kv)
    return windows, failed


def num(x):
    """Throughputs in plain digits, small values (seconds) to 4 digits."""
    return "%.0f" % x if x >= 1000 else "%.4g" % x


def fmt(x):
    return "-" if x is None else "%.4g" % x


def median_or_none(values):
    values = [float(v) for v in values if v not in ("", None)]
    return statistics.median(values) if values else None


def quantile(sorted_values, q):
    """Nearest-rank quantile of an already sorted list."""
    i = min(len(sorted_values) - 1, max(0, int(q * len(sorted_values))))
    return sorted_values[i]


def resample_windows(by_boot, picks, rng):
    """The windows of the picked boots, each boot's windows resampled."""
    out = []
    for b in picks:
        w = by_boot[b]
        out.extend(rng.choices(w, k=len(w)))
    return out


def bootstrap_ratio(pol, ref, lower, seed, resamples=RESAMPLES):
    """
    Point ratio and 95% interval of median(pol) / median(ref) (inverted
    when lower is better); pol and ref map a boot to its windows.  None
    when the two share no boot; no interval (None, None) when either has
    a single window, whose spread nothing says.
    """
    boots = sorted(set(pol) & set(ref))
    if not boots:
        return None
    rng = random.Random(seed)

    def ratio(p, r):
        mp, mr = statistics.median(p), statistics.median(r)
        return mr / mp if lower else mp / mr

    point = ratio([v for b in boots for v in pol[b]],
                  [v for b in boots for v in ref[b]])
    if min(sum(len(pol[b]) for b in boots),
           sum(len(ref[b]) for b in boots)) < 2:
        return point, None, None
    reps = []
    for _ in range(resamples):
        picks = rng.choices(boots, k=len(boots))
        reps.append(ratio(resample_windows(pol, picks, rng),
                          resample_windows(ref, picks, rng)))
    reps.sort()
    return point, quantile(reps, 0.025), quantile(reps, 0.975)


def paired_ratio(pol, ref, lower, seed, resamples=RESAMPLES):
    """
    Geometric mean over the boots of the per-boot ratio of medians, and
    its 95% interval from resampling the boots (the same boots for both
    policies in each replicate); oriented as bootstrap_ratio().  None when
    the two share no boot; no interval with a single boot.
    """
    boots = sorted(set(pol) & set(ref))
    if not boots:
        return None
    sign = -1 if lower else 1
    logp = {b: math.log(statistics.median(pol[b])) for b in boots}
    logr = {b: math.log(statistics.median(ref[b])) for b in boots}

    def gmean(picks, ref_picks):
        return math.exp(sign * (statistics.fmean(logp[b] for b in picks) -
                                statistics.fmean(logr[b] for b in ref_picks)))

    point = gmean(boots, boots)
    if len(boots) < 2:
        return point, None, None
    rng = random.Random(seed)
    reps = []
    for _ in range(resamples):
        picks = rng.choices(boots, k=len(boots))
        ref_picks = picks
        reps.append(gmean(picks, ref_picks))
    reps.sort()
    return point, quantile(reps, 0.025), quantile(reps, 0.975)


def verdict(pooled, paired):
    """
    win or loss when both intervals exclude 1 on the same side; a missing
    interval (one window, one boot) excludes nothing: tie; "-" without a
    ratio.
    """
    if not pooled or not paired:
        return "-"
    ends = list(pooled[1:]) + list(paired[1:])
    if None in ends:
        return "tie"
    if min(ends) > 1:
        return "win"
    if max(ends) < 1:
        return "loss"
    return "tie"


def compute(rows, policies, windows, failed, default, seed, resamples):
    """One dict per row and policy, in table order."""
    data, meta, nfail, why = {}, {}, {}, {}
    for kv in windows:
        row, pol = kv.get("row"), kv.get("policy")
        if row not in rows:
            continue
        lower = "boot_s" in kv
        metric = float(kv["boot_s"] if lower else kv["acq_per_s"])
        boot = int(kv.get("boot", 1))
        cell = data.setdefault((row, pol), {"by_boot": {}, "diag": []})
        cell["by_boot"].setdefault(boot, []).append(metric)
        cell["diag"].append(kv)
        vcpus, vms, cpus = (int(kv[k]) for k in ("vcpus", "vms", "cpus"))
        unit = "s" if lower else UNITS.get(kv.get("lock"), "acq/s")
        meta[row] = {"lower": lower, "unit": unit, "vms": vms,
                     "overcommit": "%g" % (vcpus * vms / cpus),
                     "lock": kv.get("lock", "-")}
    for kv in failed:
        key = (kv.get("row"), kv.get("policy"))
        nfail[key] = nfail.get(key, 0) + 1
        why[key] = kv["reason"]

    out = []
    for row in rows:
        m = meta.get(row)
        for pol in policies[row]:
            key = (row, pol)
            rec = {"row": row, "policy": pol, "failed": nfail.get(key, 0),
                   "default": int(pol == default)}
            cell = data.get(key)
            if m is None or cell is None:
                rec.update({
                    "overcommit": m["overcommit"] if m else "-",
                    "vms": m["vms"] if m else "-", "runs": 0,
                    "median": "failed", "min": "failed", "max": "failed",
                    "unit": m["unit"] if m else "-",
                    "lower": int(m["lower"]) if m else 0,
                    "why": why.get(key, "no result: the row did not run "
                                   "or its boot failed"),
                    "lock": m["lock"] if m else "-", "boots": 0})
                out.append(rec)
                continue
            values = [v for w in cell["by_boot"].values() for v in w]
            rec.update({
                "overcommit": m["overcommit"], "vms": m["vms"],
                "runs": len(values), "median": num(statistics.median(values)),
                "min": num(min(values)), "max": num(max(values)),
                "unit": m["unit"], "lower": int(m["lower"]),
                "why": why.get(key, ""), "lock": m["lock"],
                "boots": len(cell["by_boot"])})
            for k in DIAGNOSTICS:
                rec[k] = fmt(median_or_none(d.get(k) for d in cell["diag"]))
            for sfx, names in REFERENCE_COLUMNS:
                ref = next((r for r in names if r in policies[row]), names[0])
                ref_cell = data.get((row, ref))
                ci = pci = None
                if ref == pol:
                    ci = pci = (1.0, 1.0, 1.0)
                elif ref_cell is not None:
                    tag = "%s:%s:%s:%s" % (seed, row, pol, ref)
                    ci = bootstrap_ratio(cell["by_boot"], ref_cell["by_boot"],
                                         m["lower"], tag, resamples)
                    pci = paired_ratio(cell["by_boot"], ref_cell["by_boot"],
                                       m["lower"], tag + ":paired", resamples)
                for pre, est in (("", ci), ("p", pci)):
                    rec[pre + "ratio" + sfx] = "%.3f" % est[0] if est else "-"
                    no_ci = est is None or est[1] is None
                    rec[pre + "ci_low" + sfx] = "-" if no_ci else "%.3f" % est[1]
                    rec[pre + "ci_high" + sfx] = "-" if no_ci else "%.3f" % est[2]
                rec["verdict" + sfx] = ("-" if ref == pol else
                                        verdict(ci, pci))
            out.append(rec)
    return out


def write_table(path, columns, records, header):
    with open(path, "w") as f:
        if header:
            f.write("\t".join(columns) + "\n")
        for rec in records:
            f.write("\t".join(str(rec.get(c, "-")) for c in columns) + "\n")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--resamples", type=int, default=RESAMPLES)
    ap.add_argument("--seed", default="ple-bench")
    ap.add_argument("--only", help="these rows of ROWS_FILE only")
    ap.add_argument("--policies",
                    help="P1,P2,...: every row's policies, in place of ROWS_FILE's "
                         "(a run made with scripts/bench.sh POLICIES=)")
    ap.add_argument("--default", default="stock",
                    help="the policy the kernel uses by default")
    ap.add_argument("rows_file")
    ap.add_argument("outdir")
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args(argv)
    rows, policies = parse_rows(args.rows_file, args.only)
    if args.policies:
        policies = {row: args.policies.split(",") for row in rows}
    windows, failed = read_logs(args.logs)
    os.makedirs(args.outdir, exist_ok=True)
    records = compute(rows, policies, windows, failed, args.default,
                      args.seed, args.resamples)
    write_table(args.outdir + "/bench.tsv", TSV_COLUMNS, records, True)
    write_table(args.outdir + "/bench.records", RECORD_COLUMNS, records, False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
