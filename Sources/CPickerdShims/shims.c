/* See include/CPickerdShims.h for why each shim exists. Built with _GNU_SOURCE (Package.swift). */
#include "CPickerdShims.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <linux/kcmp.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

_Static_assert(sizeof(pickerd_ucred) == sizeof(struct ucred), "pickerd_ucred must mirror struct ucred");
_Static_assert(offsetof(pickerd_ucred, uid) == offsetof(struct ucred, uid), "ucred.uid offset");
_Static_assert(offsetof(pickerd_ucred, gid) == offsetof(struct ucred, gid), "ucred.gid offset");

int pickerd_peer_credentials(int fd, pickerd_ucred *out) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    if (len != sizeof(cred)) { errno = EPROTO; return -1; }
    out->pid = cred.pid;
    out->uid = cred.uid;
    out->gid = cred.gid;
    return 0;
}

int pickerd_peer_pidfd(int fd) {
    int pidfd = -1;
    socklen_t len = sizeof(pidfd);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0) return -1;
    return pidfd;
}

int pickerd_pidfd_open(int32_t pid) {
    return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
}

int pickerd_pidfd_alive(int pidfd) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0);
}

int pickerd_accept_cloexec(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC); }

size_t pickerd_cmsg_space(size_t data_length) { return CMSG_SPACE(data_length); }
size_t pickerd_cmsg_len(size_t data_length) { return CMSG_LEN(data_length); }
struct cmsghdr *pickerd_cmsg_firsthdr(struct msghdr *msg) { return CMSG_FIRSTHDR(msg); }
struct cmsghdr *pickerd_cmsg_nxthdr(struct msghdr *msg, struct cmsghdr *cmsg) { return CMSG_NXTHDR(msg, cmsg); }
unsigned char *pickerd_cmsg_data(struct cmsghdr *cmsg) { return CMSG_DATA(cmsg); }

const int pickerd_scm_rights = SCM_RIGHTS;
const int pickerd_msg_cmsg_cloexec = MSG_CMSG_CLOEXEC;
const int pickerd_msg_ctrunc = MSG_CTRUNC;
const int pickerd_msg_nosignal = MSG_NOSIGNAL;

int pickerd_memfd_create(const char *name) {
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int pickerd_memfd_seal_all(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
}

int pickerd_memfd_get_seals(int fd) { return fcntl(fd, F_GET_SEALS); }

const int pickerd_seal_write = F_SEAL_WRITE;
const int pickerd_seal_grow = F_SEAL_GROW;
const int pickerd_seal_shrink = F_SEAL_SHRINK;
const int pickerd_seal_seal = F_SEAL_SEAL;

/* Attributes for a child with every signal at its default action and none blocked, plus `flags`. */
static int spawn_attributes(posix_spawnattr_t *attributes, short flags) {
    int error = posix_spawnattr_init(attributes);
    if (error != 0) return error;
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    error = posix_spawnattr_setsigdefault(attributes, &all);
    if (error == 0) error = posix_spawnattr_setsigmask(attributes, &none);
    if (error == 0) error = posix_spawnattr_setflags(attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | flags);
    if (error != 0) posix_spawnattr_destroy(attributes);
    return error;
}

int pickerd_spawn(const char *file, char *const argv[], char *const envp[], int *pid) {
    posix_spawnattr_t attributes;
    int error = spawn_attributes(&attributes, POSIX_SPAWN_SETSID);
    if (error != 0) return error;
    pid_t child = 0;
    if (error == 0) error = posix_spawnp(&child, file, NULL, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    if (error == 0) *pid = (int)child;
    return error;
}

int pickerd_spawn_with_channel(const char *path, char *const argv[], char *const envp[], int channel, int *pid) {
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_t actions;
    int error = spawn_attributes(&attributes, 0);
    if (error != 0) return error;
    error = posix_spawn_file_actions_init(&actions);
    if (error != 0) {
        posix_spawnattr_destroy(&attributes);
        return error;
    }
    // dup2 onto 3 clears close-on-exec on the copy, but dup2 of 3 onto itself would not: a channel
    // already at 3 is copied elsewhere first.
    int moved = -1;
    if (channel == 3) {
        moved = fcntl(channel, F_DUPFD_CLOEXEC, 10);
        if (moved < 0) error = errno;
        channel = moved;
    }
    if (error == 0) error = posix_spawn_file_actions_adddup2(&actions, channel, 3);
    if (error == 0) error = posix_spawn_file_actions_addclosefrom_np(&actions, 4);
    pid_t child = 0;
    if (error == 0) error = posix_spawn(&child, path, &actions, &attributes, argv, envp);
    if (moved >= 0) close(moved);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error == 0) *pid = (int)child;
    return error;
}

int pickerd_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int pickerd_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = { .events = events, .data = { .u64 = token } };
    return epoll_ctl(epfd, op, fd, &event);
}

