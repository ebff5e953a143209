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

/// A raw deflate stream (a zip entry's) inflated a piece at a time, so an entry of any size is read
/// in bounded memory (Apple Health's `export.xml`, several GB): zlib's own state (a 32 KiB window)
/// and nothing else. The caller bounds the total it accepts.
typedef struct pm_inflater pm_inflater;

/// What one `pm_inflater_run` did.
typedef enum pm_inflate_step {
    /// More may follow: give more input (when all was consumed) or more room.
    PM_INFLATE_MORE = 0,
    /// The stream ended (its last block was inflated); input past it is not the stream's.
    PM_INFLATE_END = 1,
    /// Not deflate data.
    PM_INFLATE_CORRUPT = 2,
    /// Memory could not be allocated.
    PM_INFLATE_NO_MEMORY = 3,
} pm_inflate_step;

/// A new inflater for one raw deflate stream; NULL when memory cannot be allocated.
pm_inflater *pm_inflater_new(void);

/// Inflates from `src` (`length` bytes) into `dst` (`room` bytes): `*consumed` input bytes were
/// used and `*produced` output bytes written (either may be 0 with `PM_INFLATE_MORE`, when the
/// other side is exhausted). Lengths above 4 GiB are taken a piece at a time.
pm_inflate_step pm_inflater_run(pm_inflater *inflater, const uint8_t *src, size_t length, size_t *consumed,
                                uint8_t *dst, size_t room, size_t *produced);

/// Releases an inflater (NULL is ignored).
void pm_inflater_free(pm_inflater *inflater);

/// zlib's CRC-32 of `bytes` continued from `crc` (0 to start): a zip entry's checksum, computed as
/// its bytes are read.
uint32_t pm_crc32(uint32_t crc, const uint8_t *bytes, size_t length);

#endif
