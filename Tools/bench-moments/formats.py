"""Writers of the real file formats a labelled life is made of, by hand, standard library only.

- JPEG: a tiny baseline (SOF0) JPEG, 4:4:4 YCbCr, every 8x8 block one flat colour (DC-only
  coefficients), with an optional EXIF APP1 segment (TIFF big-endian: IFD0, Exif IFD, GPS IFD) as
  phones write it: Make, Model, Software, DateTime, DateTimeOriginal, SubSecTimeOriginal,
  OffsetTimeOriginal, exposure, GPS latitude/longitude/altitude, GPSDateStamp/GPSTimeStamp (UTC).
- PNG: a palette PNG of any size (screenshots are 1080x2400 but a few hundred bytes).
- MP4/MOV: ftyp, mdat with one Motion-JPEG frame, moov with mvhd (creation time, seconds since
  1904, UTC), one video trak ('jpeg' sample entry) and udta/(c)xyz (ISO 6709 location) as Android's
  MediaMuxer writes it.
- GPX 1.1 (Strava, komoot), TCX v2 (Garmin Connect), iCalendar (Google Calendar), vCard 3.0
  (Google Contacts), Daylio CSV, ListenBrainz JSON Lines, OwnTracks .rec lines.
"""

import datetime as _dt
import io
import json
import math
import os
import struct
import zipfile
import zlib
from xml.sax.saxutils import escape

# ---------------------------------------------------------------- JPEG

_DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]  # ITU T.81 Table K.3 (luminance DC)
_DC_VALUES = list(range(12))
_AC_BITS = [1] + [0] * 15  # one symbol: EOB (0x00), code "0": every block is DC only
_AC_VALUES = [0x00]


def _huffman_codes(bits, values):
    codes, code, k = {}, 0, 0
    for length in range(1, 17):
        for _ in range(bits[length - 1]):
            codes[values[k]] = (code, length)
            code += 1
            k += 1
        code <<= 1
    return codes


_DC_CODES = _huffman_codes(_DC_BITS, _DC_VALUES)
_AC_CODES = _huffman_codes(_AC_BITS, _AC_VALUES)


class _BitWriter:
    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, value, length):
        for i in range(length - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> i) & 1)
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF:
                    self.out.append(0x00)  # byte stuffing
                self.acc, self.n = 0, 0

    def flush(self):
        while self.n:
            self.put(1, 1)  # pad with ones
        return bytes(self.out)


def _segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def _ycbcr(r, g, b):
    y = 0.299 * r + 0.587 * g + 0.114 * b
    cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
    cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
    return y, cb, cr