int pickerd_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event ready[256];
    if (max > 256) max = 256;
    int count = epoll_wait(epfd, ready, max, timeout_ms);
    for (int i = 0; i < count; i++) {
        tokens[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return count;
}

const int pickerd_epoll_ctl_add = EPOLL_CTL_ADD;
const int pickerd_epoll_ctl_mod = EPOLL_CTL_MOD;
const int pickerd_epoll_ctl_del = EPOLL_CTL_DEL;
const uint32_t pickerd_epollin = EPOLLIN;
const uint32_t pickerd_epollout = EPOLLOUT;
const uint32_t pickerd_epollrdhup = EPOLLRDHUP;
const uint32_t pickerd_epollhup = EPOLLHUP;
const uint32_t pickerd_epollerr = EPOLLERR;
const uint32_t pickerd_epolloneshot = EPOLLONESHOT;

int pickerd_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int pickerd_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int pickerd_tty_device(int fd, uint32_t *device) {
    unsigned int number = 0;
    if (ioctl(fd, TIOCGDEV, &number) != 0) return -1;
    *device = number;
    return 0;
}

uint32_t pickerd_dev_major(uint64_t device) { return major((dev_t)device); }
uint32_t pickerd_dev_minor(uint64_t device) { return minor((dev_t)device); }

int pickerd_path_is_devpts(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return -1;
    return info.f_type == DEVPTS_SUPER_MAGIC;
}

int pickerd_fd_is_devpts(int fd) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -1;
    return info.f_type == DEVPTS_SUPER_MAGIC;
}

int pickerd_same_descriptor_table(int32_t pid1, int32_t pid2) {
    long result = syscall(SYS_kcmp, (pid_t)pid1, (pid_t)pid2, KCMP_FILES, 0UL, 0UL);
    if (result < 0) return -1;
    return result == 0;
}

int pickerd_unix_peer_inode(int fd, uint64_t *peer) {
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0) return -1;
    struct {
        struct nlmsghdr header;
        struct unix_diag_req request;
    } query = {
        .header = { .nlmsg_len = sizeof(query), .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1 },
        .request = { .sdiag_family = AF_UNIX, .udiag_states = (uint32_t)-1, .udiag_ino = (uint32_t)st.st_ino,
                     .udiag_show = UDIAG_SHOW_PEER, .udiag_cookie = { (uint32_t)-1, (uint32_t)-1 } },
    };
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    if (sendto(nl, &query, sizeof(query), 0, (struct sockaddr *)&kernel, sizeof(kernel)) != (ssize_t)sizeof(query)) {
        int saved = errno; close(nl); errno = saved; return -1;
    }
    /* One answer: a unix_diag_msg with its attributes, or an NLMSG_ERROR. */
    long buffer[1024];
    ssize_t length;
    do { length = recv(nl, buffer, sizeof(buffer), 0); } while (length < 0 && errno == EINTR);
    int saved = errno;
    close(nl);
    if (length < 0) { errno = saved; return -1; }
    for (struct nlmsghdr *h = (struct nlmsghdr *)buffer; NLMSG_OK(h, (size_t)length); h = NLMSG_NEXT(h, length)) {
        if (h->nlmsg_type == NLMSG_ERROR) {
            struct nlmsgerr *error = NLMSG_DATA(h);
            errno = error->error ? -error->error : ENOENT;
            return -1;
        }
        if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY) continue;
        struct unix_diag_msg *message = NLMSG_DATA(h);
        if (message->udiag_ino != (uint32_t)st.st_ino) continue;
        int rest = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*message)));
        for (struct rtattr *a = (struct rtattr *)(message + 1); RTA_OK(a, rest); a = RTA_NEXT(a, rest)) {
            if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t)) {
                *peer = *(uint32_t *)RTA_DATA(a);
                return 0;
            }
        }
    }
    errno = ENOENT;
    return -1;
}

int pickerd_limit_malloc_arenas(int arenas) {
    if (getenv("MALLOC_ARENA_MAX") != NULL) return 0;
    return mallopt(M_ARENA_MAX, arenas) == 1 ? 1 : -1;
}
