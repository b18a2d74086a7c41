#!/bin/bash
# Test the harness's console parsers on committed fixtures, as kunit.py tests
# its own parser: scripts/collect-results.sh on tests/fixtures/check-*
# (every way a test can pass, fail, skip, hang or splat) and
# scripts/bench-report.sh on tests/fixtures/bench-* (windows, a failed
# window, a retried boot, a boot row, a row that never ran).  The output
# must equal the expected files.  Then the statistics of
# scripts/bench_stats.py on tests/fixtures/stats-* (scripts/bench_stats_test.py:
# what each ratio's interval must do where the answer is known), and
# scripts/test_distribution.py on tests/fixtures/distribution-*, and
# scripts/bench_roles.py on tests/fixtures/roles-*,
# scripts/bench_table.py on the fixture's tsv and on the tables of README.md
# and the cover letter (each must be its tsv's output).  Writes TAP
# for scripts/collect-results.sh.
# usage: test-parsers.sh [TAP_FILE]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fix=$top/tests/fixtures
tap=${1:-/dev/stdout}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() {	# check DESCRIPTION EXPECTED ACTUAL
	n=$((n + 1))
	if diff -u "$2" "$3" > "$tmp/diff"; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		sed 's/^/# /' "$tmp/diff" | head -20
		failed=1
	fi
}
{
	echo "### HOST parsers"
	echo "### BEGIN parsers"
	"$top/scripts/collect-results.sh" "$fix/check-crossbuild.tap" "$fix/check-console.log" \
		> "$tmp/check.txt"
	rc=$?
	check "collect-results.sh: every kind of result on the fixture log" \
		"$fix/check-expected.txt" "$tmp/check.txt"
	n=$((n + 1))
	[ $rc = 1 ] && echo "ok $n collect-results.sh: exit status 1 when something failed" ||
		{ echo "not ok $n collect-results.sh: exit status $rc, not 1"; failed=1; }
	"$top/scripts/bench-report.sh" "$fix/bench-console.log" "$tmp/bench" "$fix/bench.rows" \
		> /dev/null 2>&1
	rc=$?
	check "bench-report.sh: bench.tsv of the fixture log" \
		"$fix/bench-expected.tsv" "$tmp/bench/bench.tsv"
	check "bench-report.sh: report.md of the fixture log" \
		"$fix/bench-expected-report.md" "$tmp/bench/report.md"
	n=$((n + 1))
	[ $rc = 1 ] && echo "ok $n bench-report.sh: exit status 1 for a report with failed rows" ||
		{ echo "not ok $n bench-report.sh: exit status $rc, not 1"; failed=1; }
	python3 "$top/scripts/bench_table.py" "$fix/bench-expected.tsv" \
		--compare local:stock local:yield yield:stock > "$tmp/table.md"
	check "bench_table.py: the front page's table of the fixture's bench.tsv" \
		"$fix/bench-table-expected.md" "$tmp/table.md"
	n=$((n + 1))
	if python3 "$top/scripts/bench_table.py" --check "$top/README.md" \
		"$top/patches/0000-cover-letter.patch" > "$tmp/tables.txt"; then
		echo "ok $n bench_table.py: the tables of README.md and the cover letter are their tsv's ($(cut -d: -f2 "$tmp/tables.txt" | tr '\n' ';'))"
	else
		echo "not ok $n bench_table.py: a table of README.md or the cover letter is not its tsv's"
		sed 's/^/# /' "$tmp/tables.txt"
		failed=1
	fi
	python3 "$top/scripts/bench_roles.py" "$fix/roles-console.log" > "$tmp/roles.md"
	check "bench_roles.py: the ROLES table of the fixture log (counts summed over boots)" \
		"$fix/roles-expected.md" "$tmp/roles.md"
	python3 "$top/scripts/test_distribution.py" "$fix/distribution-console.log" > "$tmp/dist.txt"
	check "test_distribution.py: every quantity of the fixture log, old and new messages" \
		"$fix/distribution-expected.txt" "$tmp/dist.txt"
	echo "### END parsers rc=$failed"
	echo "### BEGIN bench-stats"
	python3 "$top/scripts/bench_stats_test.py"
	rc=$?
	echo "### END bench-stats rc=$rc"
	[ $rc = 0 ] || failed=1
} > "$tap"
exit $failed
