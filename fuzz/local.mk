# libFuzzer targets (clang -fsanitize=fuzzer,address,undefined). They are built by clang from
# the sources directly (the rest of the tree may be built by gcc, whose sanitizer runtime does
# not mix with libFuzzer), so they are not part of `make` or `make check`:
#   make fuzz                      builds every target and runs each for FUZZ_SECONDS (30)
#   make fuzz-build                only builds them (fuzz/fuzz-*)
#   fuzz/fuzz-conf CORPUS_DIR ...  the usual libFuzzer command line
# Seed corpora are in fuzz/corpus/<target>/ (committed, small); new inputs found by a run go
# to fuzz/corpus-new/<target>/ in the build tree, so the source tree stays clean.
FUZZ_CC = clang
FUZZ_SECONDS = 30
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -I$(top_builddir) -I$(top_srcdir) $(LIBSYSTEMD_CFLAGS) \
	$(LIBCURL_CFLAGS) $(JSONC_CFLAGS) $(LIBMHD_CFLAGS)
FUZZ_LIBS = $(LIBSYSTEMD_LIBS) $(LIBCURL_LIBS) $(JSONC_LIBS) $(LIBMHD_LIBS) -lm
fuzz_lib_src = lib/util.c lib/error.c lib/log.c lib/time.c lib/rng.c lib/conf.c lib/conf-file.c \
	lib/conf-dump.c lib/json.c lib/json-parse.c lib/json-build.c
fuzz_http_src = lib/http-route.c lib/http-listen.c lib/http-response.c lib/http-stream.c lib/http-server.c \
	lib/http-request.c lib/http-conn.c \
	lib/http-client.c lib/http-client-multi.c lib/curl-event.c lib/secret.c

# The controller with its policies, for its request validators: the same .c files as their
# libraries (GNU make's filter; this tree needs GNU make, -Wno-portability in configure.ac).
fuzz_ctl_src = $(filter %.c,$(controller_libebb_controller_a_SOURCES) \
	$(policies_libebb_policy_a_SOURCES)) lib/prom.c lib/prom-process.c lib/etcd.c lib/etcd-election.c \
	lib/etcd-codec.c lib/file.c

FUZZ_TARGETS = fuzz/fuzz-conf fuzz/fuzz-cgroup-parse fuzz/fuzz-runtime-json fuzz/fuzz-sim-trace \
	fuzz/fuzz-http fuzz/fuzz-controller-json
fuzz_srcs_fuzz_conf = fuzz/fuzz-conf.c $(fuzz_lib_src)
fuzz_srcs_fuzz_cgroup_parse = fuzz/fuzz-cgroup-parse.c cgroup/parse.c $(fuzz_lib_src)
fuzz_srcs_fuzz_runtime_json = fuzz/fuzz-runtime-json.c agent/runtime-parse.c $(fuzz_lib_src)
fuzz_srcs_fuzz_sim_trace = fuzz/fuzz-sim-trace.c sim/trace.c sim/dag.c sim/report.c policies/dag.c $(fuzz_lib_src)
fuzz_srcs_fuzz_http = fuzz/fuzz-http.c agent/request.c $(fuzz_http_src) $(fuzz_lib_src)
fuzz_srcs_fuzz_controller_json = fuzz/fuzz-controller-json.c $(fuzz_ctl_src) $(fuzz_http_src) \
	$(fuzz_lib_src)

EXTRA_DIST += fuzz/fuzz-conf.c fuzz/fuzz-cgroup-parse.c fuzz/fuzz-runtime-json.c \
	fuzz/fuzz-sim-trace.c fuzz/fuzz-http.c fuzz/fuzz-controller-json.c fuzz/corpus
CLEANFILES += $(FUZZ_TARGETS)

fuzz/fuzz-conf: $(fuzz_srcs_fuzz_conf:%=$(srcdir)/%) config.h
	@$(MKDIR_P) fuzz
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(fuzz_srcs_fuzz_conf:%=$(srcdir)/%) $(FUZZ_LIBS)
fuzz/fuzz-cgroup-parse: $(fuzz_srcs_fuzz_cgroup_parse:%=$(srcdir)/%) config.h
	@$(MKDIR_P) fuzz
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(fuzz_srcs_fuzz_cgroup_parse:%=$(srcdir)/%) $(FUZZ_LIBS)
fuzz/fuzz-runtime-json: $(fuzz_srcs_fuzz_runtime_json:%=$(srcdir)/%) config.h
	@$(MKDIR_P) fuzz
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(fuzz_srcs_fuzz_runtime_json:%=$(srcdir)/%) $(FUZZ_LIBS)
fuzz/fuzz-sim-trace: $(fuzz_srcs_fuzz_sim_trace:%=$(srcdir)/%) config.h
	@$(MKDIR_P) fuzz
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(fuzz_srcs_fuzz_sim_trace:%=$(srcdir)/%) $(FUZZ_LIBS)
fuzz/fuzz-http: $(fuzz_srcs_fuzz_http:%=$(srcdir)/%) config.h
	@$(MKDIR_P) fuzz
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(fuzz_srcs_fuzz_http:%=$(srcdir)/%) $(FUZZ_LIBS)

fuzz/fuzz-controller-json: $(fuzz_srcs_fuzz_controller_json:%=$(srcdir)/%) config.h
	@$(MKDIR_P) fuzz
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) $(SQLITE3_CFLAGS) $(LIBPQ_CFLAGS) \
	  -DSYSCONFDIR='"$(sysconfdir)"' -DLOCALSTATEDIR='"$(localstatedir)"' -o $@ \
	  $(fuzz_srcs_fuzz_controller_json:%=$(srcdir)/%) $(FUZZ_LIBS) $(SQLITE3_LIBS) $(LIBPQ_LIBS)

fuzz-build: $(FUZZ_TARGETS)

# Each target for FUZZ_SECONDS on its seed corpus plus what earlier runs found; a crash
# fails the step (libFuzzer exits non-zero and leaves crash-* in fuzz/).
fuzz: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	  n=$${t#fuzz/}; mkdir -p fuzz/corpus-new/$$n; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
	  $$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=fuzz/$$n- \
	    fuzz/corpus-new/$$n $(srcdir)/fuzz/corpus/$$n 2>fuzz/$$n.log || \
	    { tail -40 fuzz/$$n.log; exit 1; }; \
	  grep -E '^stat::number_of_executed_units' fuzz/$$n.log | sed "s/^/fuzz: $$n /"; \
	done

clean-local: clean-fuzz
clean-fuzz:
	-rm -rf fuzz/corpus-new fuzz/*.log
.PHONY: fuzz fuzz-build clean-fuzz
