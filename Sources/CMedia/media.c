// CMedia: see include/media.h for what each function does and who owns what.
#include "media.h"

#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libexif/exif-data.h>
#include <libexif/exif-utils.h>
#include <libheif/heif.h>
#include <webp/decode.h>
#include <jxl/decode.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

const char *pm_library_versions(void) {
    static char text[128];
    unsigned av = avformat_version();
    snprintf(text, sizeof text, "libheif %s, libavformat %u.%u.%u", heif_get_version(), av >> 16, (av >> 8) & 0xff, av & 0xff);
    return text;
}

static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;

static void quiet_now(void) {
    av_log_set_level(AV_LOG_QUIET);
    // One malloc arena for every thread: glibc reads /proc/sys/vm/overcommit_memory the first time
    // a thread's own arena shrinks (libde265 decodes a HEIC on threads of its own), which a reader
    // that may open nothing cannot do. Arenas made before this call stay; pickerd-reader also
    // starts with GLIBC_TUNABLES=glibc.malloc.arena_max=1 so there are none.
    mallopt(M_ARENA_MAX, 1);
    // glibc reads /etc/localtime (or TZ's file) at the first tzset, which FFmpeg's demuxers reach
    // through strftime when they write a creation_time; read once here, it is not read again.
    tzset();
    // libheif registers its decoders (and would load plugins) here, not lazily at the first file:
    // a confined reader calls this before its filter forbids opening anything. Every libheif call
    // in this file comes after it (heif_init must not be mixed with calls made without it); it is
    // never undone, so the decoders stay registered for the process's life.
    heif_init(NULL);
    // FFmpeg 5.1 needs no registration: its demuxers and decoders are static tables. Finding the
    // ones used here once touches nothing on disk either.
    (void)av_find_input_format("jpeg_pipe");
}

void pm_quiet_libraries(void) {
    // libheif 1.15 does not log to stderr; its errors come back as `heif_error`s.
    pthread_once(&quiet_once, quiet_now);
}

// MARK: Descriptors

/// A regular file read through its descriptor with `pread(2)`, at a position of its own (the
/// descriptor's offset is never used, so it may be shared).
typedef struct pm_fd_source {
    int fd;
    int64_t position;
    int64_t size;
} pm_fd_source;

/// Fills `source` for `fd`: 0, or an errno value (`EINVAL` for a file that is not regular).
static int fd_source_init(pm_fd_source *source, int fd) {
    struct stat info;
    if (fstat(fd, &info) != 0) return errno;
    if (!S_ISREG(info.st_mode)) return EINVAL;
    source->fd = fd;
    source->position = 0;
    source->size = (int64_t)info.st_size;
    return 0;
}

/// Reads up to `size` bytes at the source's position: the count, 0 at the end, -1 with errno.
static ssize_t fd_source_read(pm_fd_source *source, uint8_t *into, size_t size) {
    if (source->position >= source->size) return 0;
    if ((int64_t)size > source->size - source->position) size = (size_t)(source->size - source->position);
    ssize_t n;
    do n = pread(source->fd, into, size, (off_t)source->position); while (n < 0 && errno == EINTR);
    if (n > 0) source->position += n;
    return n;
}

static void set_error(char *error, size_t size, const char *format, ...) {
    if (!error || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(error, size, format, args);
    va_end(args);
}

// MARK: EXIF

/// Copies an ASCII (or UNDEFINED) entry's bytes up to its first NUL, trailing spaces removed.
static void copy_text(const uint8_t *data, size_t size, char *out, size_t capacity) {
    size_t n = 0;
    if (capacity == 0) return;
    while (n < size && n + 1 < capacity && data[n] != 0) { out[n] = (char)data[n]; n++; }
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\t')) n--;
    out[n] = 0;
}

static void copy_entry_text(ExifContent *ifd, ExifTag tag, char *out, size_t capacity) {
    ExifEntry *e = ifd ? exif_content_get_entry(ifd, tag) : NULL;
    if (!e || !e->data || (e->format != EXIF_FORMAT_ASCII && e->format != EXIF_FORMAT_UNDEFINED)) return;
    copy_text(e->data, e->size, out, capacity);
}

/// An unsigned SHORT or LONG entry's first value, 0 when absent or of another format.
static uint32_t entry_uint(ExifContent *ifd, ExifTag tag, ExifByteOrder order) {
    ExifEntry *e = ifd ? exif_content_get_entry(ifd, tag) : NULL;
    if (!e || !e->data || e->components < 1) return 0;
    if (e->format == EXIF_FORMAT_SHORT && e->size >= 2) return exif_get_short(e->data, order);
    if (e->format == EXIF_FORMAT_LONG && e->size >= 4) return exif_get_long(e->data, order);
    return 0;
}

/// A GPS latitude or longitude: three RATIONALs (degrees, minutes, seconds) in degrees.
static int gps_degrees(ExifContent *gps, ExifTag tag, ExifByteOrder order, double *out) {
    ExifEntry *e = gps ? exif_content_get_entry(gps, tag) : NULL;
    // The spec says RATIONAL; some phones (a Nokia 8.3's camera) write SRATIONAL, which exiftool
    // and libexif's own readers accept too.
    if (!e || !e->data || (e->format != EXIF_FORMAT_RATIONAL && e->format != EXIF_FORMAT_SRATIONAL) || e->components < 1) return 0;
    double parts[3] = {0, 0, 0};
    unsigned long count = e->components < 3 ? e->components : 3;
    if (e->size < count * 8) return 0;
    for (unsigned long i = 0; i < count; i++) {
        double numerator, denominator;
        if (e->format == EXIF_FORMAT_SRATIONAL) {
            ExifSRational r = exif_get_srational(e->data + 8 * i, order);
            numerator = r.numerator;
            denominator = r.denominator;
        } else {
            ExifRational r = exif_get_rational(e->data + 8 * i, order);
            numerator = r.numerator;
            denominator = r.denominator;
        }
        if (denominator == 0) {
            if (i == 0) return 0;
            continue;
        }
        parts[i] = numerator / denominator;
    }
    *out = parts[0] + parts[1] / 60.0 + parts[2] / 3600.0;
    return 1;
}

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[1] << 8 | p[0]); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }

