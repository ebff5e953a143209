// CMedia: small C wrappers over libexif, libheif, libwebp, libjxl and FFmpeg for pickerd's importer.
//
// Files: every reader takes a descriptor of a regular file (the caller's; never closed here) and
// reads it with `pread(2)` at positions of its own; no path ever reaches libheif or FFmpeg, and
// nothing here opens a file (a demuxer's request to open another file is refused).
//
// Memory: every function either fills a caller-owned struct of fixed-size fields (nothing to free)
// or, for decoded pixels, fills a `pm_rgb` whose `pixels` the caller releases with `pm_rgb_free`.
// Every function frees everything it allocated itself on every path, and is safe to call from
// several threads at once (each call has its own library contexts).
#ifndef PICKERD_CMEDIA_H
#define PICKERD_CMEDIA_H

#include <stddef.h>
#include <stdint.h>

#include "media_gzip.h"  // zlib's inflate, bounded, for .fit.gz and .gpx.gz exports
#include "media_memfd.h"  // files made in memory (a zip's members), for readers that may write nothing

/// The libraries' versions, for logs ("libexif … libheif 1.15.1, libavformat 59.27.100").
/// Returns a static string: do not free it.
const char *pm_library_versions(void);

/// What a wrapper returns.
typedef enum pm_status {
    /// It worked.
    PM_OK = 0,
    /// The file could not be opened or read (missing, permissions, I/O).
    PM_UNREADABLE = 1,
    /// The file's structure is broken (truncated, garbage, undecodable).
    PM_CORRUPT = 2,
    /// A format or feature the libraries do not read, or an image over the size limit.
    PM_UNSUPPORTED = 3,
} pm_status;

/// The largest image, in pixels, the decoders accept (100 megapixels).
#define PM_MAX_PIXELS 100000000LL

/// Silences FFmpeg's logging (`AV_LOG_QUIET`) and initialises libheif (`heif_init`: its decoders
/// registered, and its plugin folder looked at, now, not at the first file), once per process.
/// It also does once what glibc would otherwise do lazily by opening a file under a reader: the
/// time zone is read (`tzset`, which FFmpeg's demuxers reach through `strftime`), and malloc keeps
/// to one arena (`M_ARENA_MAX` 1: a thread arena's first shrink reads
/// /proc/sys/vm/overcommit_memory; libde265 decodes on threads). Every other function calls it;
/// callers may too. pickerd's log is its own.
///
/// A process that confines itself (pickerd-reader: no open, no socket) must call it before its
/// filter is in force, and before it starts threads that allocate (or start with
/// `GLIBC_TUNABLES=glibc.malloc.arena_max=1`). `Tools/cmedia-confined` checks it.
void pm_quiet_libraries(void);

// MARK: EXIF

/// The EXIF fields the importer uses. Strings are NUL-terminated UTF-8 (or whatever the camera
/// wrote), trailing spaces removed, empty when the tag is absent.
typedef struct pm_exif_info {
    /// EXIF `DateTimeOriginal` (0x9003), "YYYY:MM:DD HH:MM:SS".
    char date_time_original[32];
    /// EXIF `SubSecTimeOriginal` (0x9291), digits of a second's fraction.
    char sub_sec_time_original[16];
    /// EXIF `OffsetTimeOriginal` (0x9011), "+HH:MM".
    char offset_time_original[16];
    /// EXIF `DateTimeDigitized` (0x9004).
    char date_time_digitized[32];
    /// EXIF `OffsetTimeDigitized` (0x9012).
    char offset_time_digitized[16];
    /// IFD0 `DateTime` (0x0132): when the file was last changed.
    char date_time[32];
    /// EXIF `OffsetTime` (0x9010), the offset of `DateTime`.
    char offset_time[16];
    /// 1 when GPS latitude and longitude (with their N/S, E/W refs) were read.
    int has_gps;
    /// Degrees north (negative: south), valid when `has_gps`.
    double latitude;
    /// Degrees east (negative: west), valid when `has_gps`.
    double longitude;
    /// IFD0 `Make`.
    char make[128];
    /// IFD0 `Model`.
    char model[128];
    /// IFD0 `Software`.
    char software[128];
    /// IFD0 `Orientation` 1…8, 0 when absent or out of range.
    int orientation;
    /// 1 when the EXIF IFD has `ExposureTime` (0x829a) or `FNumber` (0x829d).
    int has_exposure;
    /// EXIF `PixelXDimension` / `PixelYDimension`, 0 when absent.
    uint32_t pixel_x_dimension, pixel_y_dimension;
    /// IFD0 `ImageWidth` / `ImageLength` (a TIFF's own size), 0 when absent.
    uint32_t image_width, image_length;
    /// Apple MakerNote tag 0x0011 (MediaGroupUUID, the Live Photo ContentIdentifier).
    char content_identifier[128];
    /// Apple MakerNote tag 0x000B (BurstUUID).
    char burst_identifier[128];
    /// 1 when the MakerNote is Apple's ("Apple iOS\0" header).
    int has_apple_maker_note;
} pm_exif_info;

