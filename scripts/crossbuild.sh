#!/bin/bash
# Build what the series touches for other architectures, with Debian's cross
# compilers, so that a break on one of them (a 64-bit division on a 32-bit
# kernel, a field that exists only with one architecture's KVM, an x86-only
# builtin in a selftest) fails before it is sent.
#
#  - x86_64: after each patch of patches/stable/, patches/series and
#    patches/bench/, the objects built from the files that patch touches
#    (kernel/sched, kvm_main.o, the syscall tables, the sched and KVM
#    selftests), so that the mailed series and the measurement series
#    on top of it bisect;
#  - i386, arm64, riscv64: after the mailed series, kernel/sched/, the
#    architecture's KVM directory (which builds virt/kvm), the syscall
#    table, and the sched selftests (static, against the cross libc);
#  - every sched and KVM object of the 32-bit build is checked for calls to
#    libgcc's 64-bit division helpers, which the kernel does not link.
# Each architecture uses tinyconfig plus config/cross-<arch>.config, chosen to
# cover both sides of the series' #ifdefs between them (SCHEDSTATS,
# FAIR_GROUP_SCHED, HAVE_KVM_CPU_RELAX_INTERCEPT).  Warnings are errors.
#
# Everything is cached in build/cross (worktree, one object directory per
# architecture, a result per patch state), so a rerun rebuilds only what a
# changed patch touches.  Output: one "### BEGIN crossbuild-<arch>" section
# per architecture with TAP lines, as scripts/collect-results.sh reads them.
# usage: crossbuild.sh [TAP_LOG]   (exit status 1 if anything failed)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
tree=$build/linux
cross=$build/cross
src=$cross/src
tap=${1:-$cross/crossbuild.tap}
jobs=-j$(nproc)
git_id=(-c user.name="ple-harness" -c user.email="ple-harness@localhost")
declare -A cc=([x86_64]=x86_64-linux-gnu- [i386]=i686-linux-gnu-
	       [arm64]=aarch64-linux-gnu- [riscv64]=riscv64-linux-gnu-)
declare -A karch=([x86_64]=x86_64 [i386]=i386 [arm64]=arm64 [riscv64]=riscv)
declare -A kvmdir=([x86_64]=arch/x86/kvm/ [i386]=arch/x86/kvm/
		   [arm64]=arch/arm64/kvm/ [riscv64]=arch/riscv/kvm/)
declare -A systbl=([x86_64]="arch/x86/entry/syscall_64.o arch/x86/entry/syscall_32.o"
		   [i386]=arch/x86/entry/syscall_32.o
		   [arm64]="arch/arm64/kernel/sys.o arch/arm64/kernel/sys32.o"
		   [riscv64]=arch/riscv/kernel/syscall_table.o)

mkdir -p "$cross"
exec 3>"$tap"
say() { echo "[crossbuild] $*"; }
out() { echo "$*" >&3; }
n=0 failed=0
result() {	# result ok|fail description [log]
	n=$((n + 1))
	if [ "$1" = ok ]; then out "ok $n $2"; else
		out "not ok $n $2"; failed=1
		[ -n "${3:-}" ] && grep -E 'error|warning|Error|undefined' "$3" | head -15 | sed 's/^/# /' >&3
	fi
}
out "### HOST crossbuild $(date -u +%FT%TZ)"
# A failure before any build is one failed result, so that it is counted.
fatal() {
	echo "[crossbuild] $*" >&2
	out "### BEGIN crossbuild"
	out "not ok 1 crossbuild: $*"
	out "### END crossbuild rc=1"
	exit 1
}

for a in "${!cc[@]}"; do
	command -v "${cc[$a]}gcc" >/dev/null || fatal "${cc[$a]}gcc missing (scripts/install-deps.sh)"
done
# The stable fixes, the mailed series, then the measurement series.
patches=$("$top/scripts/patch-list.sh")
n_mailed=$("$top/scripts/patch-list.sh" --mailed | wc -l)

# One commit per patch state, in a worktree of build/linux; commits are
# cached by the hash of the patches up to that point.
if [ ! -e "$src/.git" ]; then
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$src" pristine
fi
states=$cross/states
touch "$states"
declare -a commit name
prev=$(git -C "$tree" rev-parse pristine) cum="" k=0
for p in $patches; do
	cum=$( (echo "$cum"; cat "$top/patches/$p") | sha1sum | cut -c1-40)
	c=$(awk -v h="$cum" '$1 == h { print $2 }' "$states" | tail -1)
	if [ -z "$c" ] || ! git -C "$src" cat-file -e "$c^{commit}" 2>/dev/null; then
		git -C "$src" checkout -q -f --detach "$prev"
		if ! git -C "$src" "${git_id[@]}" am -q --keep-cr "$top/patches/$p" >/dev/null 2>&1; then
			git -C "$src" am --abort >/dev/null 2>&1
			fatal "$p does not apply"
		fi
		c=$(git -C "$src" rev-parse HEAD)
		echo "$cum $c" >> "$states"
	fi
	k=$((k + 1))
	commit[k]=$c name[k]=$p hash[k]=$cum
	prev=$c
