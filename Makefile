# Build, boot and test the directed-yield series on linux-source-6.12.
#   make check          build the fast kernel + tests, boot, print "N passed, N failed"
#   make check DEBUG=1  the same with KASAN, lockdep and DEBUG_ATOMIC_SLEEP
#   make bench          the benchmark report (build/report.md; REPORT_FROM=log re-reads a run)
#   make soak           the PLE workload 50 times in one boot: exact counts, no SHUTDOWN exit
#   make crossbuild     build what the series touches for x86_64 (each patch), i386, arm64, riscv64
#   make export-patches turn commits in build/linux (branch series) into patches/
#   make shell          boot the fast kernel to an interactive shell
VARIANT := $(if $(filter 1,$(DEBUG)),debug,fast)
BUILD   ?= $(CURDIR)/build
export BUILD

.PHONY: deps tree kernel tests initramfs check crossbuild bench soak export-patches checkpatch shell

deps:
	@scripts/install-deps.sh

tree: deps
	@scripts/prepare-tree.sh

kernel: tree
	@scripts/build-kernel.sh $(VARIANT)

tests: kernel
	@scripts/build-tests.sh

initramfs: tests
	@scripts/mkinitramfs.sh

# make check counts the cross build's results too: a break on another
# architecture fails it like a failed test.
check: initramfs
	@scripts/crossbuild.sh $(BUILD)/crossbuild.tap || true
	@scripts/boot.sh $(VARIANT) tests $(BUILD)/console-$(VARIANT).log $(if $(filter debug,$(VARIANT)),3000,1500)
	@QEMU_TCG_THREAD=single scripts/boot.sh $(VARIANT) sleep $(BUILD)/console-$(VARIANT)-sleep.log $(if $(filter debug,$(VARIANT)),3000,1500)
	@scripts/collect-results.sh $(BUILD)/crossbuild.tap $(BUILD)/console-$(VARIANT).log $(BUILD)/console-$(VARIANT)-sleep.log

crossbuild: tree
	@scripts/crossbuild.sh $(BUILD)/crossbuild.tap

bench: initramfs
	@scripts/bench.sh

soak: initramfs
	@scripts/boot.sh $(VARIANT) soak $(BUILD)/console-soak-$(VARIANT).log 3600
	@scripts/collect-results.sh $(BUILD)/console-soak-$(VARIANT).log

export-patches:
	@scripts/export-patches.sh

checkpatch: tree
	@scripts/checkpatch-series.sh

shell: initramfs
	@scripts/boot.sh $(VARIANT) shell /dev/null 100000
