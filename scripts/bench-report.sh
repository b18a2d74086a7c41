#!/bin/bash
# Turn the console log of `make bench` into the report: OUT/bench.tsv (one
# line per row and policy: row policy overcommit vms runs median min max
# unit), OUT/report.md (per row: every policy's median [min-max] and its
# ratio against stock, yield() and sleep, with the counters that say why)
# and OUT/report-ticket.png.
#
# Input: the "# BENCH key=value ..." lines that ple_lock_bench and
# nested_boot print, one per measured window or boot, and "# BENCH-FAILED
# row=R policy=P ... reason=..." for one that failed; tests/bench.rows gives
# the rows, their order and the policies.  A row or policy with no result
# is reported as failed, never as a number.  The metric is boot_s (lower is
# better) where a line has it, else acq_per_s (higher is better).
# usage: bench-report.sh CONSOLE_LOG OUTDIR [bench.rows]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
log=$1 out=$2 rows=${3:-$top/tests/bench.rows}
candidate=${CANDIDATE_POLICY:-local}
mkdir -p "$out"
data=$(mktemp)
trap 'rm -f "$data"' EXIT
tr -d '\r' < "$log" | grep -aE '^# BENCH(-FAILED)? ' > "$data" || true

# Per row and policy: good windows, median/min/max of the metric and the
# medians of the diagnostics; one record per line, tab-separated.
awk '
function val(k,   i, kv) {
	for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] }
	return ""
}
# Median of arr[key, 1..cnt] without the empty values, "-" if none; the
# minimum and maximum are left in lo and hi.
function median(arr, key, cnt,   i, j, k, t, v) {
	for (i = 1; i <= cnt; i++) if (arr[key, i] != "") v[++k] = arr[key, i] + 0
	if (!k) return "-"
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	lo = v[1]; hi = v[k]
	return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
}
function fmt(x) { return x == "-" ? x : sprintf("%.4g", x) }
# Throughputs in plain digits, small values (seconds) to 4 significant ones.
function num(x) { return x >= 1000 ? sprintf("%.0f", x) : sprintf("%.4g", x) }
FNR == NR {
	if ($0 ~ /^#/ || NF == 0) next
	if ($1 == "policies") { np = split($2, pols, ","); next }
	order[++nr] = $1
	next
}
$2 == "BENCH-FAILED" {
	key = val("row") SUBSEP val("policy")
	nfail[key]++
	r = $0; sub(/.*reason=/, "", r); why[key] = r
	next
}
{
	row = val("row"); key = row SUBSEP val("policy")
	lower[row] = val("boot_s") != ""
	metric = lower[row] ? val("boot_s") : val("acq_per_s")
	unit[row] = lower[row] ? "s" : (val("lock") == "kernel" ? "iter/s" : "acq/s")
	over[row] = val("vcpus") * val("vms") / val("cpus"); vms[row] = val("vms"); lock[row] = val("lock")
	n[key]++; m[key, n[key]] = metric
	jn[key, n[key]] = val("jain"); ex[key, n[key]] = val("exits_per_acq")
	yl[key, n[key]] = val("yields_per_acq"); rn[key, n[key]] = val("ran_next")
}
END {
	for (r = 1; r <= nr; r++) {
		row = order[r]
		for (p = 1; p <= np; p++) {
			key = row SUBSEP pols[p]
			if (n[key]) {
				med = median(m, key, n[key]); mlo = lo; mhi = hi
				printf "%s\t%s\t%g\t%d\t%d\t%s\t%s\t%s\t%s", row, pols[p], over[row], vms[row], n[key], num(med), num(mlo), num(mhi), unit[row]
				printf "\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", nfail[key], lower[row], fmt(median(jn, key, n[key])), fmt(median(ex, key, n[key])), fmt(median(yl, key, n[key])), fmt(median(rn, key, n[key])), why[key], lock[row]
			} else {
				printf "%s\t%s\t%s\t%s\t0\tfailed\tfailed\tfailed\t%s", row, pols[p], (row in over) ? over[row] : "-", (row in vms) ? vms[row] : "-", (row in unit) ? unit[row] : "-"
				printf "\t%d\t%s\t-\t-\t-\t-\t%s\t%s\n", nfail[key], lower[row], (key in why) ? why[key] : "no result: the row did not run or its boot failed", (row in lock) ? lock[row] : "-"
			}
		}
	}
}' "$rows" "$data" > "$out/bench.records"

# The published table: the columns the issue asks for, nothing else.
{
	printf "row\tpolicy\tovercommit\tvms\truns\tmedian\tmin\tmax\tunit\n"
	cut -f1-9 "$out/bench.records"
} > "$out/bench.tsv"

# Ratio of policy P's median to REF's in the same row, oriented so that
# more than 1 is better; "-" when either failed.
ratios_awk='
function ratio(row, p, ref) {
	if (!((row, p) in med) || !((row, ref) in med)) return "-"
	if (lower[row]) return sprintf("%.2fx", med[row, ref] / med[row, p])
	return sprintf("%.2fx", med[row, p] / med[row, ref])
}
# The same workload without overcommit: the best median at 1x of the rows
# with the same lock (boot rows: the boot with as many vCPUs as CPUs) and,
# for co-located VMs, also co-located.  Same CPUs, same lock: about the most
# any policy can reach at 2x or 4x.  Rates, i.e. 1/s for the boot rows.
function family(lock, vms) { return lock SUBSEP (vms > 1) }
function rate(row, x) { return lower[row] ? 1 / x : x }
function share(x, row,   fam) {
	fam = family(lk[row], nvm[row])
	if (!(fam in onex)) return "-"
	x = 100 * x / onex[fam]
	return x < 10 ? sprintf("%.2g%%", x) : sprintf("%.0f%%", x)
}
{
	row = $1; pol = $2; lower[row] = $11; lk[row] = $17; nvm[row] = $4
	if ($6 != "failed") med[row, pol] = $6
	fam = family($17, $4)
	if ($6 != "failed" && $3 + 0 <= 1 && (!(fam in onex) || rate(row, $6) > onex[fam]))
		onex[fam] = rate(row, $6)
	rec[NR] = $0
}'

# ticket-lock medians against overcommit, for the plot
awk -F'\t' '$1 ~ /^ticket-/ && $6 != "failed" { print $2, $3, $6 }' "$out/bench.records" |
	sort -k1,1 -k2,2n > "$out/bench-ticket.dat"
plot=""
if command -v gnuplot >/dev/null && [ -s "$out/bench-ticket.dat" ]; then
	cmd="set terminal png size 800,500; set output '$out/report-ticket.png';"
	cmd+="set title 'Ticket lock in a nested KVM guest, 2 CPUs (median of 5 windows)';"
	cmd+="set xlabel 'overcommit (vCPUs per CPU)'; set ylabel 'lock acquisitions per second';"
	cmd+="set logscale y; set key outside right; set xtics 1; set grid; plot"
	sep=""
	for p in $(cut -d' ' -f1 "$out/bench-ticket.dat" | uniq); do
		cmd+="$sep '< grep \"^$p \" $out/bench-ticket.dat' using 2:3 with linespoints title '$p'"
		sep=","
	done
	gnuplot -e "$cmd" 2>/dev/null && plot=report-ticket.png
fi

{
	echo "# Directed-yield benchmark"
	echo
	echo "$(grep -am1 '^### GUEST' "$log" | cut -d' ' -f3- | cut -d' ' -f1-3 || true)"
	echo
	echo "Every row is one boot of L1 (2 CPUs, QEMU TCG with the pause filter) running every policy in"
	echo "turn on the same running VMs: warm-up, then fixed-length windows; median [min-max] over the"
	echo "windows (boot rows: over the boots).  Ratios compare the row's policies, oriented so that"
	echo "more than 1.00x means better than the reference.  exits/acq and yields/acq: PAUSE-loop exits"
	echo "and successful directed yields per lock acquisition (workload iteration for Linux rows);"
	echo "ran next: share of yield_to() calls with a target on the spinner's CPU whose target was the"
	echo "next task picked.  Jain: fairness index over the VMs' throughput (1 = equal)."
	awk -F'\t' "$ratios_awk"'
	END {
		for (i = 1; i <= NR; i++) {
			split(rec[i], f, "\t"); row = f[1]
			if (row != last) {
				if (f[3] == "-")
					printf "\n## %s (failed)\n\n", row
				else
					printf "\n## %s (%sx overcommit, %s VM%s, %s)\n\n", row, f[3], f[4], (f[4] == 1 ? "" : "s"), f[9]
				print "| policy | runs | median [min-max] | vs stock | vs yield | vs sleep | Jain | exits/acq | yields/acq | ran next |"
				print "|---|---|---|---|---|---|---|---|---|---|"
				last = row
			}
			if (f[6] == "failed") {
				printf "| %s | 0 | **failed** (%s) | | | | | | | |\n", f[2], f[16]
				continue
			}
			printf "| %s | %d%s | %s [%s-%s] | %s | %s | %s | %s | %s | %s | %s |\n", f[2], f[5],
				f[10] ? " (+" f[10] " failed)" : "", f[6], f[7], f[8],
				ratio(row, f[2], "stock"), ratio(row, f[2], "yield"), ratio(row, f[2], "sleep"),
				(f[4] > 1 ? f[12] : "-"), f[13], f[14], (f[15] == "-" || f[15] < 0 ? "-" : f[15])
		}
	}' "$out/bench.records"
	echo
	echo "## The proposed policy ($candidate, with YIELD_TO_DONATE) against the goals"
	echo
	echo "Goal at 2x and 4x overcommit: at least 1.50x stock, 1.15x yield() and 1.00x sleep; at 1x"
	echo "within 3% of stock; with co-located VMs a Jain index of at least 0.95.  The 1x rate is the"
	echo "best median of the same workload at 1x (co-located rows: co-located VMs at 1x; boot rows: a"
	echo "boot with as many vCPUs as CPUs, the inverse of its time), about the most any policy can"
	echo "reach on the same two CPUs: a goal of 1.50x stock above 100% of it cannot be met."
	echo
	echo "| row | overcommit | vs stock | vs yield | vs sleep | Jain | met | 1.50x stock in % of 1x | $candidate in % of 1x |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' -v d="$candidate" "$ratios_awk"'
	END {
		for (i = 1; i <= NR; i++) {
			split(rec[i], f, "\t"); if (f[2] != d) continue
			row = f[1]; s = ratio(row, d, "stock"); y = ratio(row, d, "yield"); z = ratio(row, d, "sleep")
			if (f[6] == "failed") met = "no: failed"
			else if (f[3] + 0 <= 1) met = (s != "-" && s + 0 >= 0.97) ? "yes" : "no"
			else met = (s != "-" && s + 0 >= 1.5 && y != "-" && y + 0 >= 1.15 && z != "-" && z + 0 >= 1.0) ? "yes" : "no"
			if (f[4] > 1 && f[12] != "-" && f[12] + 0 < 0.95) met = "no (Jain)"
			printf "| %s | %sx | %s | %s | %s | %s | %s | %s | %s |\n", row, f[3], s, y, z, (f[4] > 1 ? f[12] : "-"), met,
				(f[3] + 0 > 1 && (row, "stock") in med) ? share(1.5 * rate(row, med[row, "stock"]), row) : "-",
				(f[3] + 0 > 1 && (row, d) in med) ? share(rate(row, med[row, d]), row) : "-"
		}
	}' "$out/bench.records"
	echo
	[ -n "$plot" ] && echo "![ticket lock against overcommit]($plot)" && echo
	tr -d '\r' < "$log" | sed -n 's/^# BENCH-RETRIED row=\([^ ]*\) attempt=\([0-9]*\) reason=\(.*\)/**\1: boot attempt \2 did not finish (\3); its numbers are discarded.**/p'
	echo
	echo "Reproduce: \`make bench\` (all rows; the console log is build/console-bench.log and"
	echo "\`REPORT_FROM=build/console-bench.log make bench\` rebuilds this report from it)."
} > "$out/report.md"
echo "[bench] $out/report.md, $out/bench.tsv${plot:+, $out/$plot}"
# Exit 1 if anything failed, so that an incomplete report is not mistaken
# for a complete one.
! awk -F'\t' '$6 == "failed" || $10 > 0 { bad = 1 } END { exit !bad }' "$out/bench.records"