done
last=$k

# Configure $1 (arch) in build/cross/$1 when its fragment or the series changed.
configure() {
	local a=$1 o=$cross/$1 frag=$top/config/cross-$1.config line sym key missing=0
	mkdir -p "$o"
	# The configuration depends on the fragment and on the Kconfig files.
	key=$( (cat "$frag"; git -C "$src" ls-tree -r HEAD | grep Kconfig) | sha1sum)
	[ -e "$o/.config" ] && [ "$(cat "$o/.config.key" 2>/dev/null)" = "$key" ] && return 0
	make -s -C "$src" O="$o" ARCH=${karch[$a]} CROSS_COMPILE=${cc[$a]} tinyconfig >/dev/null &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$frag" >"$o/merge.log" &&
	make -s -C "$src" O="$o" ARCH=${karch[$a]} CROSS_COMPILE=${cc[$a]} olddefconfig >/dev/null || return 1
	# Every option of the fragment must survive, except those the series
	# has not added yet at this patch.
	while read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
		*) continue ;;
		esac
		git -C "$src" grep -qE "^\s*(menu)?config ${sym#CONFIG_}\$" -- '*Kconfig*' || continue
		case "$line" in
		CONFIG_*) grep -qx "$line" "$o/.config" || { echo "[crossbuild] $a: not set: $line" >&2; missing=1; } ;;
		*) ! grep -q "^$sym=" "$o/.config" || { echo "[crossbuild] $a: should be off: $sym" >&2; missing=1; } ;;
		esac
	done < "$frag"
	[ $missing = 0 ] || return 1
	echo "$key" > "$o/.config.key"
}

kmake() {	# kmake arch log targets...
	local a=$1 log=$2
	shift 2
	nice make -C "$src" O="$cross/$a" ARCH=${karch[$a]} CROSS_COMPILE=${cc[$a]} \
		KCFLAGS=-Werror $jobs "$@" >>"$log" 2>&1
}

# No object may call libgcc's 64-bit division helpers: a 32-bit kernel
# does not link them (__divdi3 and friends on i386, __aeabi_ldivmod on arm).
no_libgcc_div() {	# no_libgcc_div arch dirs...
	local a=$1 bad
	shift
	bad=$(cd "$cross/$a" && find "$@" -name '*.o' 2>/dev/null | sort |
	      xargs -r "${cc[$a]}nm" -u 2>/dev/null |
	      awk '/^[^ ].*:$/ { f = $1 } /__(u)?(div|mod)di3|__aeabi_(u)?ldivmod/ { print f, $2 }')
	[ -z "$bad" ] || { echo "$bad" | sed 's/^/# /' >&3; return 1; }
}

# Selftests: sched for every architecture, against its installed uapi headers.
selftests() {	# selftests arch log
	local a=$1 log=$2 hdr=$cross/$1/usr-headers o=$cross/$1/selftests
	local t tests=""
	for t in sched_yield_to_test yield_to_lock_bench; do
		[ -e "$src/tools/testing/selftests/sched/$t.c" ] && tests+=" $o/sched/$t"
	done
	[ -n "$tests" ] || return 0
	make -s -C "$src" O="$cross/$a" ARCH=${karch[$a]} CROSS_COMPILE=${cc[$a]} \
		INSTALL_HDR_PATH="$hdr" headers_install >>"$log" 2>&1 || return 1
	mkdir -p "$o/sched"
	nice make -C "$src/tools/testing/selftests/sched" OUTPUT="$o/sched" CC=${cc[$a]}gcc \
		CFLAGS="-O2 -Wall -Werror -static -isystem $hdr/include" $tests >>"$log" 2>&1
}

