/* Durable small files: the one atomic writer every daemon uses for its state files (the
 * agent's journal, epoch and listen files; the controller's epoch file). */
#ifndef EBB_FILE_H
#define EBB_FILE_H

#include "lib/error.h"

/* Writes text to dirfd/name atomically: .name.tmp, fsync, rename over name, fsync the
 * directory. On any failure the temp file is removed and the old name stays intact.
 * With keep_fd, the fsyncs are left to the caller (a group-commit thread): *keep_fd gets the
 * renamed file's descriptor, to fsync (and the directory) and close. Returns 0, or negative
 * with *err. */
int ebb_file_write_atomic_fd (int dirfd, const char *name, const char *text, int *keep_fd,
                              ebb_error **err);

/* As ebb_file_write_atomic_fd() with the fsyncs done before it returns. */
int ebb_file_write_atomic (int dirfd, const char *name, const char *text, ebb_error **err);

/* As ebb_file_write_atomic() at a path (its directory opened for the call). */
int ebb_file_write_atomic_path (const char *path, const char *text, ebb_error **err);

#endif
