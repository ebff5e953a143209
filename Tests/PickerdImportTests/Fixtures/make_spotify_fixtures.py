#!/usr/bin/env python3
"""Writes the Spotify fixtures: histories laid out as Spotify writes them (see Fixtures/README.md).

Deterministic (no clock, no randomness). Run from this folder: python3 make_spotify_fixtures.py
"""
import json
import os
import zipfile

EXT = "spotify/Spotify Extended Streaming History"
ACCOUNT = "spotify/Spotify Account Data"


def play(ts, ms, track=None, artist=None, album=None, track_uri=None, episode=None, show=None, episode_uri=None,
         reason_start="trackdone", reason_end="trackdone", shuffle=False, skipped=False, incognito=False,
         offline_ts=None, audiobook=None, platform="android", country="DE"):
    """A play as the extended history writes it since 2023 (ip_addr, audiobook_* fields), keys in Spotify's order."""
    return {
        "ts": ts,
        "platform": platform,
        "ms_played": ms,
        "conn_country": country,
        "ip_addr": "192.0.2.17",
        "master_metadata_track_name": track,
        "master_metadata_album_artist_name": artist,
        "master_metadata_album_album_name": album,
        "spotify_track_uri": track_uri,
        "episode_name": episode,
        "episode_show_name": show,
        "spotify_episode_uri": episode_uri,
        "audiobook_title": audiobook and audiobook[0],
        "audiobook_uri": audiobook and "spotify:audiobook:4p9bgAJXNMWS2VdnsPjnUu",
        "audiobook_chapter_uri": audiobook and "spotify:chapter:0D5wENdkdwbqlrHoaJ9g29",
        "audiobook_chapter_title": audiobook and audiobook[1],
        "reason_start": reason_start,
        "reason_end": reason_end,
        "shuffle": shuffle,
        "skipped": skipped,
        "offline": False,
        "offline_timestamp": offline_ts,
        "incognito_mode": incognito,
    }