# The objects built from what one patch touches (x86_64, patch by patch).
objects_for() {	# objects_for commit
	local f objs=""
	for f in $(git -C "$src" diff-tree --no-commit-id --name-only -r "$1"); do
		case "$f" in
		kernel/sched/fair.c|kernel/sched/features.h|kernel/sched/*kunit*) objs+=" kernel/sched/fair.o" ;;
		kernel/sched/syscalls.c|kernel/sched/ext.c) objs+=" kernel/sched/build_policy.o" ;;
		kernel/sched/debug.c) objs+=" kernel/sched/build_utility.o" ;;
		kernel/sched/sched.h) objs+=" kernel/sched/" ;;
		virt/kvm/*|include/linux/kvm*|include/trace/events/kvm.h) objs+=" arch/x86/kvm/" ;;
		arch/x86/kvm/*) objs+=" arch/x86/kvm/" ;;
		*syscall*.tbl|include/uapi/asm-generic/unistd.h|include/linux/syscalls.h)
			objs+=" ${systbl[x86_64]} kernel/sched/build_policy.o" ;;
		include/uapi/linux/sched.h) objs+=" kernel/sched/build_policy.o selftests" ;;
		tools/testing/selftests/sched/*) objs+=" selftests" ;;
		tools/testing/selftests/kvm/*) objs+=" kvm-selftests" ;;
		esac
	done
	echo "$objs" | tr ' ' '\n' | sort -u | tr '\n' ' '
}

ok_cache=$cross/ok
touch "$ok_cache"
start=$(date +%s)

# x86_64, patch by patch.
a=x86_64
out "### BEGIN crossbuild-$a"
for k in $(seq 1 $last); do
	key="$a ${hash[k]}"
	if grep -qx "$key" "$ok_cache"; then
		result ok "$a ${name[k]}: builds (cached)"
		continue
	fi
	git -C "$src" checkout -q -f --detach "${commit[k]}"
	log=$cross/$a-$k.log
	: >"$log"
	objs=$(objects_for "${commit[k]}")
	rc=0
	configure $a >>"$log" 2>&1 || rc=1
	kobjs=$(echo "$objs" | tr ' ' '\n' | grep -v selftests | tr '\n' ' ')
	[ $rc = 0 ] && [ -n "${kobjs// }" ] && { kmake $a "$log" $kobjs || rc=1; }
	[ $rc = 0 ] && [[ " $objs " == *" selftests "* ]] && { selftests $a "$log" || rc=1; }
	if [ $rc = 0 ] && [[ " $objs " == *" kvm-selftests "* ]]; then
		make -s -C "$src" O="$cross/$a" ARCH=x86_64 INSTALL_HDR_PATH="$cross/$a/usr-headers" \
			headers_install >>"$log" 2>&1 &&
		nice make -C "$src/tools/testing/selftests/kvm" $jobs OUTPUT="$cross/$a/selftests/kvm" \
			KHDR_INCLUDES="-isystem $cross/$a/usr-headers/include" \
			"$cross/$a/selftests/kvm/x86_64/ple_spin_test" >>"$log" 2>&1 || rc=1
	fi
	if [ $rc = 0 ]; then
		echo "$key" >> "$ok_cache"
		result ok "$a ${name[k]}: builds ($objs)"
	else
		result fail "$a ${name[k]}: build failed ($objs), log $log" "$log"
	fi
	say "$a ${name[k]}: rc=$rc ($(($(date +%s) - start)) s)"
done
out "### END crossbuild-$a rc=$failed"

# The other architectures, the mailed series.
git -C "$src" checkout -q -f --detach "${commit[n_mailed]}"
for a in i386 arm64 riscv64; do
	f0=$failed
	out "### BEGIN crossbuild-$a"
	key="$a ${hash[n_mailed]}"
	if grep -qx "$key" "$ok_cache"; then
		result ok "$a: series builds (cached)"
	else
		log=$cross/$a.log
		: >"$log"
		rc=0
		configure $a >>"$log" 2>&1 || rc=1
		[ $rc = 0 ] && { kmake $a "$log" kernel/sched/ ${kvmdir[$a]} ${systbl[$a]} || rc=1; }
		[ $rc = 0 ] && { no_libgcc_div $a kernel/sched ${kvmdir[$a]} virt || rc=1; }
		[ $rc = 0 ] && { selftests $a "$log" || rc=1; }
		if [ $rc = 0 ]; then
			echo "$key" >> "$ok_cache"
			result ok "$a: kernel/sched, ${kvmdir[$a]}, syscall table, sched selftests build"
		else
			result fail "$a: build failed, log $log" "$log"
		fi
		say "$a: rc=$rc ($(($(date +%s) - start)) s)"
	fi
	out "### END crossbuild-$a rc=$((failed > f0 ? 1 : 0))"
done
say "$n results, $([ $failed = 0 ] && echo all ok || echo FAILED) in $(($(date +%s) - start)) s (TAP: $tap)"
exit $failed
