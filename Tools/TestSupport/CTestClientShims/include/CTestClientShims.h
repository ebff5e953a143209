/*
 * CTestClientShims: what pickerd-test-client needs to play an app that opens a pty of its own (the
 * terminal guard's tests, invariant 13) and Swift's Glibc import does not declare:
 *  - posix_openpt, grantpt, unlockpt and ptsname_r are XSI/GNU functions, declared only under
 *    _XOPEN_SOURCE/_GNU_SOURCE, which Swift's Glibc module is not built with. (A child in a new
 *    session is spawned with CPickerdShims' pickerd_spawn.)
 *  - fork(2) followed at once by execv(2) in one process, for the identity tests' attackers (a program
 *    that connects, forks, and has one side run a registered app): Swift's Glibc does not offer fork,
 *    and a multi-threaded Swift process must do nothing between the two but syscalls.
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

/* Makes fd inheritable (clears FD_CLOEXEC) when keep is non-zero, then forks. In the child, returns
 * 0 at once (the child goes on with this program). In the parent, execv(path, argv) at once: the
 * process that connected becomes the program at path; returns only if execv fails (-1, errno). */
int testclient_fork_and_exec_parent(int fd, int keep, const char *path, char *const argv[]);

/* Makes fd inheritable, then fork and execv(path, argv) in the child: another program holding fd.
 * Returns the child's pid, or -1 with errno. */
int testclient_spawn_holding(int fd, const char *path, char *const argv[]);

#endif
