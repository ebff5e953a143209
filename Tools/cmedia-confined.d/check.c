// Tools/cmedia-confined: CMedia's readers under a filter that kills the process at any open,
// socket, connect or exec (as pickerd-reader's does), after pm_quiet_libraries(): each file given
// is opened first, then probed (libheif or FFmpeg, by its first bytes) and decoded small through
// its descriptor. A line per file, then the counts; a library that opened anything lazily would be
// killed (SIGSYS). A file the libraries refuse (broken, unsupported) is counted, not a failure.
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "media.h"

static int confine(void) {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) return -1;
    int denied[] = {SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(creat), SCMP_SYS(socket),
                    SCMP_SYS(connect), SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(mkdir), SCMP_SYS(unlink),
                    SCMP_SYS(rename), SCMP_SYS(truncate)};
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
        if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, denied[i], 0) != 0) { seccomp_release(ctx); return -1; }
    }
    int code = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? seccomp_load(ctx) : -1;
    seccomp_release(ctx);
    return code;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
        // The filter itself: an open after it must kill the process (SIGSYS).
        pm_quiet_libraries();
        if (confine() != 0) return 2;
        return open("/dev/null", O_RDONLY) >= 0 ? 3 : 4;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    int fds[1000];
    int count = argc - 1 < 1000 ? argc - 1 : 1000;
    for (int i = 0; i < count; i++) {
        fds[i] = open(argv[i + 1], O_RDONLY | O_CLOEXEC);
        if (fds[i] < 0) { perror(argv[i + 1]); return 2; }
    }
    pm_quiet_libraries();
    if (confine() != 0) { fprintf(stderr, "cmedia-confined: cannot install the filter\n"); return 2; }
    int read = 0, refused = 0;
    for (int i = 0; i < count; i++) {
        char error[256] = {0};
        uint8_t head[12] = {0};
        pread(fds[i], head, sizeof head, 0);
        int heif = memcmp(head + 4, "ftyp", 4) == 0 && (memcmp(head + 8, "heic", 4) == 0 || memcmp(head + 8, "mif1", 4) == 0 ||
                                                       memcmp(head + 8, "avif", 4) == 0);
        int webp = memcmp(head, "RIFF", 4) == 0 && memcmp(head + 8, "WEBP", 4) == 0;
        int jxl = (head[0] == 0xFF && head[1] == 0x0A) || memcmp(head + 4, "JXL ", 4) == 0;
        const char *library = heif ? "libheif" : webp ? "libwebp" : jxl ? "libjxl" : "FFmpeg";
        pm_rgb rgb;
        pm_status probe, decode;
        unsigned width = 0, height = 0;
        if (webp) {
            // As pickerd-reader does: the file read whole through its descriptor, decoded from memory.
            off_t size = lseek(fds[i], 0, SEEK_END);
            uint8_t *bytes = size > 0 && size < (64 << 20) ? malloc((size_t)size) : NULL;
            probe = bytes && pread(fds[i], bytes, (size_t)size, 0) == size ? PM_OK : PM_UNREADABLE;
            decode = probe == PM_OK ? pm_decode_webp(bytes, (size_t)size, 64, &rgb, error, sizeof error) : PM_UNREADABLE;
            if (decode != PM_UNREADABLE) width = (unsigned)rgb.width, height = (unsigned)rgb.height;
            free(bytes);
        } else if (jxl) {
            pm_jxl_info info;
            probe = pm_jxl_probe_fd(fds[i], &info, error, sizeof error);
            width = info.width, height = info.height;
            decode = pm_decode_jxl_fd(fds[i], 64, &rgb, error, sizeof error);
        } else if (heif) {
            pm_heif_info info;
            probe = pm_heif_probe_fd(fds[i], &info, error, sizeof error);
            width = info.width, height = info.height;
            decode = pm_decode_heif_fd(fds[i], 64, &rgb, error, sizeof error);
        } else {
            pm_video_info info;
            probe = pm_video_probe_fd(fds[i], &info, error, sizeof error);
            width = info.width, height = info.height;
            decode = pm_decode_av_fd(fds[i], NULL, 64, &rgb, error, sizeof error);
        }
        printf("%s: %s probe %d (%ux%u), decode %d (%dx%d)%s%s\n", argv[i + 1], library, probe, width, height,
               decode, rgb.width, rgb.height, error[0] ? ": " : "", error);
        if (probe == PM_OK && decode == PM_OK) read++; else refused++;
        pm_rgb_free(&rgb);
    }
    printf("%d decoded, %d refused by the libraries (broken or unsupported), none killed\n", read, refused);
    return 0;
}