/// Reads EXIF from a TIFF-structured block (starting "II*\0" or "MM\0*", as in a PNG `eXIf` chunk,
/// a TIFF file's start or libheif's Exif block after its offset), or from a block that starts with
/// "Exif\0\0" (a JPEG APP1 payload). Only the first 64 KiB are used (libexif's limit, the size of a
/// JPEG APP1 segment). The Apple MakerNote is parsed from the MakerNote's bytes here, not by
/// libexif.
/// - Parameters:
///   - data: the block (borrowed; not kept).
///   - size: its length.
///   - out: filled (zeroed first).
/// - Returns: `PM_OK` when a TIFF header and IFD0 were read, `PM_CORRUPT` otherwise.
pm_status pm_exif_read(const uint8_t *data, size_t size, pm_exif_info *out);

// MARK: HEIC

/// What `pm_heif_probe_fd` read.
typedef struct pm_heif_info {
    /// The primary image's size as displayed (libheif applies the file's `irot`/`imir`).
    uint32_t width, height;
    /// 1 when the primary image has an Exif metadata block that `exif` was read from.
    int has_exif;
    /// The Exif block's fields (zeroed when `has_exif` is 0).
    pm_exif_info exif;
} pm_heif_info;

/// Reads a HEIC/HEIF file's primary image size and its Exif block, without decoding pixels.
/// libheif reads the file through a `heif_reader` over `pread(2)`, never by its path.
/// libheif's Exif block starts with a 4-byte big-endian offset to the TIFF header; this skips it.
/// - Parameters:
///   - fd: a descriptor of the file (a regular file; borrowed, not closed).
///   - out: filled (zeroed first).
///   - error: receives a sentence on failure (may be NULL).
///   - error_size: `error`'s capacity.
/// - Returns: `PM_OK`, or `PM_UNREADABLE`, `PM_CORRUPT`, `PM_UNSUPPORTED` from libheif's error.
pm_status pm_heif_probe_fd(int fd, pm_heif_info *out, char *error, size_t error_size);

// MARK: Video

/// What `pm_video_probe_fd` read from a container's header (no packets are read).
typedef struct pm_video_info {
    /// `com.apple.quicktime.creationdate` (ISO 8601 with its offset), empty when absent.
    char creation_date[64];
    /// `creation_time` (UTC, "2024-05-04T08:11:13.000000Z"), from the container or a stream.
    char creation_time[64];
    /// `com.apple.quicktime.location.ISO6709`, else `location` (ISO 6709).
    char location[96];
    /// `com.apple.quicktime.content.identifier` (Live Photo pairing key).
    char content_identifier[128];
    /// `com.apple.quicktime.make`, else `make`.
    char make[128];
    /// `com.apple.quicktime.model`, else `model`.
    char model[128];
    /// `com.apple.quicktime.software`, else `encoder` is not used (it names the muxer).
    char software[128];
    /// The duration in ms, -1 when unknown.
    int64_t duration_ms;
    /// 1 when the file has a video stream.
    int has_video;
    /// The video stream's coded width and height.
    uint32_t width, height;
    /// Clockwise degrees (0, 90, 180, 270) to rotate the stored frames by for display, from the
    /// stream's display matrix; 0 when absent, not a multiple of 90 or flipped.
    int rotation;
    /// libavformat's name for the container ("mov,mp4,m4a,3gp,3g2,mj2").
    char format_name[64];
} pm_video_info;