def jpeg(blocks_wide, blocks_high, colours, exif=None):
    """A baseline JPEG of blocks_wide x blocks_high 8x8 blocks; colours: one (r, g, b) per block, row
    by row (repeated if short). exif: an APP1 payload from ``exif_app1`` or None."""
    width, height = blocks_wide * 8, blocks_high * 8
    out = bytearray(b"\xFF\xD8")
    out += _segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00") if exif is None else b""
    if exif is not None:
        out += _segment(0xE1, exif)
    out += _segment(0xDB, b"\x00" + bytes([8] * 64))  # one quantisation table, all 8
    sof = struct.pack(">BHHB", 8, height, width, 3) + bytes([1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
    out += _segment(0xC0, sof)
    out += _segment(0xC4, bytes([0x00]) + bytes(_DC_BITS) + bytes(_DC_VALUES))
    out += _segment(0xC4, bytes([0x10]) + bytes(_AC_BITS) + bytes(_AC_VALUES))
    out += _segment(0xDA, bytes([3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]))
    bits = _BitWriter()
    previous = [0, 0, 0]
    for index in range(blocks_wide * blocks_high):
        r, g, b = colours[index % len(colours)]
        for component, value in enumerate(_ycbcr(r, g, b)):
            dc = int(round(value - 128))  # 8 * (v - 128) quantised by 8
            diff = dc - previous[component]
            previous[component] = dc
            magnitude = abs(diff)
            size = magnitude.bit_length()
            code, length = _DC_CODES[size]
            bits.put(code, length)
            if size:
                bits.put(diff if diff > 0 else diff + (1 << size) - 1, size)
            code, length = _AC_CODES[0x00]
            bits.put(code, length)
    out += bits.flush()
    out += b"\xFF\xD9"
    return bytes(out)


# ---------------------------------------------------------------- EXIF

_ASCII, _SHORT, _LONG, _RATIONAL, _BYTE, _UNDEFINED, _SRATIONAL = 2, 3, 4, 5, 1, 7, 10


def _rational(value, denominator=10000):
    return (int(round(value * denominator)), denominator)


def _ifd(entries, base, next_offset=0):
    """An IFD at offset `base` (from the TIFF header): entries (tag, type, value); returns its bytes
    (entries, next pointer, then the values that do not fit in four bytes)."""
    entries = sorted(entries, key=lambda e: e[0])
    head_size = 2 + 12 * len(entries) + 4
    data = bytearray()
    body = bytearray(struct.pack(">H", len(entries)))
    for tag, kind, value in entries:
        if kind == _ASCII:
            raw = value.encode("ascii") + b"\x00"
            count = len(raw)
        elif kind == _SHORT:
            values = value if isinstance(value, (list, tuple)) else [value]
            raw = b"".join(struct.pack(">H", v) for v in values)
            count = len(values)
        elif kind == _LONG:
            values = value if isinstance(value, (list, tuple)) else [value]
            raw = b"".join(struct.pack(">I", v) for v in values)
            count = len(values)
        elif kind in (_RATIONAL, _SRATIONAL):
            values = value if isinstance(value, list) else [value]
            fmt = ">II" if kind == _RATIONAL else ">ii"
            raw = b"".join(struct.pack(fmt, n, d) for n, d in values)
            count = len(values)
        elif kind in (_BYTE, _UNDEFINED):
            raw = bytes(value)
            count = len(raw)
        else:
            raise ValueError(kind)
        if len(raw) <= 4:
            field = raw + b"\x00" * (4 - len(raw))
        else:
            field = struct.pack(">I", base + head_size + len(data))
            data += raw
            if len(data) % 2:
                data += b"\x00"
        body += struct.pack(">HHI", tag, kind, count) + field
    body += struct.pack(">I", next_offset)
    return bytes(body + data)


def exif_app1(make=None, model=None, software=None, local=None, offset=None, subsec=None,
              gps=None, utc=None, exposure=True, scan=False):
    """An EXIF APP1 payload ("Exif\\0\\0" + TIFF).

    local: the local datetime (naive) written as DateTime/DateTimeOriginal/DateTimeDigitized;
    offset: "+01:00" for OffsetTime*; gps: (lat, lon, altitude_m) or None; utc: aware UTC datetime
    for GPSDateStamp/GPSTimeStamp; exposure: write ExposureTime/FNumber/ISO (what a camera writes)."""
    ifd0 = []
    if make:
        ifd0.append((0x010F, _ASCII, make))
    if model:
        ifd0.append((0x0110, _ASCII, model))
    ifd0.append((0x0112, _SHORT, 1))
    ifd0.append((0x011A, _RATIONAL, [(72, 1)]))
    ifd0.append((0x011B, _RATIONAL, [(72, 1)]))
    ifd0.append((0x0128, _SHORT, 2))
    if software:
        ifd0.append((0x0131, _ASCII, software))
    stamp = local.strftime("%Y:%m:%d %H:%M:%S") if local else None
    if stamp:
        ifd0.append((0x0132, _ASCII, stamp))
    exif = [(0x9000, _UNDEFINED, b"0232")]
    if exposure:
        exif += [(0x829A, _RATIONAL, [(1, 120)]), (0x829D, _RATIONAL, [(18, 10)]), (0x8827, _SHORT, 100),
                 (0x920A, _RATIONAL, [(554, 100)])]
    if stamp:
        exif += [(0x9003, _ASCII, stamp), (0x9004, _ASCII, stamp)]
        if offset:
            exif += [(0x9010, _ASCII, offset), (0x9011, _ASCII, offset), (0x9012, _ASCII, offset)]
        if subsec:
            exif += [(0x9290, _ASCII, subsec), (0x9291, _ASCII, subsec), (0x9292, _ASCII, subsec)]
    gps_entries = None
    if gps:
        lat, lon, alt = gps

        def dms(value):
            value = abs(value)
            d = int(value)
            m = int((value - d) * 60)
            s = (value - d - m / 60) * 3600
            return [(d, 1), (m, 1), _rational(s, 1000)]

        gps_entries = [(0x0000, _BYTE, [2, 2, 0, 0]),
                       (0x0001, _ASCII, "N" if lat >= 0 else "S"), (0x0002, _RATIONAL, dms(lat)),
                       (0x0003, _ASCII, "E" if lon >= 0 else "W"), (0x0004, _RATIONAL, dms(lon)),
                       (0x0005, _BYTE, [0 if alt >= 0 else 1]), (0x0006, _RATIONAL, [_rational(abs(alt), 100)])]
        if utc is not None:
            gps_entries += [(0x0007, _RATIONAL, [(utc.hour, 1), (utc.minute, 1), (utc.second, 1)]),
                            (0x001D, _ASCII, utc.strftime("%Y:%m:%d"))]
    # Layout: header (8) | IFD0 | Exif IFD | GPS IFD. Sizes are computed by building twice.
    pointer_entries = [(0x8769, _LONG, 0)] + ([(0x8825, _LONG, 0)] if gps_entries else [])
    first = _ifd(ifd0 + pointer_entries, 8)
    exif_at = 8 + len(first)
    exif_bytes = _ifd(exif, exif_at)
    gps_at = exif_at + len(exif_bytes)
    pointers = [(0x8769, _LONG, exif_at)] + ([(0x8825, _LONG, gps_at)] if gps_entries else [])
    first = _ifd(ifd0 + pointers, 8)
    assert 8 + len(first) == exif_at
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + first + exif_bytes
    if gps_entries:
        tiff += _ifd(gps_entries, gps_at)
    return b"Exif\x00\x00" + tiff


# ---------------------------------------------------------------- PNG

def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width, height, rgb=(240, 240, 245), bar=(30, 30, 40), text_chunks=None):
    """A 1-bit palette PNG: a light screen with a dark status bar (a screenshot's look)."""
    row_bytes = (width + 7) // 8
    light = b"\x00" + b"\x00" * row_bytes
    dark = b"\x00" + b"\xFF" * row_bytes
    bar_rows = max(1, height // 30)
    raw = dark * bar_rows + light * (height - bar_rows)
    out = b"\x89PNG\r\n\x1a\n"
    out += _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 1, 3, 0, 0, 0))
    out += _chunk(b"PLTE", bytes(rgb) + bytes(bar))
    for key, value in (text_chunks or {}).items():
        out += _chunk(b"tEXt", key.encode("latin-1") + b"\x00" + value.encode("latin-1"))
    out += _chunk(b"IDAT", zlib.compress(raw, 9))
    out += _chunk(b"IEND", b"")
    return out


# ---------------------------------------------------------------- MP4 / MOV

_EPOCH_1904 = _dt.datetime(1904, 1, 1, tzinfo=_dt.timezone.utc)


def _box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def _full(kind, version, flags, payload):
    return _box(kind, bytes([version]) + flags.to_bytes(3, "big") + payload)


