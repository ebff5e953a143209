/* See include/CTestClientShims.h for why each shim exists. Built with _GNU_SOURCE (Package.swift). */
#include "CTestClientShims.h"

#include <fcntl.h>
#include <spawn.h>
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

int testclient_spawn_session(const char *file, char *const argv[], char *const envp[], pid_t *pid) {
    posix_spawnattr_t attributes;
    int error = posix_spawnattr_init(&attributes);
    if (error != 0) return error;
    error = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
    if (error == 0) error = posix_spawn(pid, file, NULL, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    return error;
}
