// CReaderJail: how pickerd-reader, the process that reads a person's files for pickerd, shuts itself
// in before it reads anything: no new privileges, resource limits, Landlock with no file-system
// rights, and a deny-by-default seccomp filter (libseccomp, Debian's libseccomp-dev).
#ifndef PICKERD_READER_JAIL_H
#define PICKERD_READER_JAIL_H

#include <stddef.h>
#include <stdint.h>

/// What the jail did, for the reader's first reply and `pickerctl doctor`.
typedef struct pj_report {
    /// Landlock's ABI version the kernel has (0: none, so the file-system rules are seccomp's alone).
    int landlock_abi;
    /// Whether the seccomp filter is loaded (always, when pj_confine returned 0).
    int seccomp;
} pj_report;

/// Confines the calling process, for good, all threads included (seccomp's TSYNC):
///  - `PR_SET_NO_NEW_PRIVS`, and `PR_SET_PDEATHSIG` (SIGKILL: a reader never outlives pickerd);
///  - rlimits: no core files, `max_data_bytes` of data (heap and private mappings), 64 descriptors
///    (new processes are the filter's: clone only with CLONE_THREAD);
///  - Landlock, where the kernel has it: every file-system right handled and none granted, TCP bind and
///    connect handled (ABI 4) and none granted, abstract sockets and signals scoped (ABI 6);
///  - seccomp: only the system calls reading, decoding and answering need; any other (open, openat,
///    connect, execve, fork, ptrace, …) kills the process (`SCMP_ACT_KILL_PROCESS`); `socket` fails (EACCES).
/// Call it after every library is initialised (they may open files while they start) and before
/// the first untrusted byte is read.
/// Returns 0, or an errno with `error` saying which step failed.
int pj_confine(uint64_t max_data_bytes, pj_report *report, char *error, size_t error_size);

#endif
