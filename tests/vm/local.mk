# Real-kernel tests in VMs: `make check-vm` (tests/vm/README.md).
#
# Boot 1 (cgroup v2, busybox init, zram swap) runs tests/vm/sanity.sh, every check program
# named tests/test-cgroup-*-live (found in check_PROGRAMS), and EBB_VM_TESTS.
# Boot 2 (Debian root image with systemd as PID 1) runs EBB_VM_SYSTEMD_TESTS.
# To add a VM test: append it to check_PROGRAMS in your fragment and to EBB_VM_TESTS (or name
# it tests/test-cgroup-<x>-live); helpers it executes go to EBB_VM_FILES.
EBB_VM_TESTS = tests/agent-vm/test-agent-basic.sh tests/agent-vm/test-agent-adopt.sh
EBB_VM_SYSTEMD_TESTS = tests/test-cgroup-systemd-live
EBB_VM_FILES = ebb-agent ebb-controller tests/agent-vm/lib.sh tests/agent-vm/curl tests/agent-vm/jq

# Boot 3 runs scripts/demo.sh --quick with these (tests/vm/demo.sh).
EBB_VM_DEMO_BINS = ebb-controller ebb-agent ebbctl sim/ebb-sim

EXTRA_DIST += tests/vm/README.md tests/vm/lib.sh tests/vm/run.sh tests/vm/run-systemd.sh \
	tests/vm/mkroot.sh tests/vm/check-vm.sh tests/vm/sanity.sh tests/vm/demo.sh tests/vm/cluster.sh

check-vm:
	@live=; for p in $(check_PROGRAMS); do \
	  case $$p in tests/test-cgroup-systemd*) ;; tests/test-cgroup-*-live*) live="$$live $$p" ;; esac; \
	done; \
	$(MAKE) $(AM_MAKEFLAGS) $$live $(EBB_VM_TESTS) $(EBB_VM_SYSTEMD_TESTS) $(EBB_VM_FILES) \
	  $(EBB_VM_DEMO_BINS) && \
	$(SHELL) $(srcdir)/tests/vm/check-vm.sh -b . -T "$$live $(EBB_VM_TESTS)" \
	  -S "$(EBB_VM_SYSTEMD_TESTS)" -F "$(EBB_VM_FILES)"
.PHONY: check-vm
