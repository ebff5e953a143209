/*
 * CPickerdShims: the few things Swift's Glibc import cannot reach, each in one small function.
 *
 * Why a C target at all:
 *  - `struct ucred` and SO_PEERCRED are declared only under _GNU_SOURCE, which Swift's Glibc module
 *    is not built with. We mirror the struct and check its size against the real one (shims.c).
 *  - SO_PEERPIDFD (Linux 6.5) is newer than many headers; we define it when the header lacks it.
 *  - CMSG_FIRSTHDR, CMSG_NXTHDR, CMSG_DATA, CMSG_SPACE and CMSG_LEN are macros; Swift imports no
 *    function-like macros, so each is wrapped as a function.
 *  - memfd_create, MFD_* and F_ADD_SEALS/F_SEAL_* need _GNU_SOURCE too.
 *  - struct epoll_event is packed on x86-64 (12 bytes, a 64-bit field at offset 4), a layout Swift's
 *    importer does not reproduce; pickerd's event loop passes events as plain arrays instead.
 *  - fcntl(2) is variadic, which Swift cannot call; O_NONBLOCK is set through a shim.
 *  - The terminal guard (invariant 13) needs TIOCGDEV, major()/minor(), DEVPTS_SUPER_MAGIC with
 *    statfs/fstatfs, and kcmp(2): function-like macros, <linux/magic.h>, and a syscall glibc does not
 *    wrap, none of which Swift's Glibc import reaches.
 *  - mallopt(3) and M_ARENA_MAX are in <malloc.h>, which Swift's Glibc module leaves out.
 * Every symbol is prefixed `pickerd_` so nothing collides with the C library.
 */
#ifndef CPICKERD_SHIMS_H
#define CPICKERD_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

/* Mirror of the kernel's struct ucred (pid, uid, gid). */
typedef struct {
    int32_t pid;
    uint32_t uid;
    uint32_t gid;
} pickerd_ucred;

/* getsockopt(fd, SOL_SOCKET, SO_PEERCRED): the peer's pid, uid and gid as the kernel recorded them
 * at connect(). Returns 0, or -1 with errno set. */
int pickerd_peer_credentials(int fd, pickerd_ucred *out);

/* getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD): a pidfd for the peer process (Linux >= 6.5), which stays
 * bound to that process even if its pid is reused. Returns the new fd (O_CLOEXEC), or -1 with errno
 * (ENOPROTOOPT on older kernels). */
int pickerd_peer_pidfd(int fd);

/* pidfd_open(2) for kernels without SO_PEERPIDFD. Returns a pidfd or -1 with errno. */
int pickerd_pidfd_open(int32_t pid);

/* pidfd_send_signal(pidfd, 0): 0 when the process is still alive, -1 with errno (ESRCH) when not. */
int pickerd_pidfd_alive(int pidfd);

/* accept4(fd, NULL, NULL, SOCK_CLOEXEC): accept4 is declared only under _GNU_SOURCE. Returns the new
 * connection's fd or -1 with errno. */
int pickerd_accept_cloexec(int fd);

/* The control-message macros of <sys/socket.h>, as functions. */
size_t pickerd_cmsg_space(size_t data_length);
size_t pickerd_cmsg_len(size_t data_length);
struct cmsghdr *pickerd_cmsg_firsthdr(struct msghdr *msg);
struct cmsghdr *pickerd_cmsg_nxthdr(struct msghdr *msg, struct cmsghdr *cmsg);
unsigned char *pickerd_cmsg_data(struct cmsghdr *cmsg);

/* Constants Swift's Glibc import lacks or may lack. */
extern const int pickerd_scm_rights;
extern const int pickerd_msg_cmsg_cloexec;
extern const int pickerd_msg_ctrunc;
extern const int pickerd_msg_nosignal;

/* memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING): an anonymous file whose contents can be sealed.
 * Returns an fd or -1 with errno. */
int pickerd_memfd_create(const char *name);

/* Seal a memfd against every change: F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL.
 * Returns 0 or -1 with errno. */
int pickerd_memfd_seal_all(int fd);

/* fcntl(fd, F_GET_SEALS): the seals set on a memfd, or -1 with errno. */
int pickerd_memfd_get_seals(int fd);

/* The F_SEAL_* bits, for checking what pickerd_memfd_get_seals returned. */
extern const int pickerd_seal_write;
extern const int pickerd_seal_grow;
extern const int pickerd_seal_shrink;
extern const int pickerd_seal_seal;