_MATRIX = struct.pack(">9I", 0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000)


def mp4(created_utc, duration_s, frame, width, height, location=None, quicktime=False, make=None, model=None):
    """A one-frame Motion-JPEG movie. created_utc: aware datetime (mvhd/tkhd/mdhd creation time);
    frame: a JPEG; location: (lat, lon, alt) written as udta/(c)xyz ISO 6709; quicktime: a .MOV
    ('qt  ' brand) instead of an MP4 ('isom')."""
    seconds = int((created_utc - _EPOCH_1904).total_seconds())
    duration = int(duration_s * 1000)
    if quicktime:
        ftyp = _box(b"ftyp", b"qt  " + struct.pack(">I", 0) + b"qt  ")
    else:
        ftyp = _box(b"ftyp", b"isom" + struct.pack(">I", 512) + b"isomiso2mp41")
    mdat_header = struct.pack(">I", 8 + len(frame)) + b"mdat"
    frame_offset = len(ftyp) + len(mdat_header)
    mvhd = _full(b"mvhd", 0, 0, struct.pack(">IIII", seconds, seconds, 1000, duration) + struct.pack(">IH", 0x00010000, 0x0100)
                 + b"\x00" * 10 + _MATRIX + b"\x00" * 24 + struct.pack(">I", 2))
    tkhd = _full(b"tkhd", 0, 3, struct.pack(">IIIII", seconds, seconds, 1, 0, duration) + b"\x00" * 8
                 + struct.pack(">hhhH", 0, 0, 0, 0) + _MATRIX + struct.pack(">II", width << 16, height << 16))
    mdhd = _full(b"mdhd", 0, 0, struct.pack(">IIIIHH", seconds, seconds, 1000, duration, 0x55C4, 0))
    hdlr = _full(b"hdlr", 0, 0, struct.pack(">I", 0) + b"vide" + b"\x00" * 12 + b"VideoHandle\x00")
    vmhd = _full(b"vmhd", 0, 1, b"\x00" * 8)
    dinf = _box(b"dinf", _full(b"dref", 0, 0, struct.pack(">I", 1) + _full(b"url ", 0, 1, b"")))
    compressor = b"\x0cPhoto - JPEG" + b"\x00" * 19
    entry = _box(b"jpeg", b"\x00" * 6 + struct.pack(">H", 1) + b"\x00" * 16 + struct.pack(">HHII", width, height, 0x00480000, 0x00480000)
                 + struct.pack(">IH", 0, 1) + compressor + struct.pack(">Hh", 24, -1))
    stsd = _full(b"stsd", 0, 0, struct.pack(">I", 1) + entry)
    stts = _full(b"stts", 0, 0, struct.pack(">III", 1, 1, duration))
    stsc = _full(b"stsc", 0, 0, struct.pack(">IIII", 1, 1, 1, 1))
    stsz = _full(b"stsz", 0, 0, struct.pack(">III", 0, 1, len(frame)))
    stco = _full(b"stco", 0, 0, struct.pack(">II", 1, frame_offset))
    stbl = _box(b"stbl", stsd + stts + stsc + stsz + stco)
    minf = _box(b"minf", vmhd + dinf + stbl)
    mdia = _box(b"mdia", mdhd + hdlr + minf)
    trak = _box(b"trak", tkhd + mdia)
    udta_payload = b""
    if location:
        lat, lon, alt = location
        text = ("%+08.4f%+09.4f%+.1f/" % (lat, lon, alt)).encode("ascii")
        udta_payload += _box(b"\xa9xyz", struct.pack(">HH", len(text), 0x15C7) + text)
    for tag, value in ((b"\xa9mak", make), (b"\xa9mod", model)):
        if value:
            text = value.encode("utf-8")
            udta_payload += _box(tag, struct.pack(">HH", len(text), 0x15C7) + text)
    moov = _box(b"moov", mvhd + trak + (_box(b"udta", udta_payload) if udta_payload else b""))
    return ftyp + mdat_header + frame + moov


# ---------------------------------------------------------------- GPX / TCX

