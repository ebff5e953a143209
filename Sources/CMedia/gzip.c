// See media_gzip.h.
#include "media_gzip.h"

#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

static pm_gunzip_status inflate_bounded(int window_bits, const uint8_t *src, size_t length, size_t max_output,
                                        uint8_t **out, size_t *out_length, size_t *failed_at) {
    *out = NULL;
    *out_length = 0;
    *failed_at = 0;
    z_stream stream = {0};
    if (inflateInit2(&stream, window_bits) != Z_OK) return PM_GUNZIP_NO_MEMORY;

    uint8_t *buffer = NULL;
    size_t capacity = 0, used = 0, consumed = 0;
    pm_gunzip_status status = PM_GUNZIP_OK;
    for (;;) {
        if (used == capacity) {
            if (capacity >= max_output) { status = PM_GUNZIP_TOO_LARGE; break; }
            size_t next = capacity == 0 ? 64 * 1024 : capacity * 2;
            if (next > max_output) next = max_output;
            // One byte more than the limit allows telling "exactly the limit" from "over it".
            uint8_t *grown = realloc(buffer, next + 1);
            if (grown == NULL) { status = PM_GUNZIP_NO_MEMORY; break; }
            buffer = grown;
            capacity = next;
        }
        size_t in_chunk = length - consumed;
        if (in_chunk > UINT_MAX) in_chunk = UINT_MAX;
        size_t out_room = (capacity + (capacity >= max_output ? 1 : 0)) - used;
        if (out_room > UINT_MAX) out_room = UINT_MAX;
        stream.next_in = (Bytef *)(src + consumed);
        stream.avail_in = (uInt)in_chunk;
        stream.next_out = buffer + used;
        stream.avail_out = (uInt)out_room;
        int rc = inflate(&stream, Z_NO_FLUSH);
        consumed += in_chunk - stream.avail_in;
        used += out_room - stream.avail_out;
        if (used > max_output) { status = PM_GUNZIP_TOO_LARGE; break; }
        if (rc == Z_STREAM_END) {
            if (window_bits < 0) break;  // a raw deflate stream (a zip entry) is one stream
            // Another gzip member may follow (concatenated files); trailing zero padding ends it.
            size_t rest = consumed;
            while (rest < length && src[rest] == 0) rest++;
            if (rest == length) break;
            if (inflateReset(&stream) != Z_OK) { status = PM_GUNZIP_CORRUPT; break; }
            continue;
        }
        if (rc == Z_OK) continue;
        if (rc == Z_BUF_ERROR && stream.avail_out == 0) continue;  // needs more room: grow
        status = rc == Z_MEM_ERROR ? PM_GUNZIP_NO_MEMORY : PM_GUNZIP_CORRUPT;  // Z_BUF_ERROR: ends early
        break;
    }
    inflateEnd(&stream);
    if (status != PM_GUNZIP_OK) {
        free(buffer);
        *failed_at = consumed;
        return status;
    }
    if (used == 0) { free(buffer); buffer = NULL; }
    *out = buffer;
    *out_length = used;
    return PM_GUNZIP_OK;
}

void pm_gunzip_free(uint8_t *buffer) { free(buffer); }

pm_gunzip_status pm_gunzip(const uint8_t *src, size_t length, size_t max_output,
                           uint8_t **out, size_t *out_length, size_t *failed_at) {
    // 15 + 32: a window of up to 32 KiB, and the gzip or zlib header detected automatically.
    return inflate_bounded(15 + 32, src, length, max_output, out, out_length, failed_at);
}

pm_gunzip_status pm_inflate_raw(const uint8_t *src, size_t length, size_t max_output,
                                uint8_t **out, size_t *out_length, size_t *failed_at) {
    // -15: raw deflate, no header or trailer (the zip entry's own header carries its CRC and sizes).
    return inflate_bounded(-15, src, length, max_output, out, out_length, failed_at);
}

// A raw deflate stream inflated a piece at a time (see media_gzip.h).
struct pm_inflater {
    z_stream stream;
};

pm_inflater *pm_inflater_new(void) {
    pm_inflater *inflater = calloc(1, sizeof *inflater);
    if (inflater == NULL) return NULL;
    // -15: raw deflate, as a zip entry's data (method 8) is.
    if (inflateInit2(&inflater->stream, -15) != Z_OK) {
        free(inflater);
        return NULL;
    }
    return inflater;
}

pm_inflate_step pm_inflater_run(pm_inflater *inflater, const uint8_t *src, size_t length, size_t *consumed,
                                uint8_t *dst, size_t room, size_t *produced) {
    z_stream *stream = &inflater->stream;
    if (length > UINT_MAX) length = UINT_MAX;
    if (room > UINT_MAX) room = UINT_MAX;
    stream->next_in = (Bytef *)src;
    stream->avail_in = (uInt)length;
    stream->next_out = dst;
    stream->avail_out = (uInt)room;
    int rc = inflate(stream, Z_NO_FLUSH);
    *consumed = length - stream->avail_in;
    *produced = room - stream->avail_out;
    switch (rc) {
    case Z_STREAM_END: return PM_INFLATE_END;
    case Z_OK: return PM_INFLATE_MORE;
    case Z_BUF_ERROR: return PM_INFLATE_MORE;  // no progress possible with this input and room: the caller gives more
    case Z_MEM_ERROR: return PM_INFLATE_NO_MEMORY;
    default: return PM_INFLATE_CORRUPT;
    }
}

void pm_inflater_free(pm_inflater *inflater) {
    if (inflater == NULL) return;
    inflateEnd(&inflater->stream);
    free(inflater);
}

uint32_t pm_crc32(uint32_t crc, const uint8_t *bytes, size_t length) {
    while (length > 0) {
        uInt piece = length > UINT_MAX ? UINT_MAX : (uInt)length;
        crc = (uint32_t)crc32(crc, bytes, piece);
        bytes += piece;
        length -= piece;
    }
    return crc;
}
