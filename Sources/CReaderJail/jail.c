// See reader_jail.h. Landlock's constants are written out here (not taken from <linux/landlock.h>)
// so a build on older kernel headers still asks a newer kernel for everything it can do.
#include "reader_jail.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static void set_error(char *error, size_t size, const char *format, ...) {
    if (!error || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(error, size, format, args);
    va_end(args);
}

// MARK: Landlock

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_restrict_self 446
#endif

struct pj_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

// Every file-system right of ABI 1 (bits 0–12), then REFER (2), TRUNCATE (3), IOCTL_DEV (5).
static uint64_t fs_rights(int abi) {
    uint64_t rights = (1ULL << 13) - 1;
    if (abi >= 2) rights |= 1ULL << 13;
    if (abi >= 3) rights |= 1ULL << 14;
    if (abi >= 5) rights |= 1ULL << 15;
    return rights;
}

static int landlock(int *abi_out, char *error, size_t error_size) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */);
    if (abi < 0) {
        // Not built into this kernel, turned off at boot, or refused by a system-call filter around
        // pickerd (a unit file from before the readers): the seccomp filter alone keeps files shut.
        if (errno == ENOSYS || errno == EOPNOTSUPP || errno == EPERM) { *abi_out = 0; return 0; }
        int e = errno;
        set_error(error, error_size, "landlock: cannot ask the kernel's version: %s", strerror(e));
        return e;
    }
    struct pj_landlock_ruleset_attr attr = { .handled_access_fs = fs_rights((int)abi) };
    size_t size = sizeof(uint64_t);
    if (abi >= 4) { attr.handled_access_net = 3; size = 2 * sizeof(uint64_t); }  // BIND_TCP | CONNECT_TCP
    if (abi >= 6) { attr.scoped = 3; size = 3 * sizeof(uint64_t); }            // abstract sockets, signals
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) {
        int e = errno;
        set_error(error, error_size, "landlock: cannot make a ruleset: %s", strerror(e));
        return e;
    }
    // No rule is added: nothing beneath any directory may be opened, made, removed or renamed.
    long done = syscall(__NR_landlock_restrict_self, ruleset, 0);
    int e = errno;
    close(ruleset);
    if (done != 0) {
        set_error(error, error_size, "landlock: cannot restrict the process: %s", strerror(e));
        return e;
    }
    *abi_out = (int)abi;
    return 0;
}

// MARK: seccomp

// What reading a file from a descriptor, decoding it, and answering on the socket take: memory,
// threads (the Swift runtime's and the decoders'), time, signals of its own, descriptors it was
// given or made in memory (a zip's members, memfd_create). Nothing that names a path, makes a
// socket, or starts a program.
static const char *const allowed[] = {
    "read", "readv", "pread64", "preadv", "preadv2", "write", "writev", "pwrite64", "lseek", "close",
    "fstat", "fcntl", "dup", "dup2", "dup3", "ftruncate", "fadvise64",
    "memfd_create", "mmap", "munmap", "mremap", "mprotect", "madvise", "brk", "mlock", "munlock",
    "futex", "futex_waitv", "set_robust_list", "get_robust_list", "rseq", "set_tid_address",
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigtimedwait", "sigaltstack",
    "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "tgkill",
    "exit", "exit_group", "restart_syscall",
    "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep",
    "sched_yield", "sched_getaffinity", "sched_getparam", "sched_getscheduler", "getrandom",
    "getrlimit", "prlimit64", "getrusage", "sysinfo", "uname",
    "recvmsg", "sendmsg", "recvfrom", "sendto", "poll", "ppoll", "select", "pselect6",
    "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd2",
    "timerfd_create", "timerfd_settime", "timerfd_gettime", "pipe2",
};

