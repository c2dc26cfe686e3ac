/* Secrets on disk: the bearer token of ebb-agent, ebb-controller and ebbctl, and the TLS
 * private keys of both daemons. One reader with one rule for every program, so that no
 * program accepts what another refuses:
 *  - a regular file (no symlink followed, no FIFO or device), opened close-on-exec;
 *  - no permission bit for the group or for others (chmod 600): a secret that another
 *    account can read, or replace, is no secret;
 *  - a token is the first line, printable ASCII without blanks (it goes into an HTTP
 *    header), of EBB_SECRET_TOKEN_MIN_CHARS to EBB_SECRET_TOKEN_MAX_BYTES characters;
 *  - every error names the file and says what to do. */
#ifndef EBB_SECRET_H
#define EBB_SECRET_H

#include <stddef.h>

#include "lib/error.h"

#define EBB_SECRET_TOKEN_MIN_CHARS 16
#define EBB_SECRET_TOKEN_MAX_BYTES 4096
#define EBB_SECRET_FILE_MAX_BYTES  (1024 * 1024)

/* Reads the token in path into *out (a new string). Returns 0, or negative with *err set:
 * the open's errno, EACCES (group or world permission), EINVAL (not a regular file),
 * EBB_EPARSE (empty, blanks or control characters), EBB_ERANGE (too short or too long). */
int ebb_secret_read_token (const char *path, char **out, ebb_error **err);

/* Reads a whole secret file (a PEM private key; what names it in errors, "TLS key") into
 * *out, NUL-terminated, at most EBB_SECRET_FILE_MAX_BYTES. Same file rules as the token;
 * EBB_EPARSE when empty. The caller wipes the text (explicit_bzero) before freeing it. */
int ebb_secret_read_file (const char *path, const char *what, char **out, ebb_error **err);

#endif