def write_json(path, value, jackson=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if jackson:
        # The account data is written by Jackson's pretty printer: two spaces, `"key" : value`.
        text = json.dumps(value, indent=2, ensure_ascii=False).replace('": ', '" : ')
    else:
        # The extended history is indented by four spaces, `"key": value`.
        text = json.dumps(value, indent=4, ensure_ascii=False)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


audio = [
    # Played whole (trackdone): 523 s ending 12:44:05, so it started 12:35:22 (a pause of 55 s
    # after the scrobbler's 12:34:27 start): the same play as the ListenBrainz and Last.fm fixtures'.
    play("2021-01-31T12:44:05Z", 523000, "Says", "Nils Frahm", "Spaces", "spotify:track:0bh3mVv9KcDLAIzGyA3TZk",
         offline_ts=1612096722),
    # Whole, starting 14:19:50: the scrobblers say 14:20 (another minute).
    play("2021-01-31T14:26:32Z", 402000, "Hejira", "Joni Mitchell", "Hejira", "spotify:track:6qmdHzO3PGWLLNjqQEN0wy",
         offline_ts=1612102790),
    # Skipped after 12 s: too short.
    play("2021-01-31T14:26:44Z", 12000, "Coyote", "Joni Mitchell", "Hejira", "spotify:track:4ZVHA9Ce8V0jf0S5hFhLEQ",
         reason_end="fwdbtn", skipped=True, offline_ts=1612103192),
    # In incognito mode: never imported.
    play("2021-02-01T08:10:00Z", 200000, "Private Song", "Someone", "Secret", "spotify:track:2TpxZ7JUBn3uw46aR7qd6V",
         incognito=True, offline_ts=1612166800),
    # No metadata (an ad, or a track Spotify lost): left out and counted.
    play("2021-02-01T08:11:00Z", 30000, offline_ts=1612167030),
    # Cut short after five minutes of a ten-minute track: counts (four minutes is enough for any length).
    play("2021-02-01T09:15:00Z", 300000, "Svefn-g-englar", "Sigur Rós", "Ágætis byrjun", "spotify:track:3WxdEsLmBv0IUzIi7hsKUt",
         reason_end="fwdbtn", offline_ts=1612170600),
    # Cut short after three minutes: the track's length is unknown, so not enough.
    play("2021-02-01T09:20:00Z", 180000, "Starálfur", "Sigur Rós", "Ágætis byrjun", "spotify:track:0bR3Bm1yEwKEOUOl7V4R9O",
         reason_end="endplay", offline_ts=1612170900),
    # A podcast episode, paused and closed after 30 minutes.
    play("2021-02-02T07:45:00Z", 1800000, episode="The Overview Effect", show="Radiolab",
         episode_uri="spotify:episode:1rR3pnSdn4oUjGRbWbeMHQ", reason_start="clickrow", reason_end="endplay",
         offline_ts=1612250700),
    # An audiobook chapter: no item kind holds one.
    play("2023-03-04T21:00:00Z", 900000, audiobook=("Middlemarch", "Chapter 1"), reason_start="clickrow", reason_end="endplay",
         offline_ts=1677962700),
]
write_json(f"{EXT}/Streaming_History_Audio_2021-2023_0.json", audio)

# The layout before 2023: username, ip_addr_decrypted, user_agent_decrypted; skipped null; no audiobooks.
older = [{
    "ts": "2014-06-20T19:03:44Z",
    "username": "exampleuser",
    "platform": "Android OS 4.4.2 API 19 (samsung, GT-I9505)",
    "ms_played": 245000,
    "conn_country": "GB",
    "ip_addr_decrypted": "198.51.100.4",
    "user_agent_decrypted": "unknown",
    "master_metadata_track_name": "Retrograde",
    "master_metadata_album_artist_name": "James Blake",
    "master_metadata_album_album_name": "Overgrown",
    "spotify_track_uri": "spotify:track:5IbYw9S8IeUQjEJlqvFqYy",
    "episode_name": None,
    "episode_show_name": None,
    "spotify_episode_uri": None,
    "reason_start": "fwdbtn",
    "reason_end": "trackdone",
    "shuffle": False,
    "skipped": None,
    "offline": False,
    "offline_timestamp": 1403290779,
    "incognito_mode": False,
}]
write_json(f"{EXT}/Streaming_History_Audio_2014-2016_0.json", older)

# A video podcast episode (Streaming_History_Video_*): the same fields.
video = [play("2023-05-06T10:30:00Z", 1500000, episode="Episode 210: Maps", show="The Map Room",
              episode_uri="spotify:episode:5Xt5DXGzch68nYYamXrNxZ", reason_start="clickrow", reason_end="trackdone",
              platform="ios", offline_ts=1683367500)]
write_json(f"{EXT}/Streaming_History_Video_2023.json", video)

music = [
    {"endTime": "2022-12-05 16:52", "artistName": "Rainbow Kitten Surprise", "trackName": "It's Called: Freefall", "msPlayed": 152293},
    {"endTime": "2022-12-05 16:53", "artistName": "Oh Wonder", "trackName": "Lose It", "msPlayed": 1860},
    {"endTime": "2022-12-05 17:01", "artistName": "Bon Iver", "trackName": "Holocene", "msPlayed": 336613},
]
write_json(f"{ACCOUNT}/StreamingHistory_music_0.json", music, jackson=True)
podcast = [
    {"endTime": "2022-12-06 07:58", "podcastName": "Song Exploder", "episodeName": "Episode 12: Listening", "msPlayed": 1261000},
    {"endTime": "2022-12-06 08:00", "podcastName": "Song Exploder", "episodeName": "Episode 13: Trailer", "msPlayed": 9000},
]
write_json(f"{ACCOUNT}/StreamingHistory_podcast_0.json", podcast, jackson=True)
# The older account data: one StreamingHistoryN.json per 10 000 plays, music only.
write_json("spotify_old_account/StreamingHistory0.json",
           [{"endTime": "2019-02-10 17:25", "artistName": "Oh Wonder", "trackName": "Ultralife", "msPlayed": 199493}], jackson=True)

# Broken records among good ones: each named, the rest imported.
good = play("2022-01-01T00:04:00Z", 200000, "Auld Lang Syne", "Mairi Campbell", "Auld Lang Syne", "spotify:track:1", offline_ts=1640995200)
no_ts = dict(good)
del no_ts["ts"]
text_ms = dict(good, ms_played="abc")
number_ts = dict(good, ts=1640995440)
bad_time = dict(good, ts="yesterday")
later = dict(good, ts="2022-01-01T00:09:00Z", master_metadata_track_name="Hogmanay")
write_json("spotify_broken/Streaming_History_Audio_2022_0.json", [good, text_ms, no_ts, 42, number_ts, bad_time, later])

# The zip Spotify mails: the extended history with its ReadMeFirst PDF.
with zipfile.ZipFile("my_spotify_data.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for name in ["Streaming_History_Audio_2021-2023_0.json", "Streaming_History_Video_2023.json"]:
        info = zipfile.ZipInfo(f"Spotify Extended Streaming History/{name}", date_time=(2024, 1, 15, 9, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(f"{EXT}/{name}", "rb") as f:
            z.writestr(info, f.read())
    info = zipfile.ZipInfo("Spotify Extended Streaming History/ReadMeFirst_ExtendedStreamingHistory.pdf", date_time=(2024, 1, 15, 9, 0, 0))
    z.writestr(info, b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
