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
