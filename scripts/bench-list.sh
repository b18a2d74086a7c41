#!/bin/bash
# Turn tests/bench.rows (one workload per row, the policies on a "policies"
# line) into the guest's list: "ROW TIMEOUT COMMAND -R ROW -p POLICIES -r RUNS".
# usage: bench-list.sh [bench.rows] > bench.list
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
awk '
/^#/ || !NF { next }
$1 == "policies" { policies = $2; next }
$1 == "default-rows" { next }
{
	if (policies == "") { print "bench.rows: no policies line before " $1 > "/dev/stderr"; exit 1 }
	cmd = $0; sub(/^[^ ]+ +[^ ]+ +[^ ]+ +/, "", cmd)
	printf "%s %s %s -R %s -p %s -r %s\n", $1, $2, cmd, $1, policies, $3
}' "${1:-$top/tests/bench.rows}"
