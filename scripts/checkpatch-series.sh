#!/bin/bash
# checkpatch.pl --strict on every patch of the three series
# (scripts/patch-list.sh).  Fails on any ERROR or WARNING; CHECKs are
# printed for review.  The ones left are the TRACE_EVENT() layout that
# every tracepoint header has.  The MAINTAINERS warning is ignored: the new
# files fall under existing KVM entries.
# patches/checkpatch-accepted lists "patch-name-glob TYPE reason" for the
# few warnings that are deliberate; each is passed as --ignore TYPE.
set -uo pipefail
# spdxcheck.py needs Debian's python3 with python3-ply, not another python3 on PATH.
export PATH=/usr/bin:$PATH
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${BUILD:-$top/build}/linux
bad=0
for p in $("$top/scripts/patch-list.sh"); do
	p=$top/patches/$p
	ignore=FILE_PATH_CHANGES
	while read -r glob type _; do
		case "$glob" in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2053
		[[ $(basename "$p") == $glob ]] && ignore=$ignore,$type
	done < <(cat "$top/patches/checkpatch-accepted" 2>/dev/null)
	out=$(cd "$tree" && scripts/checkpatch.pl --strict -q --ignore "$ignore" "$p" 2>&1)
	echo "$(basename "$p"): $(echo "$out" | grep '^total:' || echo clean)"
	echo "$out" | grep -q '^total: 0 errors, 0 warnings' || [ -z "$out" ] || { echo "$out"; bad=1; }
done
exit $bad
