// CMedia: files made in memory, so a reader unpacking an archive writes no file anywhere.
#ifndef PICKERD_CMEDIA_MEMFD_H
#define PICKERD_CMEDIA_MEMFD_H

#include <stddef.h>
#include <stdint.h>

/// A `memfd_create(2)` file (`MFD_CLOEXEC | MFD_ALLOW_SEALING`) holding `count` bytes, sealed against
/// every change (`F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL`) and rewound.
/// - Parameters:
///   - name: its name, for /proc only (no path: nothing is created on a file system).
///   - bytes: its contents (borrowed).
///   - count: their length.
/// - Returns: the descriptor, which the caller closes; -1 with `errno` when it cannot be made.
int pm_memfd_from_bytes(const char *name, const uint8_t *bytes, size_t count);

#endif