/// Apple's MakerNote: "Apple iOS\0", a 2-byte version, "MM" (or "II"), then a TIFF-like IFD whose
/// value offsets count from the MakerNote's first byte (as exiftool reads it).
static void read_apple_maker_note(const uint8_t *d, size_t size, pm_exif_info *out) {
    if (size < 16 || memcmp(d, "Apple iOS\0", 10) != 0) return;
    int big;
    if (memcmp(d + 12, "MM", 2) == 0) big = 1;
    else if (memcmp(d + 12, "II", 2) == 0) big = 0;
    else return;
    out->has_apple_maker_note = 1;
    size_t count = big ? be16(d + 14) : le16(d + 14);
    for (size_t i = 0; i < count && i < 512; i++) {
        size_t at = 16 + 12 * i;
        if (at + 12 > size) break;
        uint16_t tag = big ? be16(d + at) : le16(d + at);
        uint16_t type = big ? be16(d + at + 2) : le16(d + at + 2);
        uint32_t n = big ? be32(d + at + 4) : le32(d + at + 4);
        if (type != 2 /* ASCII */ || (tag != 0x0011 && tag != 0x000B)) continue;
        const uint8_t *value;
        if (n <= 4) {
            value = d + at + 8;
        } else {
            uint32_t offset = big ? be32(d + at + 8) : le32(d + at + 8);
            if (offset > size || n > size - offset) continue;
            value = d + offset;
        }
        if (tag == 0x0011) copy_text(value, n, out->content_identifier, sizeof out->content_identifier);
        else copy_text(value, n, out->burst_identifier, sizeof out->burst_identifier);
    }
}

