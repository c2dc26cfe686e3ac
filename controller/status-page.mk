# The controller's status page (owned with ebbctl): controller/status-page.html becomes a C
# string at build time (each line escaped by awk: "&&" doubles a backslash in every awk, where
# "\\\\" gives one in mawk and gawk). ebb-controller's route table maps GET / to
# ebb_ctl_status_page, declared weak there, so the file is compiled into the program itself (a
# weak reference would not pull it out of an archive); the library is for the tests.
noinst_LIBRARIES += controller/libebb-status-page.a
controller_libebb_status_page_a_SOURCES = controller/status-page.h controller/status-page.c
nodist_controller_libebb_status_page_a_SOURCES = controller/status-page-html.h
controller_libebb_status_page_a_CFLAGS = $(AM_CFLAGS) $(LIBSYSTEMD_CFLAGS) $(LIBMHD_CFLAGS) \
	$(JSONC_CFLAGS)
controller/libebb_status_page_a-status-page.$(OBJEXT): controller/status-page-html.h
ebb_controller_SOURCES += controller/status-page.h controller/status-page.c
nodist_ebb_controller_SOURCES = controller/status-page-html.h
controller/ebb_controller-status-page.$(OBJEXT): controller/status-page-html.h
CLEANFILES += controller/status-page-html.h
EXTRA_DIST += controller/status-page.html

controller/status-page-html.h: $(srcdir)/controller/status-page.html
	$(AM_V_GEN)mkdir -p controller && \
	{ echo '/* Generated from controller/status-page.html; do not edit. */'; \
	  echo 'static const char status_page_html[] ='; \
	  $(AWK) '{ gsub(/\\/, "&&"); gsub(/"/, "\\\""); print "  \"" $$0 "\\n\"" }' $<; \
	  echo ';'; } >$@.tmp && mv $@.tmp $@

# Its test: the real page in headless Chromium against a stand-in of the JSON API.
check_PROGRAMS += tests/status-page/fake-api
tests_status_page_fake_api_SOURCES = tests/status-page/fake-api.c
tests_status_page_fake_api_CFLAGS = $(EBB_TEST_CFLAGS)
tests_status_page_fake_api_LDADD = controller/libebb-status-page.a $(EBB_COMMON_LIBS)
TESTS += tests/test-status-page-chromium.sh
EXTRA_DIST += tests/test-status-page-chromium.sh tests/status-page/lib.sh \
	tests/status-page/data/GET_cluster.json tests/status-page/data/GET_nodes.json \
	tests/status-page/data/GET_jobs.json tests/status-page/data/GET_decisions.json \
	tests/status-page/data/GET_jobs_state_active.json tests/status-page/data/GET_jobs_after_1.json \
	tests/status-page/data/GET_jobs_order_desc.json
# Its views (#job/ID, #node/NAME) and its bars, found by colour in screenshots; its links and
# the back button in a browser driven over the DevTools protocol.
TESTS += tests/test-status-page-views.sh
EXTRA_DIST += tests/test-status-page-views.sh tests/status-page/png-bars.py tests/status-page/cdp.py \
	tests/status-page/views/GET_cluster.json tests/status-page/views/GET_nodes.json \
	tests/status-page/views/GET_decisions.json tests/status-page/views/GET_jobs_state_active.json \
	tests/status-page/views/GET_jobs_order_desc.json tests/status-page/views/GET_jobs_1.json \
	tests/status-page/views/GET_jobs_2.json tests/status-page/views/GET_jobs_3.json \
	tests/status-page/views/GET_jobs_4.json tests/status-page/views/GET_jobs_5.json \
	tests/status-page/views/GET_jobs_6.json tests/status-page/views/GET_jobs_1_tasks_0_logs.json
# The page against a live controller and agent (root): Chromium through a socat bridge to the
# controller's unix socket.
TESTS += tests/test-status-page-live.sh
EXTRA_DIST += tests/test-status-page-live.sh
