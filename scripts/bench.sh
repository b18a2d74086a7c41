#!/bin/bash
# The benchmark report: boot the fast kernel once per row of tests/bench.rows
# (every policy runs in that boot), BOOTS times (default 3), each boot of
# every row a block, so that a drift of the machine during the run spreads
# over all rows; each boot with its own timeout and one retry.  The window
# lines of boot N carry boot=N; each boot's console log is kept
# (build/console-bench-ROW-N.log) and all of them are concatenated into
# build/console-bench.log.  Then build/report.md, build/bench.tsv,
# build/forest.png and build/report-ticket.png from that log
# (scripts/bench-report.sh).  A row that failed or timed out is reported as
# failed, never as a number.
# ROWS="row row ..." runs those rows of tests/bench.rows instead of the
# default set (the "default-rows" line); ROWS=all runs every row.
# REPORT_FROM=LOG makes the report from an earlier run's console log.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
log=${REPORT_FROM:-$build/console-bench.log}
rows_file=$top/tests/bench.rows
boots=${BOOTS:-3}
# Every row and its timeout, as the guest's bench.list has them.
list=$("$top/scripts/bench-list.sh" "$rows_file")
rows=${ROWS:-$(awk '$1 == "default-rows" { $1 = ""; print }' "$rows_file")}
[ "$rows" = all ] && rows=$(echo "$list" | cut -d' ' -f1)
rows=$(echo "$rows" | tr ',' ' ')
timeout_of() { echo "$list" | awk -v r="$1" '$1 == r { print $2 }'; }
for row in $rows; do
	[ -n "$(timeout_of "$row")" ] || { echo "[bench] no row $row in $rows_file" >&2; exit 1; }
done
if [ -z "${REPORT_FROM:-}" ]; then
	: > "$log"
	start=$(date +%s)
	for boot in $(seq 1 "$boots"); do
		for row in $rows; do
			tmo=$(timeout_of "$row")
			one=$build/console-bench-$row-$boot.log
			for attempt in 1 2; do
				echo "[bench] boot $boot of $boots, row $row (attempt $attempt), $(( ($(date +%s) - start) / 60 )) min into the benchmark"
				"$top/scripts/boot.sh" fast bench "$one" $((tmo + 120)) "ple.only=$row"
				if grep -aq "^### END $row rc=0" "$one"; then
					sed "s/^# BENCH\(-FAILED\)\{0,1\} /&boot=$boot /" "$one" >> "$log"
					break
				fi
				echo "[bench] $row did not finish (boot $boot, attempt $attempt)"
				# Keep the failed boot in the log, but none of its numbers:
				# a row whose two attempts fail is reported as failed.
				{ echo "# BENCH-RETRIED row=$row boot=$boot attempt=$attempt reason=the boot did not finish"
				  sed 's/^# BENCH /# BENCH-DISCARDED /' "$one"; } >> "$log"
			done
		done
	done
	echo "[bench] $boots boot(s) of $(echo "$rows" | wc -w) row(s) in $(( ($(date +%s) - start) / 60 )) min"
fi
ROWS="$rows" "$top/scripts/bench-report.sh" "$log" "$build"