pm_status pm_exif_read(const uint8_t *data, size_t size, pm_exif_info *out) {
    static const uint8_t header[6] = {'E', 'x', 'i', 'f', 0, 0};
    memset(out, 0, sizeof *out);
    if (!data) return PM_CORRUPT;
    if (size >= 6 && memcmp(data, header, 6) == 0) { data += 6; size -= 6; }
    if (size < 8) return PM_CORRUPT;
    if (!(memcmp(data, "II*\0", 4) == 0 || memcmp(data, "MM\0*", 4) == 0)) return PM_CORRUPT;
    if (size > 0xfffe - 6) size = 0xfffe - 6;  // libexif reads at most one APP1 segment's worth

    // libexif wants the "Exif\0\0" header in front of the TIFF block.
    uint8_t *block = malloc(size + 6);
    if (!block) return PM_CORRUPT;
    memcpy(block, header, 6);
    memcpy(block + 6, data, size);

    ExifData *ed = exif_data_new();
    if (!ed) { free(block); return PM_CORRUPT; }
    // Keep every tag as stored: no "fixing" (which adds default entries) and no dropping of tags
    // this libexif does not know.
    exif_data_unset_option(ed, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_load_data(ed, block, (unsigned int)(size + 6));
    free(block);

    ExifContent *ifd0 = ed->ifd[EXIF_IFD_0], *exif = ed->ifd[EXIF_IFD_EXIF], *gps = ed->ifd[EXIF_IFD_GPS];
    if ((!ifd0 || ifd0->count == 0) && (!exif || exif->count == 0)) {
        exif_data_unref(ed);
        return PM_CORRUPT;
    }
    ExifByteOrder order = exif_data_get_byte_order(ed);

    copy_entry_text(exif, EXIF_TAG_DATE_TIME_ORIGINAL, out->date_time_original, sizeof out->date_time_original);
    copy_entry_text(exif, EXIF_TAG_SUB_SEC_TIME_ORIGINAL, out->sub_sec_time_original, sizeof out->sub_sec_time_original);
    copy_entry_text(exif, (ExifTag)0x9011, out->offset_time_original, sizeof out->offset_time_original);
    copy_entry_text(exif, EXIF_TAG_DATE_TIME_DIGITIZED, out->date_time_digitized, sizeof out->date_time_digitized);
    copy_entry_text(exif, (ExifTag)0x9012, out->offset_time_digitized, sizeof out->offset_time_digitized);
    copy_entry_text(ifd0, EXIF_TAG_DATE_TIME, out->date_time, sizeof out->date_time);
    copy_entry_text(exif, (ExifTag)0x9010, out->offset_time, sizeof out->offset_time);
    copy_entry_text(ifd0, EXIF_TAG_MAKE, out->make, sizeof out->make);
    copy_entry_text(ifd0, EXIF_TAG_MODEL, out->model, sizeof out->model);
    copy_entry_text(ifd0, EXIF_TAG_SOFTWARE, out->software, sizeof out->software);

    uint32_t orientation = entry_uint(ifd0, EXIF_TAG_ORIENTATION, order);
    out->orientation = orientation >= 1 && orientation <= 8 ? (int)orientation : 0;
    out->has_exposure = exif && (exif_content_get_entry(exif, EXIF_TAG_EXPOSURE_TIME) || exif_content_get_entry(exif, EXIF_TAG_FNUMBER));
    out->pixel_x_dimension = entry_uint(exif, EXIF_TAG_PIXEL_X_DIMENSION, order);
    out->pixel_y_dimension = entry_uint(exif, EXIF_TAG_PIXEL_Y_DIMENSION, order);
    out->image_width = entry_uint(ifd0, EXIF_TAG_IMAGE_WIDTH, order);
    out->image_length = entry_uint(ifd0, EXIF_TAG_IMAGE_LENGTH, order);

    double latitude, longitude;
    if (gps_degrees(gps, (ExifTag)0x0002, order, &latitude) && gps_degrees(gps, (ExifTag)0x0004, order, &longitude)) {
        char ref[8] = {0};
        copy_entry_text(gps, (ExifTag)0x0001, ref, sizeof ref);
        if (ref[0] == 'S' || ref[0] == 's') latitude = -latitude;
        memset(ref, 0, sizeof ref);
        copy_entry_text(gps, (ExifTag)0x0003, ref, sizeof ref);
        if (ref[0] == 'W' || ref[0] == 'w') longitude = -longitude;
        if (isfinite(latitude) && isfinite(longitude)) {
            out->has_gps = 1;
            out->latitude = latitude;
            out->longitude = longitude;
        }
    }

    ExifEntry *note = exif ? exif_content_get_entry(exif, EXIF_TAG_MAKER_NOTE) : NULL;
    if (note && note->data) read_apple_maker_note(note->data, note->size, out);

    exif_data_unref(ed);
    return PM_OK;
}

// MARK: HEIC

static pm_status heif_status(struct heif_error err) {
    switch (err.code) {
    case heif_error_Ok: return PM_OK;
    case heif_error_Input_does_not_exist: return PM_UNREADABLE;
    case heif_error_Unsupported_filetype:
    case heif_error_Unsupported_feature:
    case heif_error_Plugin_loading_error: return PM_UNSUPPORTED;
    default: return PM_CORRUPT;
    }
}

static int64_t heif_source_position(void *userdata) { return ((pm_fd_source *)userdata)->position; }

static int heif_source_read(void *data, size_t size, void *userdata) {
    pm_fd_source *source = userdata;
    uint8_t *into = data;
    while (size > 0) {
        ssize_t n = fd_source_read(source, into, size);
        if (n <= 0) return 1;  // libheif asks only for bytes before the size it was told
        into += n;
        size -= (size_t)n;
    }
    return 0;
}

static int heif_source_seek(int64_t position, void *userdata) {
    pm_fd_source *source = userdata;
    if (position < 0 || position > source->size) return 1;
    source->position = position;
    return 0;
}

static enum heif_reader_grow_status heif_source_wait(int64_t target_size, void *userdata) {
    return target_size > ((pm_fd_source *)userdata)->size ? heif_reader_grow_status_size_beyond_eof : heif_reader_grow_status_size_reached;
}

static const struct heif_reader heif_fd_reader = {
    .reader_api_version = 1,
    .get_position = heif_source_position,
    .read = heif_source_read,
    .seek = heif_source_seek,
    .wait_for_file_size = heif_source_wait,
};

/// Opens the file `source` reads (libheif reads it through `heif_fd_reader`, never by a path) and
/// its primary image. On success the caller releases both; `source` must outlive the context.
static pm_status heif_open(pm_fd_source *source, struct heif_context **ctx_out, struct heif_image_handle **handle_out,
                           char *error, size_t error_size) {
    pm_quiet_libraries();
    *ctx_out = NULL;
    *handle_out = NULL;
    struct heif_context *ctx = heif_context_alloc();
    if (!ctx) { set_error(error, error_size, "libheif: out of memory"); return PM_CORRUPT; }
    struct heif_error err = heif_context_read_from_reader(ctx, &heif_fd_reader, source, NULL);
    if (err.code != heif_error_Ok) {
        set_error(error, error_size, "libheif cannot read it: %s", err.message ? err.message : "unknown error");
        heif_context_free(ctx);
        return heif_status(err);
    }
    struct heif_image_handle *handle = NULL;
    err = heif_context_get_primary_image_handle(ctx, &handle);
    if (err.code != heif_error_Ok || !handle) {
        set_error(error, error_size, "libheif finds no primary image: %s", err.message ? err.message : "unknown error");
        heif_context_free(ctx);
        return err.code == heif_error_Ok ? PM_CORRUPT : heif_status(err);
    }
    *ctx_out = ctx;
    *handle_out = handle;
    return PM_OK;
}

/// Fills `source` for `fd`, or says why not.
static pm_status open_source(pm_fd_source *source, int fd, char *error, size_t error_size) {
    int code = fd_source_init(source, fd);
    if (code == 0) return PM_OK;
    set_error(error, error_size, code == EINVAL ? "it is not a regular file" : "cannot read it: %s", strerror(code));
    return PM_UNREADABLE;
}

pm_status pm_heif_probe_fd(int fd, pm_heif_info *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    pm_fd_source source;
    pm_status status = open_source(&source, fd, error, error_size);
    if (status != PM_OK) return status;
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    status = heif_open(&source, &ctx, &handle, error, error_size);
    if (status != PM_OK) return status;
    int w = heif_image_handle_get_width(handle), h = heif_image_handle_get_height(handle);
    out->width = w > 0 ? (uint32_t)w : 0;
    out->height = h > 0 ? (uint32_t)h : 0;

    heif_item_id ids[4];
    int n = heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", ids, 4);
    for (int i = 0; i < n && !out->has_exif; i++) {
        size_t size = heif_image_handle_get_metadata_size(handle, ids[i]);
        if (size < 4 || size > 16 * 1024 * 1024) continue;
        uint8_t *block = malloc(size);
        if (!block) continue;
        struct heif_error err = heif_image_handle_get_metadata(handle, ids[i], block);
        if (err.code == heif_error_Ok) {
            // The block starts with a big-endian offset from its 5th byte to the TIFF header
            // (usually 6, skipping "Exif\0\0"; sometimes 0).
            uint32_t offset = be32(block);
            if (offset <= size - 4 && pm_exif_read(block + 4 + offset, size - 4 - offset, &out->exif) == PM_OK) {
                out->has_exif = 1;
            }
        }
        free(block);
    }
    if (!out->has_exif) memset(&out->exif, 0, sizeof out->exif);
    heif_image_handle_release(handle);
    heif_context_free(ctx);
    return PM_OK;
}

// MARK: Video

static pm_status av_status(int code) {
    if (code == AVERROR(ENOENT) || code == AVERROR(EACCES) || code == AVERROR(EISDIR) || code == AVERROR(EIO) ||
        code == AVERROR(EPERM))
        return PM_UNREADABLE;
    if (code == AVERROR_DECODER_NOT_FOUND || code == AVERROR_DEMUXER_NOT_FOUND || code == AVERROR_PATCHWELCOME)
        return PM_UNSUPPORTED;
    return PM_CORRUPT;
}

/// A demuxer reading a descriptor through a custom `AVIOContext` (FFmpeg 5.1 has no `fd:`
/// protocol): no URL, no protocol, no path ever reaches libavformat.
typedef struct pm_av_input {
    pm_fd_source source;
    AVIOContext *avio;
    AVFormatContext *fmt;
} pm_av_input;

static int av_source_read(void *opaque, uint8_t *buffer, int size) {
    ssize_t n = fd_source_read(opaque, buffer, size > 0 ? (size_t)size : 0);
    if (n < 0) return AVERROR(errno);
    return n == 0 ? AVERROR_EOF : (int)n;
}

static int64_t av_source_seek(void *opaque, int64_t offset, int whence) {
    pm_fd_source *source = opaque;
    int64_t target;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return source->size;
    case SEEK_SET: target = offset; break;
    case SEEK_CUR: target = source->position + offset; break;
    case SEEK_END: target = source->size + offset; break;
    default: return AVERROR(EINVAL);
    }
    if (target < 0) return AVERROR(EINVAL);
    source->position = target;
    return target;
}

