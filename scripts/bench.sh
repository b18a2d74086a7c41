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
# POLICIES=P1,P2,... runs those policies in every row in place of the
# rows' own (l1/init rewrites each command's -p; keep as many policies as
# the rows have windows per policy, so that the rotation stays a Latin
# square).
# REPORT_FROM=LOG makes the report from an earlier run's console log.
# RUN=NAME also keeps the run in results/runs/DATE-NAME/: report.md,
# bench.tsv, forest.png, the console log (console.log.gz) and "command"
# (the command, the commit it ran on, the platform).
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
				"$top/scripts/boot.sh" fast bench "$one" $((tmo + 120)) "ple.only=$row" \
					${POLICIES:+"ple.policies=$POLICIES"}
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
rc=0
ROWS="$rows" "$top/scripts/bench-report.sh" "$log" "$build" || rc=$?
if [ -n "${RUN:-}" ]; then
	dir=$top/results/runs/$(date +%F)-$RUN
	mkdir -p "$dir"
	for f in report.md bench.tsv forest.png report-ticket.png; do
		if [ -e "$build/$f" ]; then cp "$build/$f" "$dir/"; fi
	done
	gzip -9c "$log" > "$dir/console.log.gz"
	{
		echo "${REPORT_FROM:+REPORT_FROM=$REPORT_FROM }${POLICIES:+POLICIES=$POLICIES }ROWS=\"$rows\" BOOTS=$boots scripts/bench.sh"
		echo "commit $(git -C "$top" rev-parse HEAD)$(git -C "$top" diff --quiet HEAD -- patches l1 l2 tests scripts || echo ' (with uncommitted changes)')"
		echo "platform: $("$build/qemu/obj/qemu-system-x86_64" --version | head -1), qemu/patches applied; L1: -smp 2, $(grep -am1 '^### GUEST' "$log" | cut -d' ' -f3-5)"
	} > "$dir/command"
	echo "[bench] kept in ${dir#$top/}"
fi
exit $rc
