# cgroup v2 tests in a VM: make check-vm
check-vm:
	@echo "check-vm: no VM tests yet"; exit 1
.PHONY: check-vm