/// Refuses every file a demuxer asks to open beside the one it reads (a QuickTime reference, a
/// playlist's entries): the reader reads one descriptor and nothing else.
static int av_refuse_open(struct AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)s, (void)pb, (void)url, (void)flags, (void)options;
    return AVERROR(EPERM);
}

/// Frees what `av_open` made (a NULL context too).
static void av_close(pm_av_input *input) {
    avformat_close_input(&input->fmt);  // a custom AVIOContext is the caller's to free
    if (input->avio) {
        av_freep(&input->avio->buffer);
        avio_context_free(&input->avio);
    }
}

/// Opens the file `fd` refers to with libavformat, reading it with `pread`. The caller calls
/// `av_close` whatever this returns.
static int av_open(pm_av_input *input, int fd, const char *format_name) {
    pm_quiet_libraries();
    memset(input, 0, sizeof *input);
    int code = fd_source_init(&input->source, fd);
    if (code != 0) return AVERROR(code);
    const AVInputFormat *format = NULL;
    if (format_name) {
        format = av_find_input_format(format_name);
        if (!format) return AVERROR_DEMUXER_NOT_FOUND;
    }
    enum { buffer_size = 64 * 1024 };
    uint8_t *buffer = av_malloc(buffer_size);
    if (!buffer) return AVERROR(ENOMEM);
    input->avio = avio_alloc_context(buffer, buffer_size, 0, &input->source, av_source_read, NULL, av_source_seek);
    if (!input->avio) { av_free(buffer); return AVERROR(ENOMEM); }
    input->fmt = avformat_alloc_context();
    if (!input->fmt) return AVERROR(ENOMEM);
    input->fmt->pb = input->avio;
    input->fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    input->fmt->io_open = av_refuse_open;
    AVDictionary *options = NULL;
    // No protocol at all: the descriptor is read through the context above.
    av_dict_set(&options, "protocol_whitelist", "none", 0);
    code = avformat_open_input(&input->fmt, NULL, format, &options);  // frees and clears fmt on failure
    av_dict_free(&options);
    return code;
}

static void copy_tag(AVDictionary *metadata, const char *key, char *out, size_t capacity) {
    if (out[0] || !metadata) return;
    AVDictionaryEntry *e = av_dict_get(metadata, key, NULL, 0);
    if (e && e->value) copy_text((const uint8_t *)e->value, strlen(e->value), out, capacity);
}

/// The stream's display matrix as clockwise degrees for display: 0, 90, 180 or 270.
static int stream_rotation(const AVStream *st) {
    const int32_t *matrix = NULL;
#if LIBAVFORMAT_VERSION_MAJOR >= 61
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data, st->codecpar->nb_coded_side_data,
                                                         AV_PKT_DATA_DISPLAYMATRIX);
    if (sd && sd->size >= 9 * sizeof(int32_t)) matrix = (const int32_t *)sd->data;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (data && size >= 9 * sizeof(int32_t)) matrix = (const int32_t *)data;
#endif
    if (!matrix) return 0;
    // A flip (negative determinant) is not a plain rotation.
    double det = (double)matrix[0] * matrix[4] - (double)matrix[1] * matrix[3];
    if (det < 0) return 0;
    double counterclockwise = av_display_rotation_get(matrix);
    if (isnan(counterclockwise)) return 0;
    long clockwise = lround(-counterclockwise);
    clockwise = ((clockwise % 360) + 360) % 360;
    if (clockwise % 90 != 0) return 0;
    return (int)clockwise;
}

