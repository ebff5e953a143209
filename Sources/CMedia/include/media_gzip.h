// CMedia: zlib's inflate for gzip-compressed exports (Strava's activities/*.fit.gz, *.gpx.gz),
// with the output bounded so a gzip bomb cannot eat memory. CMedia links zlib (`-lz`).
#ifndef PICKERD_CMEDIA_GZIP_H
#define PICKERD_CMEDIA_GZIP_H

#include <stddef.h>
#include <stdint.h>

/// What `pm_gunzip` returns.
typedef enum pm_gunzip_status {
    /// It worked: `*out` holds `*out_length` bytes.
    PM_GUNZIP_OK = 0,
    /// Not gzip or zlib data, a bad checksum, or data that ends early.
    PM_GUNZIP_CORRUPT = 1,
    /// The output would be larger than `max_output`: nothing is returned.
    PM_GUNZIP_TOO_LARGE = 2,
    /// Memory could not be allocated.
    PM_GUNZIP_NO_MEMORY = 3,
} pm_gunzip_status;

/// Inflates gzip data (every member of a multi-member file, each one's CRC-32 and length checked)
/// or a zlib stream, refusing to write more than `max_output` bytes. On `PM_GUNZIP_OK`, `*out` is a
/// buffer the caller releases with `pm_gunzip_free` (NULL when the output is empty). On failure
/// nothing is left allocated, and `*failed_at` is the input offset the inflater had reached.
pm_gunzip_status pm_gunzip(const uint8_t *src, size_t length, size_t max_output,
                           uint8_t **out, size_t *out_length, size_t *failed_at);

/// Inflates one raw deflate stream (a zip entry's data, method 8) as `pm_gunzip` does, bounded by
/// `max_output` the same way.
pm_gunzip_status pm_inflate_raw(const uint8_t *src, size_t length, size_t max_output,
                                uint8_t **out, size_t *out_length, size_t *failed_at);

/// Releases a buffer `pm_gunzip` or `pm_inflate_raw` returned.
void pm_gunzip_free(uint8_t *buffer);

#endif
