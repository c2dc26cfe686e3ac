# ebbctl: the operator CLI over the REST APIs (libcurl and json-c only).