pm_status pm_video_probe_fd(int fd, pm_video_info *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    out->duration_ms = -1;
    pm_av_input input;
    int code = av_open(&input, fd, NULL);
    if (code < 0) {
        char text[AV_ERROR_MAX_STRING_SIZE] = {0};
        av_strerror(code, text, sizeof text);
        set_error(error, error_size, "libavformat cannot open it: %s", text);
        av_close(&input);
        return av_status(code);
    }
    AVFormatContext *fmt = input.fmt;
    if (fmt->iformat && fmt->iformat->name) copy_text((const uint8_t *)fmt->iformat->name, strlen(fmt->iformat->name), out->format_name, sizeof out->format_name);

    AVDictionary *m = fmt->metadata;
    copy_tag(m, "com.apple.quicktime.creationdate", out->creation_date, sizeof out->creation_date);
    copy_tag(m, "creation_time", out->creation_time, sizeof out->creation_time);
    copy_tag(m, "com.apple.quicktime.location.ISO6709", out->location, sizeof out->location);
    copy_tag(m, "location", out->location, sizeof out->location);
    copy_tag(m, "com.apple.quicktime.content.identifier", out->content_identifier, sizeof out->content_identifier);
    copy_tag(m, "com.apple.quicktime.make", out->make, sizeof out->make);
    copy_tag(m, "make", out->make, sizeof out->make);
    copy_tag(m, "com.apple.quicktime.model", out->model, sizeof out->model);
    copy_tag(m, "model", out->model, sizeof out->model);
    copy_tag(m, "com.apple.quicktime.software", out->software, sizeof out->software);

    int64_t duration_us = fmt->duration != AV_NOPTS_VALUE && fmt->duration > 0 ? fmt->duration : -1;
    for (unsigned i = 0; i < fmt->nb_streams; i++) {
        AVStream *st = fmt->streams[i];
        copy_tag(st->metadata, "creation_time", out->creation_time, sizeof out->creation_time);
        if (duration_us < 0 && st->duration != AV_NOPTS_VALUE && st->duration > 0 && st->time_base.den > 0) {
            int64_t us = av_rescale_q(st->duration, st->time_base, AV_TIME_BASE_Q);
            if (us > duration_us) duration_us = us;
        }
        if (!out->has_video && st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO &&
            !(st->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
            out->has_video = 1;
            out->width = st->codecpar->width > 0 ? (uint32_t)st->codecpar->width : 0;
            out->height = st->codecpar->height > 0 ? (uint32_t)st->codecpar->height : 0;
            out->rotation = stream_rotation(st);
        }
    }
    if (duration_us >= 0) out->duration_ms = duration_us / 1000;
    if (out->has_video && (out->width == 0 || out->height == 0)) {
        // libavformat leaves the size to the decoder for some codecs (MPEG-4 part 2, H.263 in
        // QuickTime): let it look at the first packets, bounded.
        fmt->max_analyze_duration = AV_TIME_BASE / 2;
        fmt->probesize = 4 * 1024 * 1024;
        if (avformat_find_stream_info(fmt, NULL) >= 0) {
            for (unsigned i = 0; i < fmt->nb_streams; i++) {
                AVStream *st = fmt->streams[i];
                if (st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO && !(st->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
                    out->width = st->codecpar->width > 0 ? (uint32_t)st->codecpar->width : 0;
                    out->height = st->codecpar->height > 0 ? (uint32_t)st->codecpar->height : 0;
                    break;
                }
            }
        }
    }
    av_close(&input);
    return PM_OK;
}

// MARK: Decoding

void pm_rgb_free(pm_rgb *rgb) {
    if (!rgb) return;
    free(rgb->pixels);
    memset(rgb, 0, sizeof *rgb);
}

/// The size that fits `max_side`, aspect kept, never larger than the source.
static void fit(int width, int height, int max_side, int *w, int *h) {
    if (max_side < 1) max_side = 1;
    if (width <= max_side && height <= max_side) { *w = width; *h = height; return; }
    if (width >= height) {
        *w = max_side;
        *h = (int)lround((double)height * max_side / width);
    } else {
        *h = max_side;
        *w = (int)lround((double)width * max_side / height);
    }
    if (*w < 1) *w = 1;
    if (*h < 1) *h = 1;
}

/// Scales `src` (any pixel format libswscale reads) into a new RGB24 `out`.
static pm_status scale_to_rgb(const uint8_t *const src[], const int src_stride[], int width, int height,
                              enum AVPixelFormat format, int max_side, pm_rgb *out, char *error, size_t error_size) {
    int w, h;
    fit(width, height, max_side, &w, &h);
    struct SwsContext *sws = sws_getContext(width, height, format, w, h, AV_PIX_FMT_RGB24, SWS_AREA, NULL, NULL, NULL);
    if (!sws) {
        set_error(error, error_size, "libswscale cannot convert %s", av_get_pix_fmt_name(format) ? av_get_pix_fmt_name(format) : "this pixel format");
        return PM_UNSUPPORTED;
    }
    // Room past the end: swscale's vector code may write a little beyond the last row's pixels.
    uint8_t *pixels = malloc((size_t)w * h * 3 + 64);
    if (!pixels) {
        sws_freeContext(sws);
        set_error(error, error_size, "out of memory");
        return PM_CORRUPT;
    }
    uint8_t *dst[4] = {pixels, NULL, NULL, NULL};
    int dst_stride[4] = {w * 3, 0, 0, 0};
    int rows = sws_scale(sws, src, src_stride, 0, height, dst, dst_stride);
    sws_freeContext(sws);
    if (rows != h) {
        free(pixels);
        set_error(error, error_size, "libswscale produced %d rows of %d", rows, h);
        return PM_CORRUPT;
    }
    out->pixels = pixels;
    out->width = w;
    out->height = h;
    return PM_OK;
}

pm_status pm_decode_av_fd(int fd, const char *format_name, int max_side, pm_rgb *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    pm_av_input input;
    AVFormatContext *fmt = NULL;
    AVCodecContext *codec = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL;
    pm_status status = PM_CORRUPT;
    char text[AV_ERROR_MAX_STRING_SIZE] = {0};

    int code = av_open(&input, fd, format_name);
    if (code < 0) {
        av_strerror(code, text, sizeof text);
        set_error(error, error_size, "libavformat cannot open it: %s", text);
        av_close(&input);
        return av_status(code);
    }
    fmt = input.fmt;
    const AVCodec *decoder = NULL;
    int index = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (index < 0 || !decoder) {
        set_error(error, error_size, index == AVERROR_DECODER_NOT_FOUND ? "no decoder for its video" : "no video or image stream");
        status = index == AVERROR_DECODER_NOT_FOUND ? PM_UNSUPPORTED : PM_CORRUPT;
        goto done;
    }
    AVCodecParameters *par = fmt->streams[index]->codecpar;
    if ((int64_t)par->width * par->height > PM_MAX_PIXELS) {
        set_error(error, error_size, "%dx%d is over the %lld-pixel limit", par->width, par->height, PM_MAX_PIXELS);
        status = PM_UNSUPPORTED;
        goto done;
    }
    codec = avcodec_alloc_context3(decoder);
    packet = av_packet_alloc();
    frame = av_frame_alloc();
    if (!codec || !packet || !frame) { set_error(error, error_size, "out of memory"); goto done; }
    if ((code = avcodec_parameters_to_context(codec, par)) < 0) goto av_error;
    codec->max_pixels = PM_MAX_PIXELS;  // the decoder refuses larger frames (a still's size is known only when decoding)
    codec->thread_count = 1;
    // A JPEG decoded smaller (libavcodec's lowres: 1/2, 1/4 or 1/8 of each side, straight from the
    // DCT) when the picture asked for still fits: a preview or a perceptual hash of a 12-megapixel
    // photo needs an eighth of its work.
    int longest = par->width > par->height ? par->width : par->height;
    for (int k = decoder->max_lowres; k > 0; k--) {
        if ((longest >> k) >= max_side && (par->width >> k) > 0 && (par->height >> k) > 0) {
            codec->lowres = k;
            break;
        }
    }
    if ((code = avcodec_open2(codec, decoder, NULL)) < 0) goto av_error;

    int got = 0, packets = 0, flushing = 0;
    while (!got) {
        if (!flushing) {
            code = av_read_frame(fmt, packet);
            if (code == AVERROR_EOF) {
                flushing = 1;
                code = avcodec_send_packet(codec, NULL);
                if (code < 0 && code != AVERROR_EOF) goto av_error;
            } else if (code < 0) {
                goto av_error;
            } else {
                if (packet->stream_index != index) { av_packet_unref(packet); continue; }
                if (++packets > 600) {
                    av_packet_unref(packet);
                    set_error(error, error_size, "no frame in its first 600 packets");
                    goto done;
                }
                code = avcodec_send_packet(codec, packet);
                av_packet_unref(packet);
                // A broken packet: keep reading, the next one may decode.
                if (code < 0 && code != AVERROR(EAGAIN) && code != AVERROR_INVALIDDATA) goto av_error;
            }
        }
        code = avcodec_receive_frame(codec, frame);
        if (code == 0) {
            got = 1;
        } else if (code == AVERROR(EAGAIN) && !flushing) {
            continue;
        } else if (code == AVERROR_EOF || code == AVERROR(EAGAIN)) {
            set_error(error, error_size, "no decodable frame");
            goto done;
        } else if (code != AVERROR_INVALIDDATA) {
            goto av_error;
        } else if (flushing) {
            set_error(error, error_size, "no decodable frame");
            goto done;
        }
    }
    if (frame->width <= 0 || frame->height <= 0) { set_error(error, error_size, "an empty frame"); goto done; }
    status = scale_to_rgb((const uint8_t *const *)frame->data, frame->linesize, frame->width, frame->height,
                          (enum AVPixelFormat)frame->format, max_side, out, error, error_size);
    goto done;

av_error:
    av_strerror(code, text, sizeof text);
    set_error(error, error_size, "FFmpeg cannot decode it: %s", text);
    if (code == AVERROR(EIO)) status = PM_UNREADABLE;
    else if (code == AVERROR_DECODER_NOT_FOUND || code == AVERROR_PATCHWELCOME) status = PM_UNSUPPORTED;
    else status = PM_CORRUPT;
done:
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&codec);
    av_close(&input);
    return status;
}

pm_status pm_decode_heif_fd(int fd, int max_side, int thumbnail_only, pm_rgb *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    pm_fd_source source;
    pm_status status = open_source(&source, fd, error, error_size);
    if (status != PM_OK) return status;
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    status = heif_open(&source, &ctx, &handle, error, error_size);
    if (status != PM_OK) return status;
    // A thumbnail the file holds (a phone writes one, 320 pixels or so) serves when it is at least
    // as large as the picture asked for: decoding it costs a fraction of the full image's.
    heif_item_id thumbnail_id;
    if (heif_image_handle_get_list_of_thumbnail_IDs(handle, &thumbnail_id, 1) == 1) {
        struct heif_image_handle *thumbnail = NULL;
        struct heif_error err = heif_image_handle_get_thumbnail(handle, thumbnail_id, &thumbnail);
        if (err.code == heif_error_Ok && thumbnail) {
            int tw = heif_image_handle_get_width(thumbnail), th = heif_image_handle_get_height(thumbnail);
            if ((tw > th ? tw : th) >= max_side) {
                heif_image_handle_release(handle);
                handle = thumbnail;
                thumbnail_only = 0;
            } else {
                heif_image_handle_release(thumbnail);
            }
        }
    }
    if (thumbnail_only) {
        set_error(error, error_size, "no thumbnail of %d pixels or more", max_side);
        heif_image_handle_release(handle);
        heif_context_free(ctx);
        return PM_UNSUPPORTED;
    }
    int w = heif_image_handle_get_width(handle), h = heif_image_handle_get_height(handle);
    struct heif_image *image = NULL;
    if (w <= 0 || h <= 0) {
        set_error(error, error_size, "libheif reports a %dx%d image", w, h);
        status = PM_CORRUPT;
    } else if ((int64_t)w * h > PM_MAX_PIXELS) {
        set_error(error, error_size, "%dx%d is over the %lld-pixel limit", w, h, PM_MAX_PIXELS);
        status = PM_UNSUPPORTED;
    } else {
        struct heif_error err = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL);
        if (err.code != heif_error_Ok || !image) {
            set_error(error, error_size, "libheif cannot decode it: %s", err.message ? err.message : "unknown error");
            status = err.code == heif_error_Ok ? PM_CORRUPT : heif_status(err);
        } else {
            int stride = 0;
            const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
            int iw = heif_image_get_width(image, heif_channel_interleaved);
            int ih = heif_image_get_height(image, heif_channel_interleaved);
            if (!plane || iw <= 0 || ih <= 0) {
                set_error(error, error_size, "libheif decoded no pixels");
                status = PM_CORRUPT;
            } else {
                const uint8_t *src[4] = {plane, NULL, NULL, NULL};
                int src_stride[4] = {stride, 0, 0, 0};
                status = scale_to_rgb(src, src_stride, iw, ih, AV_PIX_FMT_RGB24, max_side, out, error, error_size);
            }
            heif_image_release(image);
        }
    }
    heif_image_handle_release(handle);
    heif_context_free(ctx);
    return status;
}