static int seccomp_filter(char *error, size_t error_size) {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (!ctx) {
        set_error(error, error_size, "seccomp: cannot make a filter");
        return ENOMEM;
    }
    int rc = 0;
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed && rc == 0; i++) {
        int number = seccomp_syscall_resolve_name(allowed[i]);
        if (number == __NR_SCMP_ERROR) continue;  // not a system call of this architecture
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, number, 0);
        if (rc != 0) set_error(error, error_size, "seccomp: cannot allow %s: %s", allowed[i], strerror(-rc));
    }
    // Threads, never processes: clone only with CLONE_THREAD; clone3 (whose flags a filter cannot
    // read) answers ENOSYS, so the C library falls back to clone.
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    // A descriptor's own metadata (fstat is fstatat(fd, "", AT_EMPTY_PATH) in the C library); a
    // path's is "not there", as are access checks and links: nothing is learnt of the file system.
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(newfstatat), 1, SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH));
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(newfstatat), 1, SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, 0));
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(statx), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH));
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(statx), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, 0));
    static const char *const absent[] = { "stat", "lstat", "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getcwd" };
    for (size_t i = 0; i < sizeof absent / sizeof *absent && rc == 0; i++) {
        int number = seccomp_syscall_resolve_name(absent[i]);
        if (number != __NR_SCMP_ERROR) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOENT), number, 0);
    }
    // A socket may not be made (libdispatch's worker threads log to syslog with one, and go on
    // without it); connecting one, as any other way out, kills the reader.
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 0);
    // libdispatch sets its worker threads' priority (a refusal makes it log, through a socket);
    // without CAP_SYS_NICE a process can only lower its own.
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(setpriority), 0);
    // A thread naming itself; nothing else prctl can do.
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME));
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_GET_NAME));
    if (rc != 0 && error && error[0] == 0) set_error(error, error_size, "seccomp: cannot add a rule: %s", strerror(-rc));
    // Every thread at once, so no thread started before (the runtime's) is left outside.
    if (rc == 0) rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    if (rc == 0) {
        rc = seccomp_load(ctx);
        if (rc != 0) set_error(error, error_size, "seccomp: cannot load the filter: %s", strerror(-rc));
    }
    seccomp_release(ctx);
    return rc < 0 ? -rc : rc;
}

// MARK: All of it

static int limit(int resource, rlim_t value, const char *what, char *error, size_t error_size) {
    struct rlimit current;
    if (getrlimit(resource, &current) != 0) current.rlim_max = RLIM_INFINITY;
    if (current.rlim_max != RLIM_INFINITY && current.rlim_max < value) value = current.rlim_max;
    struct rlimit wanted = { value, value };
    if (setrlimit(resource, &wanted) != 0) {
        int e = errno;
        set_error(error, error_size, "cannot limit %s: %s", what, strerror(e));
        return e;
    }
    return 0;
}

int pj_confine(uint64_t max_data_bytes, pj_report *report, char *error, size_t error_size) {
    if (error && error_size) error[0] = 0;
    pj_report done = { 0, 0 };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        int e = errno;
        set_error(error, error_size, "cannot set no_new_privs: %s", strerror(e));
        return e;
    }
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
        int e = errno;
        set_error(error, error_size, "cannot ask to die with pickerd: %s", strerror(e));
        return e;
    }
    // pickerd already gone before the line above: the signal would never come.
    if (getppid() == 1) {
        set_error(error, error_size, "pickerd is gone");
        return ESRCH;
    }
    int e = limit(RLIMIT_CORE, 0, "core files", error, error_size);
    if (e == 0) e = limit(RLIMIT_DATA, (rlim_t)max_data_bytes, "its memory", error, error_size);
    if (e == 0) e = limit(RLIMIT_NOFILE, 64, "its descriptors", error, error_size);
    if (e != 0) return e;
    e = landlock(&done.landlock_abi, error, error_size);
    if (e != 0) return e;
    e = seccomp_filter(error, error_size);
    if (e != 0) return e;
    done.seccomp = 1;
    if (report) *report = done;
    return 0;
}
