# Build, boot and test the directed-yield series on linux-source-6.12.
#   make check          build the fast kernel + tests, boot, print "N passed, N failed"
#   make check DEBUG=1  the same with KASAN, lockdep and DEBUG_ATOMIC_SLEEP
#   make bench          the benchmark report (build/report.md; BOOTS=N boots per row, ROWS= other
#                       rows, REPORT_FROM=log re-reads a run)
#   make soak           the sleep policy 50 times at 8 vCPUs, pv-spinlock nested Linux, 16-vCPU nested boots, in one boot
#   make check-mailed   the same for the mailed series alone (patches/ without patches/bench/),
#                       in build/mailed, booting the entries of tests/tests.list it carries
#   make crossbuild     build what the series touches for x86_64 (each patch), i386, arm64, riscv64
#   make qemu           build QEMU from Debian's source package with qemu/patches (in build/qemu)
#   make export-patches turn commits in build/linux (branch series) into patches/
#   make shell          boot the fast kernel to an interactive shell
VARIANT := $(if $(filter 1,$(DEBUG)),debug,fast)
BUILD   ?= $(CURDIR)/build
export BUILD

.PHONY: deps tree kernel tests initramfs qemu check check-mailed crossbuild bench soak export-patches checkpatch shell

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

# QEMU from Debian's source package with qemu/patches (the SVM pause filter)
qemu: deps
	@scripts/build-qemu.sh

# make check counts the cross build's results and the parser tests too: a
# break on another architecture or in a console parser fails it like a
# failed test; then the emulator's state across a migration and a reset
# (scripts/migrate-test.sh, two more boots of about 30 s).
check: initramfs qemu
	@scripts/crossbuild.sh $(BUILD)/crossbuild.tap || true
	@scripts/test-parsers.sh $(BUILD)/parsers.tap || true
	@scripts/boot.sh $(VARIANT) tests $(BUILD)/console-$(VARIANT).log $(if $(filter debug,$(VARIANT)),3000,1500)
	@for kind in resume reset; do \
		echo "[migrate] scripts/migrate-test.sh $$kind (log: $(BUILD)/migrate-$$kind.log)"; \
		BUILD=$(BUILD) VARIANT=$(VARIANT) scripts/migrate-test.sh $$kind $(BUILD)/migrate-$$kind \
			> $(BUILD)/migrate-$$kind.log 2>&1 || true; \
	done
	@scripts/collect-results.sh $(BUILD)/crossbuild.tap $(BUILD)/parsers.tap $(BUILD)/console-$(VARIANT).log \
		$(BUILD)/migrate-resume/host.tap $(BUILD)/migrate-resume/console.log $(BUILD)/migrate-reset/host.tap

# The mailed series alone, in its own build folder (a first run extracts
# and builds a second tree: about 6 min), with the QEMU of $(BUILD): the
# entries of tests/tests.list that need no measurement patch (spin_policy,
# yld_to_*); KUnit runs at boot.
MAILED_TESTS := kvm_binary_stats_test,svm_pause_filter_test,ple_spin_test,sched_yield_to_test,syt_restore_features,ple_spin_stress
check-mailed: qemu
	@$(MAKE) --no-print-directory initramfs BUILD=$(BUILD)/mailed MAILED=1
	@BUILD=$(BUILD)/mailed QEMU=$(BUILD)/qemu/obj/qemu-system-x86_64 \
		scripts/boot.sh fast tests $(BUILD)/mailed/console-mailed.log 1500 ple.only=$(MAILED_TESTS)
	@scripts/collect-results.sh $(BUILD)/mailed/console-mailed.log

crossbuild: tree
	@scripts/crossbuild.sh $(BUILD)/crossbuild.tap

bench: initramfs qemu
	@scripts/bench.sh

soak: initramfs qemu
	@scripts/boot.sh $(VARIANT) soak $(BUILD)/console-soak-$(VARIANT).log 7200
	@scripts/collect-results.sh $(BUILD)/console-soak-$(VARIANT).log

export-patches:
	@scripts/export-patches.sh

checkpatch: tree
	@scripts/checkpatch-series.sh

shell: initramfs qemu
	@scripts/boot.sh $(VARIANT) shell /dev/null 100000