pm_status pm_decode_webp(const uint8_t *data, size_t size, int max_side, pm_rgb *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(data, size, &features);
    if (code != VP8_STATUS_OK) {
        set_error(error, error_size, "libwebp cannot read its header (status %d)", (int)code);
        return code == VP8_STATUS_UNSUPPORTED_FEATURE ? PM_UNSUPPORTED : PM_CORRUPT;
    }
    if (features.width <= 0 || features.height <= 0 || (int64_t)features.width * features.height > PM_MAX_PIXELS) {
        set_error(error, error_size, "%dx%d is over the %lld-pixel limit or empty", features.width, features.height, PM_MAX_PIXELS);
        return PM_UNSUPPORTED;
    }
    // An animation: WebPDecode reads a bare frame, not the ANMF chunks; libwebp's demux library
    // would, but a preview of the first frame is not worth a second library, so it is refused.
    if (features.has_animation) {
        set_error(error, error_size, "an animated WebP (no preview of animations)");
        return PM_UNSUPPORTED;
    }
    int width = 0, height = 0;
    uint8_t *rgb = WebPDecodeRGB(data, size, &width, &height);
    if (!rgb || width <= 0 || height <= 0) {
        WebPFree(rgb);
        set_error(error, error_size, "libwebp cannot decode its image data");
        return PM_CORRUPT;
    }
    const uint8_t *src[4] = {rgb, NULL, NULL, NULL};
    int src_stride[4] = {width * 3, 0, 0, 0};
    pm_status status = scale_to_rgb(src, src_stride, width, height, AV_PIX_FMT_RGB24, max_side, out, error, error_size);
    WebPFree(rgb);
    return status;
}

// MARK: JPEG XL

/// The most bytes of an Exif box kept (libexif reads 64 KiB of it anyway).
#define PM_JXL_MAX_EXIF (1 << 20)
/// The size of the pieces a JPEG XL file is fed to libjxl in.
#define PM_JXL_CHUNK (256 * 1024)

/// A libjxl decoder fed from a descriptor: the bytes it has not consumed are kept and topped up.
typedef struct pm_jxl_feed {
    pm_fd_source source;
    uint8_t *buffer;
    size_t held, capacity;
    int at_end;
} pm_jxl_feed;