/// Reads a video container's metadata, duration and video stream size with libavformat from its
/// header, without decoding; only when the container leaves the size to the decoder (MPEG-4 part 2,
/// H.263 in QuickTime) does it let `avformat_find_stream_info` look at the first half second.
/// libavformat reads the file through a custom `AVIOContext` over `pread(2)`: no URL, no protocol.
/// - Parameters:
///   - fd: a descriptor of the file (a regular file; borrowed, not closed).
///   - out: filled (zeroed first).
///   - error: receives a sentence on failure (may be NULL).
///   - error_size: `error`'s capacity.
/// - Returns: `PM_OK`, `PM_UNREADABLE` (cannot read), `PM_CORRUPT` (libavformat cannot parse it).
pm_status pm_video_probe_fd(int fd, pm_video_info *out, char *error, size_t error_size);

// MARK: Decoding

/// Decoded pixels: RGB24, rows of `width * 3` bytes without padding. `pixels` is owned by the
/// caller once a decoder returned `PM_OK`; release it with `pm_rgb_free`.
typedef struct pm_rgb {
    /// `width * height * 3` bytes (malloc'd).
    uint8_t *pixels;
    /// Width in pixels.
    int width;
    /// Height in pixels.
    int height;
} pm_rgb;

/// Frees `rgb->pixels` (NULL is fine) and zeroes the struct.
void pm_rgb_free(pm_rgb *rgb);

/// Decodes the first frame of a video, or a JPEG, PNG or TIFF still, with libavformat and
/// libavcodec, and scales it with libswscale to fit `max_side` (aspect kept, never enlarged).
/// Refuses images over `PM_MAX_PIXELS`; gives up after 600 packets without a frame.
/// - Parameters:
///   - fd: a descriptor of the file (a regular file; borrowed, not closed), read through a custom
///     `AVIOContext` over `pread(2)`: no URL, no protocol, and any other file a demuxer asks for is refused.
///   - format_name: the demuxer to use ("jpeg_pipe", "png_pipe", "tiff_pipe"), or NULL to probe the
///     content (videos).
///   - max_side: the longest side of the result, at least 1.
///   - out: receives the pixels (caller frees with `pm_rgb_free`); zeroed on failure.
///   - error: receives a sentence on failure (may be NULL).
///   - error_size: `error`'s capacity.
/// - Returns: `PM_OK`, `PM_UNREADABLE`, `PM_CORRUPT` (no decodable frame), `PM_UNSUPPORTED`.
pm_status pm_decode_av_fd(int fd, const char *format_name, int max_side, pm_rgb *out, char *error, size_t error_size);

/// Decodes a HEIC/HEIF file's primary image with libheif (its `irot`/`imir` applied) and scales it
/// with libswscale to fit `max_side` (aspect kept, never enlarged). Refuses images over
/// `PM_MAX_PIXELS`. The thumbnail the file holds is decoded instead when its longest side reaches
/// `max_side` (a phone writes one of 320 pixels or so): a fraction of the work.
/// libheif reads the file through a `heif_reader` over `pread(2)`.
/// - Parameters: as `pm_decode_av_fd` (without `format_name`); `thumbnail_only`: when non-zero,
///   `PM_UNSUPPORTED` rather than the primary image when no thumbnail is large enough.
/// - Returns: as `pm_decode_av_fd`.
pm_status pm_decode_heif_fd(int fd, int max_side, int thumbnail_only, pm_rgb *out, char *error, size_t error_size);

