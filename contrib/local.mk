# Installed files besides programs and man pages: systemd units and their helper, example
# configurations, bash completions; all with the paths configure chose (--prefix, --sbindir,
# --sysconfdir, --localstatedir, --libexecdir), substituted here at make time so they are
# fully expanded.
EBB_SUBST = sed -e 's|@sbindir[@]|$(sbindir)|g' -e 's|@bindir[@]|$(bindir)|g' \
	-e 's|@libexecdir[@]|$(libexecdir)|g' -e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	-e 's|@localstatedir[@]|$(localstatedir)|g' -e 's|@runstatedir[@]|$(runstatedir)|g'

contrib/systemd/ebb-agent.service: $(srcdir)/contrib/systemd/ebb-agent.service.in Makefile
	$(AM_V_GEN)mkdir -p $(@D) && $(EBB_SUBST) $(srcdir)/$@.in > $@.tmp && mv $@.tmp $@
contrib/systemd/ebb-agent-delegated: $(srcdir)/contrib/systemd/ebb-agent-delegated.in Makefile
	$(AM_V_GEN)mkdir -p $(@D) && $(EBB_SUBST) $(srcdir)/$@.in > $@.tmp && chmod +x $@.tmp && mv $@.tmp $@
contrib/ebb/agent.conf.example: $(srcdir)/contrib/ebb/agent.conf.in Makefile
	$(AM_V_GEN)mkdir -p $(@D) && $(EBB_SUBST) $(srcdir)/contrib/ebb/agent.conf.in > $@.tmp && mv $@.tmp $@
contrib/ebb/controller.conf.example: $(srcdir)/contrib/ebb/controller.conf.in Makefile
	$(AM_V_GEN)mkdir -p $(@D) && $(EBB_SUBST) $(srcdir)/contrib/ebb/controller.conf.in > $@.tmp && \
	  mv $@.tmp $@

# ebb-tls: the cluster CA and the daemons' certificates, with the openssl tool (ebb-tls(8)).
contrib/ebb-tls: $(srcdir)/contrib/ebb-tls.in Makefile
	$(AM_V_GEN)mkdir -p $(@D) && $(EBB_SUBST) $(srcdir)/contrib/ebb-tls.in > $@.tmp && chmod +x $@.tmp && mv $@.tmp $@
sbin_SCRIPTS = contrib/ebb-tls
dist_man_MANS += man/ebb-tls.8
CLEANFILES += $(sbin_SCRIPTS)
EXTRA_DIST += contrib/ebb-tls.in
TESTS += tests/test-tls-init.sh
EXTRA_DIST += tests/test-tls-init.sh

systemdsystemunit_DATA = contrib/systemd/ebb-agent.service
ebblibexecdir = $(libexecdir)/ebb
ebblibexec_SCRIPTS = contrib/systemd/ebb-agent-delegated
ebbconfdir = $(sysconfdir)/ebb
ebbconf_DATA = contrib/ebb/agent.conf.example contrib/ebb/controller.conf.example
bashcompletion_DATA = contrib/bash-completion/ebb-agent contrib/bash-completion/ebb-sim \
	contrib/bash-completion/ebb-controller
CLEANFILES += $(systemdsystemunit_DATA) $(ebblibexec_SCRIPTS) $(ebbconf_DATA)
EXTRA_DIST += contrib/systemd/ebb-agent.service.in contrib/systemd/ebb-agent-delegated.in \
	contrib/ebb/agent.conf.in contrib/ebb/controller.conf.in $(bashcompletion_DATA)

# The controller's unit is kept as a plain file (contrib/systemd/ebb-controller.service, with
# Debian's paths); installed with this configure's paths instead, and without an explicit
# --config of the default file, which would make that file mandatory (the controller reads
# $(sysconfdir)/ebb/controller.conf anyway when it exists).
contrib/systemd/ebb-controller.service.gen: $(srcdir)/contrib/systemd/ebb-controller.service Makefile
	$(AM_V_GEN)mkdir -p $(@D) && sed -e 's| --config /etc/ebb/controller.conf||' \
	  -e 's|/usr/sbin/|$(sbindir)/|g' -e 's|/etc/ebb|$(sysconfdir)/ebb|g' \
	  -e 's|/var/lib/ebb|$(localstatedir)/lib/ebb|g' $(srcdir)/contrib/systemd/ebb-controller.service > $@.tmp && \
	  mv $@.tmp $@