/// The most unconsumed input held for libjxl (it keeps what it needs of a section itself; this
/// bounds a decoder that asks for more without taking any).
#define PM_JXL_MAX_HELD ((size_t)256 << 20)

/// Gives libjxl more input: -1 on a read error, 0 when the file has no more, 1 otherwise.
static int jxl_feed_more(JxlDecoder *dec, pm_jxl_feed *feed) {
    size_t left = JxlDecoderReleaseInput(dec);
    if (left > 0 && left < feed->held) memmove(feed->buffer, feed->buffer + (feed->held - left), left);
    feed->held = left;
    if (feed->at_end) return 0;
    if (feed->capacity - feed->held < PM_JXL_CHUNK) {
        // libjxl took nothing and wants more: it needs a larger piece at once.
        if (feed->capacity >= PM_JXL_MAX_HELD) return 0;
        uint8_t *grown = realloc(feed->buffer, feed->capacity * 2);
        if (!grown) return 0;
        feed->buffer = grown;
        feed->capacity *= 2;
    }
    ssize_t n = fd_source_read(&feed->source, feed->buffer + feed->held, feed->capacity - feed->held);
    if (n < 0) return -1;
    if (n == 0) feed->at_end = 1;
    feed->held += (size_t)n;
    JxlDecoderSetInput(dec, feed->buffer, feed->held);
    if (feed->at_end) JxlDecoderCloseInput(dec);
    return n > 0 || feed->held > 0 ? 1 : 0;
}

static pm_status jxl_begin(int fd, pm_jxl_feed *feed, JxlDecoder **dec, int events, char *error, size_t error_size) {
    memset(feed, 0, sizeof *feed);
    *dec = NULL;
    pm_status status = open_source(&feed->source, fd, error, error_size);
    if (status != PM_OK) return status;
    feed->capacity = PM_JXL_CHUNK * 2;
    feed->buffer = malloc(feed->capacity);
    *dec = JxlDecoderCreate(NULL);
    if (!feed->buffer || !*dec || JxlDecoderSubscribeEvents(*dec, events) != JXL_DEC_SUCCESS) {
        set_error(error, error_size, "libjxl cannot start a decoder");
        return PM_CORRUPT;
    }
    return PM_OK;
}

static void jxl_end(pm_jxl_feed *feed, JxlDecoder *dec) {
    if (dec) JxlDecoderDestroy(dec);
    free(feed->buffer);
}

pm_status pm_jxl_probe_fd(int fd, pm_jxl_info *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    pm_jxl_feed feed;
    JxlDecoder *dec;
    pm_status status = jxl_begin(fd, &feed, &dec, JXL_DEC_BASIC_INFO | JXL_DEC_BOX, error, error_size);
    uint8_t *exif = NULL;
    size_t exif_capacity = 0;
    int in_exif = 0, have_info = 0;
    if (status != PM_OK) goto done;
    // Brotli-compressed (`brob`) boxes are handed over decompressed; libjxl built without Brotli
    // refuses, and then only bare boxes are read.
    JxlDecoderSetDecompressBoxes(dec, JXL_TRUE);
    uint8_t signature[12];
    ssize_t n = pread(fd, signature, sizeof signature, 0);
    out->is_container = n == 12 && memcmp(signature + 4, "JXL ", 4) == 0;
    for (int steps = 0;; steps++) {
        if (steps > 1000000) { set_error(error, error_size, "libjxl did not finish"); status = PM_CORRUPT; break; }
        JxlDecoderStatus s = JxlDecoderProcessInput(dec);
        if (s == JXL_DEC_NEED_MORE_INPUT) {
            int more = jxl_feed_more(dec, &feed);
            if (more < 0) { set_error(error, error_size, "cannot read it: %s", strerror(errno)); status = PM_UNREADABLE; break; }
            if (more == 0) {
                if (have_info && !in_exif) break;  // a bare codestream's header is all there is to read
                set_error(error, error_size, "the file ends early");
                status = PM_CORRUPT;
                break;
            }
            continue;
        }
        if (s == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo basic;
            if (JxlDecoderGetBasicInfo(dec, &basic) != JXL_DEC_SUCCESS) { set_error(error, error_size, "no readable header"); status = PM_CORRUPT; break; }
            // Orientations 5…8 swap the sides as displayed (libjxl applies them when decoding).
            int swaps = basic.orientation >= JXL_ORIENT_TRANSPOSE;
            out->width = swaps ? basic.ysize : basic.xsize;
            out->height = swaps ? basic.xsize : basic.ysize;
            have_info = 1;
            if (!out->is_container) break;  // a bare codestream (FF 0A) has no boxes
            continue;
        }
        if (s == JXL_DEC_BOX || s == JXL_DEC_SUCCESS) {
            if (in_exif) {
                size_t left = JxlDecoderReleaseBoxBuffer(dec);
                size_t used = exif_capacity - left;
                if (!out->has_exif && used > 4) {
                    size_t offset = (size_t)exif[0] << 24 | (size_t)exif[1] << 16 | (size_t)exif[2] << 8 | exif[3];
                    if (offset < used - 4 && pm_exif_read(exif + 4 + offset, used - 4 - offset, &out->exif) == PM_OK) out->has_exif = 1;
                }
                in_exif = 0;
            }
            if (s == JXL_DEC_SUCCESS) break;
            JxlBoxType type;
            if (!out->has_exif && JxlDecoderGetBoxType(dec, type, JXL_TRUE) == JXL_DEC_SUCCESS && memcmp(type, "Exif", 4) == 0) {
                if (!exif) { exif_capacity = PM_JXL_MAX_EXIF; exif = malloc(exif_capacity); }
                if (exif && JxlDecoderSetBoxBuffer(dec, exif, exif_capacity) == JXL_DEC_SUCCESS) in_exif = 1;
            }
            continue;
        }
        if (s == JXL_DEC_BOX_NEED_MORE_OUTPUT) {
            // An Exif box over 1 MiB: what was read is kept, the rest skipped.
            size_t left = JxlDecoderReleaseBoxBuffer(dec);
            if (!out->has_exif && exif_capacity - left > 4) {
                size_t used = exif_capacity - left;
                size_t offset = (size_t)exif[0] << 24 | (size_t)exif[1] << 16 | (size_t)exif[2] << 8 | exif[3];
                if (offset < used - 4 && pm_exif_read(exif + 4 + offset, used - 4 - offset, &out->exif) == PM_OK) out->has_exif = 1;
            }
            in_exif = 0;
            continue;
        }
        set_error(error, error_size, "libjxl cannot read it (status %d)", (int)s);
        status = s == JXL_DEC_ERROR ? PM_CORRUPT : PM_UNSUPPORTED;
        break;
    }
    if (status == PM_OK && !have_info) { set_error(error, error_size, "no image header"); status = PM_CORRUPT; }
done:
    free(exif);
    jxl_end(&feed, dec);
    return status;
}

