#!/usr/bin/env python3
"""What a PAUSE-loop exit led to, per row and policy: the table of
ple_lock_bench -T's "# ROLES" lines.

Each ROLES line is one traced window of one policy (ple_lock_bench's
roles_window()): the PAUSE-loop exits traced and, for each, what ran next
on the spinner's CPU: the spinner again (kept), or a switch to the lock
holder, the waiter served next, another waiter, a vCPU of the same VM
that neither holds nor waits, a vCPU of another VM, the idle task or
another task; and the median time from an exit to the lock's next
acquisition in that VM.  The table sums the counts over every window of
a row and policy (all boots) and gives each as a share of the exits; the
time is the median of the windows' medians.  A row whose windows lost
lock events (the guest's ring was full) says how many.

Python 3 standard library only.
usage: bench_roles.py LOG...
"""
import statistics
import sys

ROLES = ("kept", "holder", "next_waiter", "waiter", "not_waiting",
         "other_vm", "idle", "other")
HEAD = ("spinner again", "holder", "next waiter", "other waiter",
        "not waiting", "other VM", "idle", "other task")


def read(paths):
    """{(row, policy): [kv, ...]} in the order first seen."""
    out = {}
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                if not line.startswith("# ROLES "):
                    continue
                kv = dict(w.split("=", 1) for w in line.split()[2:] if "=" in w)
                out.setdefault((kv.get("row"), kv.get("policy")), []).append(kv)
    return out


def table(data):
    lines = ["| row | policy | windows | exits | " + " | ".join(HEAD) +
             " | exit to next acquisition (us) |",
             "|" + "---|" * (5 + len(HEAD))]
    for (row, pol), wins in data.items():
        exits = sum(int(w["exits"]) for w in wins)
        cells = []
        for r in ROLES:
            c = sum(int(w.get(r, 0)) for w in wins)
            cells.append("%.0f%%" % (100.0 * c / exits) if exits else "-")
        after = [float(w["acq_after_us"]) for w in wins
                 if float(w.get("acq_after_us", -1)) >= 0]
        lost = sum(int(w.get("lost", 0)) for w in wins)
        lines.append("| %s | %s | %d%s | %d | %s | %s |" % (
            row, pol, len(wins), " (%d events lost)" % lost if lost else "",
            exits, " | ".join(cells),
            "%.0f" % statistics.median(after) if after else "-"))
    return "\n".join(lines) + "\n"


def main(argv):
    if not argv:
        print(__doc__.strip().split("\n")[-1], file=sys.stderr)
        return 2
    sys.stdout.write(table(read(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
