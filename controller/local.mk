# ebb-controller: the cluster daemon (sd-event, libmicrohttpd, libcurl multi, SQLite).
