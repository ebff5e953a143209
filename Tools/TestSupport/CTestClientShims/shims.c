/* See include/CTestClientShims.h for why each shim exists. Built with _GNU_SOURCE (Package.swift). */
#include "CTestClientShims.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int testclient_open_pty(char *path, size_t size) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, path, size) != 0) {
        close(master);
        return -1;
    }
    return master;
}

static int inheritable(int fd) {
    int flags = fcntl(fd, F_GETFD);
    return flags < 0 ? -1 : fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
}

int testclient_fork_and_exec_parent(int fd, int keep, const char *path, char *const argv[]) {
    if (keep && inheritable(fd) != 0) return -1;
    pid_t child = fork();
    if (child < 0) return -1;
    if (child == 0) return 0;
    execv(path, argv);
    return -1;
}

int testclient_spawn_holding(int fd, const char *path, char *const argv[]) {
    if (inheritable(fd) != 0) return -1;
    pid_t child = fork();
    if (child == 0) {
        execv(path, argv);
        _exit(127);
    }
    return child;
}