/* Start a program the way a desktop would (pickerd launching a picker agent or the app that opens a
 * reminder): posix_spawnp with every signal back at its default action and none blocked (pickerd
 * ignores SIGPIPE and its threads block signals, which children would otherwise inherit), in a new
 * session (pickerd's terminal signals are not the child's). Returns 0 and the pid, or an errno. */
int pickerd_spawn(const char *file, char *const argv[], char *const envp[], int *pid);

/* Start pickerd-reader, the confined process that reads the person's files: like pickerd_spawn, but
 * with `channel` as the child's descriptor 3 and every other descriptor above 2 closed in the child
 * (posix_spawn_file_actions_addclosefrom_np), and in pickerd's own session. Returns 0 and the pid, or an errno. */
int pickerd_spawn_with_channel(const char *path, char *const argv[], char *const envp[], int channel, int *pid);

/* epoll(7), for pickerd's event loop, without struct epoll_event crossing into Swift.
 * pickerd_epoll_create: epoll_create1(EPOLL_CLOEXEC); an fd or -1 with errno.
 * pickerd_epoll_ctl: epoll_ctl(epfd, op, fd, {events, data.u64 = token}); 0 or -1 with errno.
 * pickerd_epoll_wait: epoll_wait into `max` (token, events) pairs; the count, or -1 with errno. */
int pickerd_epoll_create(void);
int pickerd_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);
int pickerd_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms);
extern const int pickerd_epoll_ctl_add;
extern const int pickerd_epoll_ctl_mod;
extern const int pickerd_epoll_ctl_del;
extern const uint32_t pickerd_epollin;
extern const uint32_t pickerd_epollout;
extern const uint32_t pickerd_epollrdhup;
extern const uint32_t pickerd_epollhup;
extern const uint32_t pickerd_epollerr;
extern const uint32_t pickerd_epolloneshot;

/* eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK): how other threads wake the event loop. An fd or -1. */
int pickerd_eventfd(void);

/* fcntl(fd, F_SETFL, flags | O_NONBLOCK). 0 or -1 with errno. */
int pickerd_set_nonblocking(int fd);

/* ioctl(fd, TIOCGDEV): the device number of the terminal behind fd, in the kernel's encoding
 * (new_encode_dev, the encoding of tty_nr in /proc/PID/stat). For a descriptor of /dev/tty this is
 * the real terminal, for a pty master its slave. TIOCGDEV is a function-like macro. Returns 0 and
 * the number, or -1 with errno. */
int pickerd_tty_device(int fd, uint32_t *device);

/* major() and minor() of a dev_t as glibc encodes it in struct stat (macros in <sys/sysmacros.h>). */
uint32_t pickerd_dev_major(uint64_t device);
uint32_t pickerd_dev_minor(uint64_t device);

/* Whether the file at path (followed, as stat(2) does; a /proc/PID/fd/N link reaches the open file
 * without opening it again) lives on a devpts filesystem: statfs(2) against DEVPTS_SUPER_MAGIC from
 * <linux/magic.h>. Returns 1, 0, or -1 with errno. */
int pickerd_path_is_devpts(const char *path);

/* The same for an open descriptor (fstatfs(2)). Returns 1, 0, or -1 with errno. */
int pickerd_fd_is_devpts(int fd);

/* kcmp(pid1, pid2, KCMP_FILES, 0, 0): whether two tasks share one descriptor table (threads
 * usually do; a thread that called unshare(CLONE_FILES) does not). glibc has no wrapper. Returns 1
 * when shared, 0 when not, -1 with errno (ENOSYS without CONFIG_KCMP, EPERM). */
int pickerd_same_descriptor_table(int32_t pid1, int32_t pid2);

/* The inode of the other end of a connected Unix socket, as `ss -x` shows it: a NETLINK_SOCK_DIAG
 * query (sock_diag(7), unix_diag) for this socket's inode with UDIAG_SHOW_PEER. Nothing else tells
 * which descriptors in which processes are the client's end of a connection pickerd accepted.
 * Returns 0 and sets *peer, or -1 with errno (ENOENT when the kernel has no unix_diag, or the peer
 * is gone). */
int pickerd_unix_peer_inode(int fd, uint64_t *peer);

/* mallopt(M_ARENA_MAX, arenas): at most this many malloc arenas, unless $MALLOC_ARENA_MAX says
 * otherwise (the person's word wins). Call before any thread starts. Returns 1 when set, 0 when
 * the environment decided, -1 when glibc refused. */
int pickerd_limit_malloc_arenas(int arenas);

#endif
