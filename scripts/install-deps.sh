#!/bin/bash
# Install what the harness needs from Debian, only when something is missing.
set -euo pipefail
# qemu-system-x86 brings the firmware (seabios, qemu-system-data, ipxe-qemu)
# and names the source version scripts/build-qemu.sh builds; the line after
# the cross compilers is what that build needs.
pkgs="linux-source-6.12 qemu-system-x86 busybox-static build-essential flex bison bc
      libelf-dev libssl-dev cpio xz-utils python3 python3-ply python3-git rsync gnuplot-nox
      gcc-i686-linux-gnu gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu
      libc6-dev-i386-cross libc6-dev-arm64-cross libc6-dev-riscv64-cross
      dpkg-dev ninja-build meson pkg-config libglib2.0-dev libpixman-1-dev zlib1g-dev
      libslirp-dev libfdt-dev
      dbench rt-tests"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=" $p"
done
[ -z "$missing" ] && exit 0
echo "[deps] installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends $missing >/dev/null