// MARK: JPEG XL

/// What `pm_jxl_probe_fd` read.
typedef struct pm_jxl_info {
    /// The image's size as displayed (libjxl applies the codestream's orientation).
    uint32_t width, height;
    /// 1 when an `Exif` box (bare, or Brotli-compressed in a `brob` box) was read into `exif`.
    int has_exif;
    /// The Exif box's fields (zeroed when `has_exif` is 0).
    pm_exif_info exif;
    /// 1 when the file is a container (`JXL ` signature box), 0 for a bare codestream (FF 0A).
    int is_container;
} pm_jxl_info;

/// Reads a JPEG XL file's size and its `Exif` box with libjxl, without decoding pixels. The file
/// is fed to libjxl in pieces read with `pread(2)`; `brob` boxes are decompressed by libjxl
/// (Brotli). The Exif box starts with a 4-byte big-endian offset to the TIFF header; this skips it.
/// - Parameters:
///   - fd: a descriptor of the file (a regular file; borrowed, not closed).
///   - out: filled (zeroed first).
///   - error: receives a sentence on failure (may be NULL).
///   - error_size: `error`'s capacity.
/// - Returns: `PM_OK`, `PM_UNREADABLE`, `PM_CORRUPT` (libjxl cannot parse it, or it ends early).
pm_status pm_jxl_probe_fd(int fd, pm_jxl_info *out, char *error, size_t error_size);

/// Decodes a JPEG XL file's image (an animation's first frame; its orientation applied) with
/// libjxl on the calling thread, and scales it to fit `max_side` (aspect kept, never enlarged).
/// Refuses images over `PM_MAX_PIXELS` before decoding.
/// - Parameters: as `pm_decode_heif_fd`.
/// - Returns: as `pm_decode_heif_fd`.
pm_status pm_decode_jxl_fd(int fd, int max_side, pm_rgb *out, char *error, size_t error_size);

/// Decodes a still WebP image (an animation is refused) held in memory with libwebp and
/// scales it with libswscale to fit `max_side` (aspect kept, never enlarged). Refuses images over
/// `PM_MAX_PIXELS` before decoding (the size is read from the bitstream's header first).
/// - Parameters:
///   - data: the whole file's bytes (borrowed; the caller read them with a bound).
///   - size: their length.
///   - max_side: the longest side of the result, at least 1.
///   - out: receives the pixels (caller frees with `pm_rgb_free`); zeroed on failure.
///   - error: receives a sentence on failure (may be NULL).
///   - error_size: `error`'s capacity.
/// - Returns: `PM_OK`, `PM_CORRUPT` (libwebp cannot decode it), `PM_UNSUPPORTED` (too large).
pm_status pm_decode_webp(const uint8_t *data, size_t size, int max_side, pm_rgb *out, char *error, size_t error_size);

/// Encodes RGB24 pixels (rows of `width * 3` bytes) as a PNG with FFmpeg's PNG encoder
/// (deflate-compressed; IHDR, IDAT and IEND only, no metadata).
/// - Parameters:
///   - pixels: the pixels (borrowed).
///   - width: width in pixels.
///   - height: height in pixels.
///   - out: receives the PNG's bytes (malloc'd; the caller frees them with `pm_free`), NULL on failure.
///   - out_size: receives their length.
///   - error: receives a sentence on failure (may be NULL).
///   - error_size: `error`'s capacity.
/// - Returns: `PM_OK`, or `PM_UNSUPPORTED` when FFmpeg has no PNG encoder, `PM_CORRUPT` otherwise.
pm_status pm_encode_png(const uint8_t *pixels, int width, int height, uint8_t **out, size_t *out_size, char *error,
                        size_t error_size);

/// Frees memory a CMedia function handed over (`pm_encode_png`'s bytes). NULL is fine.
void pm_free(void *pointer);

#endif