pm_status pm_decode_jxl_fd(int fd, int max_side, pm_rgb *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    pm_jxl_feed feed;
    JxlDecoder *dec;
    pm_status status = jxl_begin(fd, &feed, &dec, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE, error, error_size);
    uint8_t *pixels = NULL;
    int width = 0, height = 0;
    JxlPixelFormat format = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    if (status != PM_OK) goto done;
    for (int steps = 0;; steps++) {
        if (steps > 1000000) { set_error(error, error_size, "libjxl did not finish"); status = PM_CORRUPT; break; }
        JxlDecoderStatus s = JxlDecoderProcessInput(dec);
        if (s == JXL_DEC_NEED_MORE_INPUT) {
            int more = jxl_feed_more(dec, &feed);
            if (more < 0) { set_error(error, error_size, "cannot read it: %s", strerror(errno)); status = PM_UNREADABLE; break; }
            if (more == 0) { set_error(error, error_size, "the file ends before its image is whole"); status = PM_CORRUPT; break; }
            continue;
        }
        if (s == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo basic;
            if (JxlDecoderGetBasicInfo(dec, &basic) != JXL_DEC_SUCCESS) { set_error(error, error_size, "no readable header"); status = PM_CORRUPT; break; }
            if (basic.xsize == 0 || basic.ysize == 0 || (int64_t)basic.xsize * basic.ysize > PM_MAX_PIXELS) {
                set_error(error, error_size, "%ux%u is over the %lld-pixel limit or empty", basic.xsize, basic.ysize, PM_MAX_PIXELS);
                status = PM_UNSUPPORTED;
                break;
            }
            continue;
        }
        if (s == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t size = 0;
            JxlBasicInfo basic;
            if (JxlDecoderImageOutBufferSize(dec, &format, &size) != JXL_DEC_SUCCESS || JxlDecoderGetBasicInfo(dec, &basic) != JXL_DEC_SUCCESS) {
                set_error(error, error_size, "libjxl gives no output size");
                status = PM_CORRUPT;
                break;
            }
            int swaps = basic.orientation >= JXL_ORIENT_TRANSPOSE;
            width = (int)(swaps ? basic.ysize : basic.xsize);
            height = (int)(swaps ? basic.xsize : basic.ysize);
            free(pixels);
            pixels = malloc(size);
            if (!pixels || size < (size_t)width * height * 3 || JxlDecoderSetImageOutBuffer(dec, &format, pixels, size) != JXL_DEC_SUCCESS) {
                set_error(error, error_size, "cannot hold its pixels");
                status = PM_CORRUPT;
                break;
            }
            continue;
        }
        if (s == JXL_DEC_FULL_IMAGE) {
            // The first frame (an animation's first) is the preview.
            if (!pixels) { set_error(error, error_size, "libjxl decoded no pixels"); status = PM_CORRUPT; break; }
            const uint8_t *src[4] = {pixels, NULL, NULL, NULL};
            int src_stride[4] = {width * 3, 0, 0, 0};
            status = scale_to_rgb(src, src_stride, width, height, AV_PIX_FMT_RGB24, max_side, out, error, error_size);
            break;
        }
        if (s == JXL_DEC_SUCCESS) { set_error(error, error_size, "libjxl decoded no image"); status = PM_CORRUPT; break; }
        set_error(error, error_size, "libjxl cannot decode it (status %d)", (int)s);
        status = s == JXL_DEC_ERROR ? PM_CORRUPT : PM_UNSUPPORTED;
        break;
    }
done:
    free(pixels);
    jxl_end(&feed, dec);
    return status;
}

// MARK: Encoding

void pm_free(void *pointer) { free(pointer); }

pm_status pm_encode_png(const uint8_t *pixels, int width, int height, uint8_t **out, size_t *out_size, char *error,
                        size_t error_size) {
    pm_quiet_libraries();
    *out = NULL;
    *out_size = 0;
    if (!pixels || width <= 0 || height <= 0) { set_error(error, error_size, "no pixels to encode"); return PM_CORRUPT; }
    const AVCodec *encoder = avcodec_find_encoder(AV_CODEC_ID_PNG);
    if (!encoder) { set_error(error, error_size, "FFmpeg has no PNG encoder"); return PM_UNSUPPORTED; }
    pm_status status = PM_CORRUPT;
    AVCodecContext *codec = avcodec_alloc_context3(encoder);
    AVFrame *frame = av_frame_alloc();
    AVPacket *packet = av_packet_alloc();
    char text[AV_ERROR_MAX_STRING_SIZE] = {0};
    int code = AVERROR(ENOMEM);
    if (!codec || !frame || !packet) goto fail;
    codec->width = width;
    codec->height = height;
    codec->pix_fmt = AV_PIX_FMT_RGB24;
    codec->time_base = (AVRational){1, 1};
    codec->thread_count = 1;
    if ((code = avcodec_open2(codec, encoder, NULL)) < 0) goto fail;
    frame->format = AV_PIX_FMT_RGB24;
    frame->width = width;
    frame->height = height;
    frame->data[0] = (uint8_t *)pixels;  // read only by the encoder
    frame->linesize[0] = width * 3;
    if ((code = avcodec_send_frame(codec, frame)) < 0) goto fail;
    if ((code = avcodec_receive_packet(codec, packet)) < 0) goto fail;
    *out = malloc((size_t)packet->size);
    if (!*out) { code = AVERROR(ENOMEM); goto fail; }
    memcpy(*out, packet->data, (size_t)packet->size);
    *out_size = (size_t)packet->size;
    status = PM_OK;
    goto done;
fail:
    av_strerror(code, text, sizeof text);
    set_error(error, error_size, "FFmpeg cannot encode the PNG: %s", text);
done:
    if (frame) frame->data[0] = NULL;
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&codec);
    return status;
}