all-local: contrib/systemd/ebb-controller.service.gen
CLEANFILES += contrib/systemd/ebb-controller.service.gen

# The daemons' state directory, so a unit with ProtectSystem= can be given it read-write.
install-data-local: contrib/systemd/ebb-controller.service.gen
	$(MKDIR_P) -m 0755 '$(DESTDIR)$(localstatedir)/lib/ebb' '$(DESTDIR)$(systemdsystemunitdir)'
	$(INSTALL_DATA) contrib/systemd/ebb-controller.service.gen \
	  '$(DESTDIR)$(systemdsystemunitdir)/ebb-controller.service'
uninstall-local:
	rm -f '$(DESTDIR)$(systemdsystemunitdir)/ebb-controller.service'

# Tests: every example configuration parses with the program's own table; `make install`
# puts every file where configure said, with those paths inside.
check_PROGRAMS += tests/test-install-configs
TESTS += tests/test-install-configs tests/test-install-tree.sh
tests_test_install_configs_SOURCES = tests/test-install-configs.c
tests_test_install_configs_CFLAGS = $(EBB_TEST_CFLAGS) $(LIBCGROUP_CFLAGS)
tests_test_install_configs_LDADD = $(EBB_AGENT_LIBS) $(CUNIT_LIBS)
EXTRA_DIST += tests/test-install-tree.sh

# The Debian package (dpkg-buildpackage -us -uc -b; tests/test-install-deb.sh).
EXTRA_DIST += debian/changelog debian/control debian/copyright debian/rules debian/source/format
EXTRA_DIST += scripts/build-deb.sh tests/test-install-deb-vm.sh

# make check-vm, boot 2 (systemd VM): the package built from this tree by scripts/build-deb.sh
# (about 20-60 s: a full optimized build) is installed with dpkg and its units started
# (tests/test-install-deb-vm.sh, about 30 s in the VM).
EBB_VM_SYSTEMD_TESTS += tests/deb-vm/test-install-deb-vm.sh
EBB_VM_FILES += tests/deb-vm/ebb.deb tests/deb-vm/curl
tests/deb-vm/test-install-deb-vm.sh: $(srcdir)/tests/test-install-deb-vm.sh
	$(AM_V_GEN)mkdir -p $(@D) && cp $(srcdir)/tests/test-install-deb-vm.sh $@
tests/deb-vm/ebb.deb: ebb-agent $(bin_PROGRAMS) $(srcdir)/debian/control $(srcdir)/debian/rules \
		$(srcdir)/contrib/local.mk $(srcdir)/contrib/systemd/ebb-agent.service.in
	$(AM_V_GEN)$(SHELL) $(srcdir)/scripts/build-deb.sh $(srcdir) $@ >/dev/null
tests/deb-vm/curl:
	$(AM_V_GEN)mkdir -p $(@D) && p=$$(command -v curl) && ln -sf "$$p" $@
CLEANFILES += tests/deb-vm/test-install-deb-vm.sh tests/deb-vm/ebb.deb tests/deb-vm/curl

# Options in --help, man pages and ebb.conf(5) agree both ways (a few seconds).
TESTS += tests/test-docs-options.sh
EXTRA_DIST += tests/test-docs-options.sh

# Debian's prometheus scrapes a live agent and controller over https on loopback with a bearer
# token, with contrib/prometheus/ebb.yml (about 10 s).
TESTS += tests/test-prometheus-agent.sh tests/test-prometheus-controller.sh
EXTRA_DIST += tests/test-prometheus-agent.sh tests/test-prometheus-controller.sh \
	tests/prometheus/lib.sh contrib/grafana/ebb.json contrib/prometheus/ebb.yml

# A three-machine HA example (doc/ha.md): etcd members, PostgreSQL, the controller's drop-in.
EXTRA_DIST += contrib/ha/README.md contrib/ha/etcd.default contrib/ha/postgresql-ebb.sql \
	contrib/ha/ebb-controller-ha.conf