def _t(t):
    return _dt.datetime.fromtimestamp(round(t), _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def gpx_strava(name, activity_type, points):
    """Strava's "Export GPX": points (t, lat, lon, ele, hr)."""
    out = io.StringIO()
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write('<gpx creator="StravaGPX" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
              'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd '
              'http://www.garmin.com/xmlschemas/GpxExtensions/v3 http://www.garmin.com/xmlschemas/GpxExtensionsv3.xsd '
              'http://www.garmin.com/xmlschemas/TrackPointExtension/v1 http://www.garmin.com/xmlschemas/TrackPointExtensionv1.xsd" '
              'version="1.1" xmlns="http://www.topografix.com/GPX/1/1" '
              'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" '
              'xmlns:gpxx="http://www.garmin.com/xmlschemas/GpxExtensions/v3">\n')
    out.write(' <metadata>\n  <time>%s</time>\n </metadata>\n' % _t(points[0][0]))
    out.write(' <trk>\n  <name>%s</name>\n  <type>%s</type>\n  <trkseg>\n' % (escape(name), activity_type))
    for t, lat, lon, ele, hr in points:
        out.write('   <trkpt lat="%.7f" lon="%.7f">\n    <ele>%.1f</ele>\n    <time>%s</time>\n' % (lat, lon, ele, _t(t)))
        if hr:
            out.write('    <extensions>\n     <gpxtpx:TrackPointExtension>\n      <gpxtpx:hr>%d</gpxtpx:hr>\n'
                      '     </gpxtpx:TrackPointExtension>\n    </extensions>\n' % hr)
        out.write('   </trkpt>\n')
    out.write('  </trkseg>\n </trk>\n</gpx>\n')
    return out.getvalue()


def gpx_komoot(name, points):
    """komoot's GPX export of a recorded tour (no activity type in the file)."""
    out = io.StringIO()
    out.write("<?xml version='1.0' encoding='UTF-8'?>\n")
    out.write('<gpx version="1.1" creator="https://www.komoot.de" xmlns="http://www.topografix.com/GPX/1/1" '
              'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
              'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">\n')
    out.write('  <metadata>\n    <name>%s</name>\n    <author>\n      <link href="https://www.komoot.de">\n'
              '        <text>komoot</text>\n        <type>text/html</type>\n      </link>\n    </author>\n  </metadata>\n' % escape(name))
    out.write('  <trk>\n    <name>%s</name>\n    <trkseg>\n' % escape(name))
    for t, lat, lon, ele, _hr in points:
        out.write('      <trkpt lat="%.6f" lon="%.6f">\n        <ele>%.6f</ele>\n        <time>%s</time>\n      </trkpt>\n'
                  % (lat, lon, ele, _dt.datetime.fromtimestamp(round(t), _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")))
    out.write('    </trkseg>\n  </trk>\n</gpx>\n')
    return out.getvalue()


def tcx_garmin_indoor(sport, beats, calories):
    """Garmin Connect's "Export to TCX" of an indoor activity (strength training is Sport "Other"):
    one lap whose Trackpoints hold only the time and heart rate (no Position, no distance); beats
    are (t, bpm)."""
    start, end = beats[0][0], beats[-1][0]
    stamp = lambda t: _dt.datetime.fromtimestamp(round(t), _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")  # noqa: E731
    out = io.StringIO()
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write('<TrainingCenterDatabase\n  xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 '
              'http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd"\n'
              '  xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2"\n'
              '  xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"\n'
              '  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n')
    out.write('  <Activities>\n    <Activity Sport="%s">\n      <Id>%s</Id>\n      <Lap StartTime="%s">\n' % (sport, stamp(start), stamp(start)))
    hrs = [b for _, b in beats]
    out.write('        <TotalTimeSeconds>%.1f</TotalTimeSeconds>\n        <DistanceMeters>0.0</DistanceMeters>\n'
              '        <Calories>%d</Calories>\n' % (end - start, calories))
    out.write('        <AverageHeartRateBpm>\n          <Value>%d</Value>\n        </AverageHeartRateBpm>\n'
              '        <MaximumHeartRateBpm>\n          <Value>%d</Value>\n        </MaximumHeartRateBpm>\n'
              % (round(sum(hrs) / len(hrs)), max(hrs)))
    out.write('        <Intensity>Active</Intensity>\n        <TriggerMethod>Manual</TriggerMethod>\n        <Track>\n')
    for t, bpm in beats:
        out.write('          <Trackpoint>\n            <Time>%s</Time>\n            <HeartRateBpm>\n'
                  '              <Value>%d</Value>\n            </HeartRateBpm>\n          </Trackpoint>\n' % (stamp(t), bpm))
    out.write('        </Track>\n      </Lap>\n      <Creator xsi:type="Device_t">\n        <Name>Forerunner 255</Name>\n'
              '      </Creator>\n    </Activity>\n  </Activities>\n</TrainingCenterDatabase>\n')
    return out.getvalue()


def tcx_garmin(sport, points, distances, calories, steps):
    """Garmin Connect's "Export to TCX": one activity, one lap; points (t, lat, lon, ele, hr) with the
    device's cumulative DistanceMeters (its own filtered distance)."""
    start, end = points[0][0], points[-1][0]
    total = distances[-1]
    hrs = [p[4] for p in points if p[4]]
    out = io.StringIO()
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write('<TrainingCenterDatabase\n  xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 '
              'http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd"\n'
              '  xmlns:ns5="http://www.garmin.com/xmlschemas/ActivityGoals/v1"\n'
              '  xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2"\n'
              '  xmlns:ns2="http://www.garmin.com/xmlschemas/UserProfile/v2"\n'
              '  xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"\n'
              '  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ns4="http://www.garmin.com/xmlschemas/ProfileExtension/v1">\n')
    stamp = _dt.datetime.fromtimestamp(round(start), _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    out.write('  <Activities>\n    <Activity Sport="%s">\n      <Id>%s</Id>\n      <Lap StartTime="%s">\n' % (sport, stamp, stamp))
    out.write('        <TotalTimeSeconds>%.1f</TotalTimeSeconds>\n        <DistanceMeters>%.1f</DistanceMeters>\n'
              '        <MaximumSpeed>%.3f</MaximumSpeed>\n        <Calories>%d</Calories>\n'
              % (end - start, total, 4.1, calories))
    if hrs:
        out.write('        <AverageHeartRateBpm>\n          <Value>%d</Value>\n        </AverageHeartRateBpm>\n'
                  '        <MaximumHeartRateBpm>\n          <Value>%d</Value>\n        </MaximumHeartRateBpm>\n'
                  % (round(sum(hrs) / len(hrs)), max(hrs)))
    out.write('        <Intensity>Active</Intensity>\n        <TriggerMethod>Manual</TriggerMethod>\n        <Track>\n')
    for (t, lat, lon, ele, hr), d in zip(points, distances):
        out.write('          <Trackpoint>\n            <Time>%s</Time>\n            <Position>\n'
                  '              <LatitudeDegrees>%.14f</LatitudeDegrees>\n              <LongitudeDegrees>%.14f</LongitudeDegrees>\n'
                  '            </Position>\n            <AltitudeMeters>%.1f</AltitudeMeters>\n            <DistanceMeters>%.2f</DistanceMeters>\n'
                  % (_dt.datetime.fromtimestamp(round(t), _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z"), lat, lon, ele, d))
        if hr:
            out.write('            <HeartRateBpm>\n              <Value>%d</Value>\n            </HeartRateBpm>\n' % hr)
        out.write('          </Trackpoint>\n')
    out.write('        </Track>\n        <Extensions>\n          <ns3:LX>\n            <ns3:AvgSpeed>%.3f</ns3:AvgSpeed>\n'
              '            <ns3:Steps>%d</ns3:Steps>\n          </ns3:LX>\n        </Extensions>\n      </Lap>\n'
              % (total / max(1.0, end - start), steps))
    out.write('      <Creator xsi:type="Device_t">\n        <Name>Forerunner 255</Name>\n        <UnitId>3441234567</UnitId>\n'
              '        <ProductID>3992</ProductID>\n        <Version>\n          <VersionMajor>20</VersionMajor>\n'
              '          <VersionMinor>26</VersionMinor>\n          <BuildMajor>0</BuildMajor>\n          <BuildMinor>0</BuildMinor>\n'
              '        </Version>\n      </Creator>\n    </Activity>\n  </Activities>\n')
    out.write('  <Author xsi:type="Application_t">\n    <Name>Connect Api</Name>\n    <Build>\n      <Version>\n'
              '        <VersionMajor>0</VersionMajor>\n        <VersionMinor>0</VersionMinor>\n        <BuildMajor>0</BuildMajor>\n'
              '        <BuildMinor>0</BuildMinor>\n      </Version>\n    </Build>\n    <LangID>en</LangID>\n'
              '    <PartNumber>006-D2449-00</PartNumber>\n  </Author>\n</TrainingCenterDatabase>\n')
    return out.getvalue()


# ---------------------------------------------------------------- iCalendar / vCard

def ics_fold(line):
    """RFC 5545 line folding at 75 octets."""
    raw = line.encode("utf-8")
    if len(raw) <= 75:
        return line + "\r\n"
    parts, current = [], b""
    for ch in line:
        b = ch.encode("utf-8")
        if len(current) + len(b) > (75 if not parts else 74):
            parts.append(current)
            current = b""
        current += b
    parts.append(current)
    return "\r\n ".join(p.decode("utf-8") for p in parts) + "\r\n"


def ics_text(value):
    return value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


# VTIMEZONE blocks as Google Calendar exports them.
VTIMEZONES = {
    "Europe/Berlin": [
        "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "X-LIC-LOCATION:Europe/Berlin",
        "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST", "DTSTART:19700329T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
        "BEGIN:STANDARD", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET", "DTSTART:19701025T030000",
        "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD", "END:VTIMEZONE"],
    "Asia/Tokyo": [
        "BEGIN:VTIMEZONE", "TZID:Asia/Tokyo", "X-LIC-LOCATION:Asia/Tokyo",
        "BEGIN:STANDARD", "TZOFFSETFROM:+0900", "TZOFFSETTO:+0900", "TZNAME:JST", "DTSTART:19700101T000000",
        "END:STANDARD", "END:VTIMEZONE"],
    "Australia/Melbourne": [
        "BEGIN:VTIMEZONE", "TZID:Australia/Melbourne", "X-LIC-LOCATION:Australia/Melbourne",
        "BEGIN:STANDARD", "TZOFFSETFROM:+1100", "TZOFFSETTO:+1000", "TZNAME:AEST", "DTSTART:19700405T030000",
        "RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU", "END:STANDARD",
        "BEGIN:DAYLIGHT", "TZOFFSETFROM:+1000", "TZOFFSETTO:+1100", "TZNAME:AEDT", "DTSTART:19701004T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU", "END:DAYLIGHT", "END:VTIMEZONE"],
    "Europe/London": [
        "BEGIN:VTIMEZONE", "TZID:Europe/London", "X-LIC-LOCATION:Europe/London",
        "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0000", "TZOFFSETTO:+0100", "TZNAME:BST", "DTSTART:19700329T010000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
        "BEGIN:STANDARD", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0000", "TZNAME:GMT", "DTSTART:19701025T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD", "END:VTIMEZONE"],
}


def ics_calendar(zone, owner_email, events):
    """Google Calendar's export of one calendar. events: dicts with uid, summary, location, start
    and end (naive local datetimes, or dates for all-day), rrule, attendees [(name, email)], created (UTC epoch)."""
    lines = ["BEGIN:VCALENDAR", "PRODID:-//Google Inc//Google Calendar 70.9054//EN", "VERSION:2.0", "CALSCALE:GREGORIAN",
             "METHOD:PUBLISH", "X-WR-CALNAME:" + owner_email, "X-WR-TIMEZONE:" + zone]
    lines += VTIMEZONES[zone]
    for e in events:
        lines.append("BEGIN:VEVENT")
        if isinstance(e["start"], _dt.datetime):
            lines.append("DTSTART;TZID=%s:%s" % (zone, e["start"].strftime("%Y%m%dT%H%M%S")))
            lines.append("DTEND;TZID=%s:%s" % (zone, e["end"].strftime("%Y%m%dT%H%M%S")))
        else:
            lines.append("DTSTART;VALUE=DATE:%s" % e["start"].strftime("%Y%m%d"))
            lines.append("DTEND;VALUE=DATE:%s" % e["end"].strftime("%Y%m%d"))
        if e.get("rrule"):
            lines.append("RRULE:" + e["rrule"])
        created = _dt.datetime.fromtimestamp(e["created"], _dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        lines.append("DTSTAMP:" + created)
        lines.append("ORGANIZER;CN=%s:mailto:%s" % (owner_email, owner_email))
        lines.append("UID:" + e["uid"])
        for name, email in e.get("attendees", []):
            lines.append("ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;CN=%s;X-NUM-GUESTS=0:mailto:%s" % (name, email))
        lines.append("ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE;CN=%s;X-NUM-GUESTS=0:mailto:%s"
                     % (owner_email, owner_email))
        lines.append("CREATED:" + created)
        lines.append("DESCRIPTION:" + ics_text(e.get("description", "")))
        lines.append("LAST-MODIFIED:" + created)
        lines.append("LOCATION:" + ics_text(e.get("location", "")))
        lines.append("SEQUENCE:0")
        lines.append("STATUS:CONFIRMED")
        lines.append("SUMMARY:" + ics_text(e["summary"]))
        lines.append("TRANSP:" + ("TRANSPARENT" if not isinstance(e["start"], _dt.datetime) else "OPAQUE"))
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return "".join(ics_fold(l) for l in lines)


def vcards(cards):
    """Google Contacts' "Export → vCard": cards dicts with name (given, family), email, phone, birthday, org."""
    out = []
    for c in cards:
        out += ["BEGIN:VCARD", "VERSION:3.0", "FN:%s %s" % (c["given"], c["family"]), "N:%s;%s;;;" % (c["family"], c["given"])]
        if c.get("email"):
            out.append("EMAIL;TYPE=INTERNET;TYPE=HOME:" + c["email"])
        if c.get("phone"):
            out.append("TEL;TYPE=CELL:" + c["phone"])
        if c.get("birthday"):
            out.append("BDAY:" + c["birthday"])
        if c.get("org"):
            out.append("ORG:" + c["org"])
        out += ["CATEGORIES:myContacts", "END:VCARD"]
    return "\r\n".join(out) + "\r\n"


# ---------------------------------------------------------------- zip

def deterministic_zip(members):
    """A zip of (name, bytes) members with fixed timestamps (deterministic bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return buffer.getvalue()


# ---------------------------------------------------------------- Apple Health (Health app → Export All Health Data)

# Apple's DTD as an export.xml carries it (Tools/lib/apple-health-doctype.xml, shared with the importer tests' fixtures).
HEALTH_DOCTYPE = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "apple-health-doctype.xml")).read().rstrip("\n")


def health_date(t, zone):
    """Health's dates: local time with the offset, "2026-10-13 07:05:12 +0100"."""
    return _dt.datetime.fromtimestamp(round(t), zone).strftime("%Y-%m-%d %H:%M:%S %z")


def health_export_xml(zone, export_t, records, workouts):
    """export.xml as the Health app writes it: the DOCTYPE with its internal subset, `Me`, records a
    line each (grouped by type, in time order), then workouts with their statistics, events,
    metadata and route reference. records: (type, unit, source, device, start, end, value);
    workouts: dicts with activity (HKWorkoutActivityType…), start, end, distance_m, kcal, hr, source,
    device, route (path under the export) and timezone."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', HEALTH_DOCTYPE, '<HealthData locale="en_GB">',
           ' <ExportDate value="%s"/>' % health_date(export_t, zone),
           ' <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-04-02" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" '
           'HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" '
           'HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>']
    for kind, unit, source, device, start, end, value in sorted(records, key=lambda r: (r[0], r[4], r[2])):
        dev = ' device="%s"' % escape(device, {'"': "&quot;"}) if device else ""
        out.append(' <Record type="%s" sourceName="%s" sourceVersion="18.0.1"%s unit="%s" creationDate="%s" startDate="%s" endDate="%s" value="%s"/>'
                   % (kind, escape(source), dev, unit, health_date(end + 30, zone), health_date(start, zone), health_date(end, zone), value))
    for w in sorted(workouts, key=lambda w: w["start"]):
        span = 'startDate="%s" endDate="%s"' % (health_date(w["start"], zone), health_date(w["end"], zone))
        dev = ' device="%s"' % escape(w["device"], {'"': "&quot;"}) if w.get("device") else ""
        out.append(' <Workout workoutActivityType="%s" duration="%.6f" durationUnit="min" sourceName="%s" sourceVersion="11.0"%s '
                   'creationDate="%s" %s>' % (w["activity"], (w["end"] - w["start"]) / 60, escape(w["source"]), dev,
                                              health_date(w["end"] + 12, zone), span))
        out.append('  <MetadataEntry key="HKIndoorWorkout" value="0"/>')
        out.append('  <MetadataEntry key="HKTimeZone" value="%s"/>' % w["timezone"])
        out.append('  <MetadataEntry key="HKWeatherTemperature" value="%d degF"/>' % w.get("temperature_f", 52))
        out.append('  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="%s" duration="%.6f" durationUnit="min"/>'
                   % (health_date(w["start"], zone), min(6.5, (w["end"] - w["start"]) / 60)))
        out.append('  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" %s sum="%.3f" unit="kcal"/>' % (span, w["kcal"]))
        out.append('  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" %s sum="%.6f" unit="km"/>'
                   % (span, w["distance_m"] / 1000))
        out.append('  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" %s average="%.2f" minimum="%d" maximum="%d" unit="count/min"/>'
                   % (span, w["hr"], w["hr"] - 30, w["hr"] + 18))
        if w.get("route"):
            out.append('  <WorkoutRoute sourceName="%s" sourceVersion="11.0" creationDate="%s" %s>'
                       % (escape(w["source"]), health_date(w["end"] + 40, zone), span))
            out.append('   <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>')
            out.append('   <MetadataEntry key="HKMetadataKeySyncIdentifier" value="%s"/>' % w["sync_id"])
            out.append('   <FileReference path="/%s"/>' % w["route"])
            out.append('  </WorkoutRoute>')
        out.append(' </Workout>')
    out += ['</HealthData>', '']
    return "\n".join(out)


def health_route_gpx(name, points, export_t):
    """A workout route as the Health export writes it (workout-routes/route_…gpx): GPX 1.1 with
    speed, course and accuracies per point; points (t, lat, lon, ele, hr)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" '
           'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
           'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">',
           '  <metadata>', '    <time>%s</time>' % _t(export_t), '  </metadata>', '  <trk>', '    <name>%s</name>' % escape(name),
           '    <trkseg>']
    previous = None
    for t, lat, lon, ele, _hr in points:
        speed = 0.0
        if previous is not None and t > previous[0]:
            dy = (lat - previous[1]) * 111_195
            dx = (lon - previous[2]) * 111_195 * math.cos(math.radians(lat))
            speed = math.hypot(dx, dy) / (t - previous[0])
        out.append('      <trkpt lon="%.6f" lat="%.6f"><ele>%.6f</ele><time>%s</time><extensions><speed>%.6f</speed>'
                   '<course>-1.000000</course><hAcc>%.6f</hAcc><vAcc>%.6f</vAcc></extensions></trkpt>'
                   % (lon, lat, ele, _t(t), speed, 2.5 + (int(t) % 7) * 0.4, 1.6 + (int(t) % 5) * 0.3))
        previous = (t, lat, lon)
    out += ['    </trkseg>', '  </trk>', '</gpx>', '']
    return "\n".join(out)


# ---------------------------------------------------------------- Gadgetbridge (Settings → Data management → Export DB)

GADGETBRIDGE_DDL = [
    'CREATE TABLE "DEVICE" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT NOT NULL ,"MANUFACTURER" TEXT NOT NULL ,'
    '"IDENTIFIER" TEXT NOT NULL UNIQUE ,"TYPE" INTEGER NOT NULL ,"MODEL" TEXT,"ALIAS" TEXT)',
    'CREATE TABLE "USER" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT NOT NULL ,"BIRTHDAY" INTEGER NOT NULL ,"GENDER" INTEGER NOT NULL )',
    'CREATE TABLE "BASE_ACTIVITY_SUMMARY" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT,"START_TIME" INTEGER NOT NULL ,'
    '"END_TIME" INTEGER NOT NULL ,"ACTIVITY_KIND" INTEGER NOT NULL ,"BASE_LONGITUDE" INTEGER,"BASE_LATITUDE" INTEGER,'
    '"BASE_ALTITUDE" INTEGER,"GPX_TRACK" TEXT,"RAW_DETAILS_PATH" TEXT,"DEVICE_ID" INTEGER NOT NULL ,"USER_ID" INTEGER NOT NULL ,'
    '"SUMMARY_DATA" TEXT,"RAW_SUMMARY_DATA" BLOB)',
    'CREATE TABLE "MI_BAND_ACTIVITY_SAMPLE" ("TIMESTAMP" INTEGER NOT NULL ,"DEVICE_ID" INTEGER NOT NULL ,"USER_ID" INTEGER NOT NULL ,'
    '"RAW_INTENSITY" INTEGER NOT NULL ,"STEPS" INTEGER NOT NULL ,"RAW_KIND" INTEGER NOT NULL ,"HEART_RATE" INTEGER NOT NULL ,'
    'PRIMARY KEY ("TIMESTAMP" ,"DEVICE_ID" ) ON CONFLICT REPLACE) WITHOUT ROWID',
]


def gadgetbridge_db(path, device, user, workouts, samples):
    """Gadgetbridge's database export (a SQLite file named Gadgetbridge, greenDAO's DDL as its
    GBDaoGenerator declares it). workouts: (name or None, start_ms, end_ms, kind, track path on the
    phone, summary JSON); samples: (unix seconds, steps, raw kind, heart rate) of one Huami device."""
    import sqlite3
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    for ddl in GADGETBRIDGE_DDL:
        db.execute(ddl)
    db.execute('INSERT INTO DEVICE VALUES (1, ?, "Huami", ?, 11, "", NULL)', (device, "C8:0F:10:4B:2A:91"))
    db.execute('INSERT INTO USER VALUES (1, ?, 639014400000, 0)', (user,))
    for i, (name, start, end, kind, track, summary) in enumerate(workouts, 1):
        db.execute('INSERT INTO BASE_ACTIVITY_SUMMARY (_id, NAME, START_TIME, END_TIME, ACTIVITY_KIND, GPX_TRACK, DEVICE_ID, USER_ID, '
                   'SUMMARY_DATA) VALUES (?, ?, ?, ?, ?, ?, 1, 1, ?)', (i, name, start, end, kind, track, summary))
    db.executemany('INSERT INTO MI_BAND_ACTIVITY_SAMPLE VALUES (?, 1, 1, ?, ?, ?, ?)',
                   [(ts, min(255, steps), steps, kind, hr) for ts, steps, kind, hr in samples])
    db.commit()
    db.close()


def gpx_gadgetbridge(name, points):
    """A workout's track as Gadgetbridge's GPX exporter writes it (files/gadgetbridge-track-….gpx):
    points (t, lat, lon, ele, hr), heart rate in Garmin's TrackPointExtension."""
    out = io.StringIO()
    out.write('<?xml version="1.0" encoding="UTF-8" standalone="no" ?>\n')
    out.write('<gpx xmlns="http://www.topografix.com/GPX/1/1" '
              'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" version="1.1" creator="Gadgetbridge">\n')
    out.write('  <metadata>\n    <name>%s</name>\n    <author>\n      <name>Gadgetbridge</name>\n    </author>\n'
              '    <time>%s</time>\n  </metadata>\n' % (escape(name), _t(points[0][0])))
    out.write('  <trk>\n    <name>%s</name>\n    <trkseg>\n' % escape(name))
    for t, lat, lon, ele, hr in points:
        out.write('      <trkpt lat="%.7f" lon="%.7f">\n        <ele>%.1f</ele>\n        <time>%s</time>\n' % (lat, lon, ele, _t(t)))
        if hr:
            out.write('        <extensions>\n          <gpxtpx:TrackPointExtension>\n            <gpxtpx:hr>%d</gpxtpx:hr>\n'
                      '          </gpxtpx:TrackPointExtension>\n        </extensions>\n' % hr)
        out.write('      </trkpt>\n')
    out.write('    </trkseg>\n  </trk>\n</gpx>\n')
    return out.getvalue()


# ---------------------------------------------------------------- Google Photos Takeout (issue 41)

# The sidecar's suffix, and the length Takeout cuts a sidecar's whole file name to: a name that would
# be longer loses the end of "supplemental-metadata" (".supplemental-metada.json", ".supplemental-me.json",
# "..json"), as community tools that read Takeouts document it (e.g. gphotos-321sync's
# Google_Takeout_Structure.md); the media file's own name is never cut.
TAKEOUT_SUFFIX = "supplemental-metadata"
TAKEOUT_NAME_LIMIT = 51


def takeout_sidecar_name(media_name, duplicate=None):
    """The sidecar's file name for `media_name` (a base name): NAME.supplemental-metadata.json, cut to
    51 characters; `duplicate` k (the media file was written NAME(k).ext because the name was taken)
    puts "(k)" before ".json", as Takeout does."""
    room = TAKEOUT_NAME_LIMIT - len(media_name) - len(".") - len(".json")
    suffix = TAKEOUT_SUFFIX[:max(0, room)]
    return "%s.%s%s.json" % (media_name, suffix, "(%d)" % duplicate if duplicate else "")


def _takeout_time(t):
    utc = _dt.datetime.fromtimestamp(int(t), _dt.timezone.utc)
    hour = utc.hour % 12 or 12
    return {"timestamp": str(int(t)),
            "formatted": "%s %d, %d, %d:%02d:%02d %s UTC" % (utc.strftime("%b"), utc.day, utc.year, hour, utc.minute,
                                                              utc.second, "AM" if utc.hour < 12 else "PM")}


def _takeout_geo(place):
    lat, lon, alt = place if place else (0.0, 0.0, 0.0)
    return {"latitude": round(lat, 7), "longitude": round(lon, 7), "altitude": round(alt, 1), "latitudeSpan": 0.0,
            "longitudeSpan": 0.0}


def takeout_sidecar(title, taken, uploaded, place, exif_place, people=(), description="", views=0, folder="Camera", url_id=""):
    """A Google Photos sidecar as Takeout writes it (two-space indented JSON, Google's key order):
    taken/uploaded are epoch seconds (photoTakenTime, creationTime); place is what Google holds now
    (geoData: the person may have moved it), exif_place what the uploaded file's EXIF said
    (geoDataExif); either None for 0.0/0.0, Google's "no place"; folder: the phone's folder it was
    backed up from, None for a file uploaded from a computer."""
    out = {"title": title, "description": description, "imageViews": str(views),
           "creationTime": _takeout_time(uploaded), "photoTakenTime": _takeout_time(taken),
           "geoData": _takeout_geo(place), "geoDataExif": _takeout_geo(exif_place)}
    if people:
        out["people"] = [{"name": name} for name in people]
    out["url"] = "https://photos.google.com/photo/AF1Qip" + url_id
    out["googlePhotosOrigin"] = ({"mobileUpload": {"deviceFolder": {"localFolderName": folder}, "deviceType": "ANDROID_PHONE"}}
                                 if folder is not None else {"webUpload": {"computerUpload": {}}})
    return json.dumps(out, indent=2, ensure_ascii=False)


def takeout_album_metadata(title, t, description=""):
    """An album folder's metadata.json."""
    return json.dumps({"title": title, "description": description, "access": "protected", "date": _takeout_time(t)},
                      indent=2, ensure_ascii=False)


# ---------------------------------------------------------------- Spotify (issue 41)

def spotify_extended_play(end, ms_played, platform="android", country="DE", track=None, episode=None,
                          reason_start="trackdone", reason_end="trackdone", shuffle=False, skipped=False,
                          incognito=False, offline=False):
    """One play of Spotify's Extended Streaming History, with the fields in the order of the files
    Spotify sends since 2023: ts is the END of the play (UTC), track (artist, title, album, uri) or
    episode (show, title, uri)."""
    artist, title, album, uri = track if track else (None, None, None, None)
    show, episode_title, episode_uri = episode if episode else (None, None, None)
    return {"ts": _dt.datetime.fromtimestamp(int(end), _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "platform": platform, "ms_played": int(ms_played), "conn_country": country, "ip_addr": "203.0.113.%d" % (int(end) % 250 + 1),
            "master_metadata_track_name": title, "master_metadata_album_artist_name": artist,
            "master_metadata_album_album_name": album, "spotify_track_uri": uri,
            "episode_name": episode_title, "episode_show_name": show, "spotify_episode_uri": episode_uri,
            "audiobook_title": None, "audiobook_uri": None, "audiobook_chapter_uri": None, "audiobook_chapter_title": None,
            "reason_start": reason_start, "reason_end": reason_end, "shuffle": shuffle, "skipped": skipped,
            "offline": offline, "offline_timestamp": int(end) if offline else None, "incognito_mode": incognito}


def spotify_extended_file(plays):
    """A Streaming_History_Audio_*.json: a JSON array of plays, indented as Spotify's files are."""
    return json.dumps(plays, indent=4, ensure_ascii=False)


def minimal_pdf(text):
    """A one-page PDF saying `text` (the read-me a Spotify export carries beside its JSON files): a
    real PDF with its cross-reference table, so an importer meets what the zip really holds."""
    stream = ("BT /F1 18 Tf 72 720 Td (%s) Tj ET" % text).encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
