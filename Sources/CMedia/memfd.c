// CMedia: files made in memory for the readers (see include/media_memfd.h). Here because
// memfd_create and the F_SEAL_* flags need _GNU_SOURCE, which Swift's Glibc import lacks.
#include "media_memfd.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

int pm_memfd_from_bytes(const char *name, const uint8_t *bytes, size_t count) {
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < count) {
        ssize_t n = write(fd, bytes + done, count - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int saved = n < 0 ? errno : EIO;
            close(fd);
            errno = saved;
            return -1;
        }
        done += (size_t)n;
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}
