#!/bin/bash
# The kernel patches in the order they apply, as paths relative to patches/:
# patches/stable/series, then patches/series, then patches/bench/series
# (scripts/export-patches.sh).  --mailed leaves out patches/bench/.
top=$(cd "$(dirname "$0")/.." && pwd)
list() { awk -v d="$1" '!/^#/ && NF { print d $1 }' "$top/patches/$1series" 2>/dev/null; }
list stable/
list ""
[ "${1:-}" = --mailed ] || list bench/
