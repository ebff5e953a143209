/*
 * CTestClientShims: what pickerd-test-client needs to play an app that opens a pty of its own (the
 * terminal guard's tests, invariant 13) and Swift's Glibc import does not declare:
 *  - posix_openpt, grantpt, unlockpt and ptsname_r are XSI/GNU functions, declared only under
 *    _XOPEN_SOURCE/_GNU_SOURCE, which Swift's Glibc module is not built with. (A child in a new
 *    session is spawned with CPickerdShims' pickerd_spawn.)
 * A test helper only: nothing of pickerd links it. Symbols are prefixed `testclient_`.
 */
#ifndef CTESTCLIENT_SHIMS_H
#define CTESTCLIENT_SHIMS_H

#include <stddef.h>
#include <sys/types.h>

/* A new pty: posix_openpt(O_RDWR | O_NOCTTY), grantpt, unlockpt, and the slave's path (ptsname_r)
 * into path. The master is not close-on-exec, so a child can inherit it. Returns the master's fd, or
 * -1 with errno. */
int testclient_open_pty(char *path, size_t size);

#endif
