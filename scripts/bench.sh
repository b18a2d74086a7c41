#!/bin/bash
# The benchmark report: boot the fast kernel once per row of tests/bench.rows
# (every policy runs in that boot), each boot with its own timeout and one
# retry, then build/report.md, build/bench.tsv and build/report-ticket.png
# from the console logs (scripts/bench-report.sh).  A row that failed or
# timed out is reported as failed, never as a number.
# REPORT_FROM=LOG makes the report from an earlier run's console log.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
log=${REPORT_FROM:-$build/console-bench.log}
if [ -z "${REPORT_FROM:-}" ]; then
	: > "$log"
	start=$(date +%s)
	while read -r row tmo _; do
		for attempt in 1 2; do
			echo "[bench] row $row (attempt $attempt), $(( ($(date +%s) - start) / 60 )) min into the benchmark"
			"$top/scripts/boot.sh" fast bench "$build/console-bench-$row.log" \
				$((tmo + 120)) "ple.only=$row"
			if grep -aq "^### END $row rc=0" "$build/console-bench-$row.log"; then
				cat "$build/console-bench-$row.log" >> "$log"
				break
			fi
			echo "[bench] $row did not finish (attempt $attempt)"
			# Keep the failed boot in the log, but none of its numbers:
			# a row whose two boots fail is reported as failed.
			{ echo "# BENCH-RETRIED row=$row attempt=$attempt reason=the boot did not finish"
			  sed 's/^# BENCH /# BENCH-DISCARDED /' "$build/console-bench-$row.log"; } >> "$log"
		done
	done < <(grep -vE '^(#|policies |$)' "$top/tests/bench.rows")
	echo "[bench] all rows in $(( ($(date +%s) - start) / 60 )) min"
fi
"$top/scripts/bench-report.sh" "$log" "$build"
