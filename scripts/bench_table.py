#!/usr/bin/env python3
"""The front page's table of a benchmark run, printed from its bench.tsv.

One line per row of the run: each policy's median [min-max] in the row's
unit, then for each COMPARE given (POLICY:REF, "local:stock" by default)
the ratio of POLICY's median to REF's with both 95% intervals (pooled
and paired, "p") and the verdict, all as scripts/bench_stats.py wrote
them.  A policy that failed prints "failed".

The README and the cover letter carry this output between the lines

    <!-- bench_table.py ARGS -->
    ...
    <!-- end bench_table.py -->

and the cover letter, in plain text (--text: aligned columns, medians
without their range, the paired interval after the pooled one without
its "p"), after a line

    $ scripts/bench_table.py --text ARGS

up to the next blank line.  `--check FILE` reruns every such command of
FILE (ARGS relative to the top of the tree) and reports each table that
differs from its output: scripts/test-parsers.sh runs it on README.md
and the cover letter, so that a table edited by hand, or a tsv changed
under it, fails `make check`.

Python 3 standard library only.
usage: bench_table.py [--text] TSV [--rows "ROW ..."] [--compare POLICY:REF ...]
       bench_table.py --check FILE
"""
import argparse
import csv
import os
import re
import shlex
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = {"stock": "stock (default)", "sleep": "sleep 100 us", "yield": "yield()"}
# bench.tsv's ratio columns by reference: pooled ratio and interval, paired
# interval, verdict.
REF_COLUMNS = {
    "stock": ("ratio", "ci_low", "ci_high", "pci_low", "pci_high", "verdict"),
    "yield": ("ratio_yield", "ci_low_yield", "ci_high_yield",
              "pci_low_yield", "pci_high_yield", "verdict_yield"),
}
BEGIN, END = "<!-- bench_table.py ", "<!-- end bench_table.py -->"
TEXT_BEGIN = re.compile(r"^\s*\$ scripts/bench_table.py (--text .*)$")


def ratio_cell(rec, ref):
    """'1.24x [1.10-1.45] p [1.05-1.40] win' from @rec's columns for @ref."""
    r, lo, hi, plo, phi, verdict = (rec.get(c, "-") for c in REF_COLUMNS[ref])
    if r == "-":
        return "-"
    out = "%.2fx" % float(r)
    out += " [%.2f-%.2f]" % (float(lo), float(hi)) if lo != "-" else " [-]"
    out += " p [%.2f-%.2f]" % (float(plo), float(phi)) if plo != "-" else " p [-]"
    return out + " " + verdict


def table(tsv, rows=None, compare=("local:stock",), text=False):
    with open(tsv) as f:
        recs = list(csv.DictReader(f, delimiter="\t"))
    order, by = [], {}
    for rec in recs:
        if rec["row"] not in by:
            order.append(rec["row"])
        by.setdefault(rec["row"], {})[rec["policy"]] = rec
    if rows:
        missing = [r for r in rows if r not in by]
        if missing:
            raise SystemExit("bench_table.py: no row %s in %s" % (" ".join(missing), tsv))
        order = rows
    policies = []
    for row in order:
        for p in by[row]:
            if p not in policies:
                policies.append(p)
    pairs = [c.split(":", 1) for c in compare]
    head = (["row", "unit"] + [NAMES.get(p, p) for p in policies] +
            ["%s vs %s" % ({"yield": "yield()"}.get(p, p), {"yield": "yield()"}.get(r, r))
             for p, r in pairs])
    body = []
    for row in order:
        cells = by[row]
        unit = next((c["unit"] for c in cells.values() if c["unit"] != "-"), "-")
        line = [row, unit]
        for p in policies:
            c = cells.get(p)
            if c is None:
                line.append("-")
            elif c["median"] == "failed":
                line.append("failed")
            else:
                line.append("%s [%s-%s]" % (c["median"], c["min"], c["max"]))
        for p, r in pairs:
            c = cells.get(p)
            line.append(ratio_cell(c, r) if c and c["median"] != "failed" else "-")
        body.append(line)
    if text:
        head = [h.replace(" (default)", "").replace(" vs ", "/") for h in head]
        head.pop(1)
        # Medians without their range, both intervals without the "p".
        body = [[re.sub(r"^(\S+) \[[^]]*\]$", r"\1", c) if 2 <= i < 2 + len(policies)
                 else c.replace(" p [", " [") for i, c in enumerate(b) if i != 1]
                for b in body]
        widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
        return "".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n"
                       for r in [head] + body)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(b) + " |" for b in body]
    return "\n".join(lines) + "\n"


def run(args):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--text", action="store_true", help="plain text, aligned")
    ap.add_argument("tsv")
    ap.add_argument("--rows", help="these rows, in this order (blanks or commas)")
    ap.add_argument("--compare", nargs="*", default=["local:stock"],
                    help="POLICY:REF ratio columns (REF: stock or yield)")
    a = ap.parse_args(args)
    for c in a.compare:
        if ":" not in c or c.split(":", 1)[1] not in REF_COLUMNS:
            ap.error("--compare POLICY:REF with REF one of %s" % ", ".join(REF_COLUMNS))
    rows = a.rows.replace(",", " ").split() if a.rows else None
    return table(a.tsv, rows, a.compare, a.text)


def check(path):
    """Rerun every table command of @path; 0 if each table is its output."""
    with open(path) as f:
        text = f.read().split("\n")
    bad = n = 0
    i = 0
    while i < len(text):
        line = text[i].strip()
        m = TEXT_BEGIN.match(text[i])
        if m or (line.startswith(BEGIN) and line.endswith("-->")):
            args = shlex.split(m.group(1) if m else line[len(BEGIN):-3])
            j = i + 1
            body = []
            while j < len(text) and (text[j].strip() if m else END not in text[j]):
                body.append(text[j])
                j += 1
            n += 1
            cwd = os.getcwd()
            os.chdir(TOP)
            try:
                want = run(args)
            finally:
                os.chdir(cwd)
            if "\n".join(body) + "\n" != want:
                bad += 1
                print("%s:%d: the table differs from `bench_table.py %s`"
                      % (path, i + 1, " ".join(args)))
            i = j
        i += 1
    print("%s: %d table(s), %d differ" % (path, n, bad))
    return 1 if bad else 0


def main(argv):
    if argv[:1] == ["--check"]:
        return max([check(p) for p in argv[1:]] or [0])
    sys.stdout.write(run(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
