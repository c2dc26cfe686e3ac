# HTTP server and client glue: filled in by their module.
