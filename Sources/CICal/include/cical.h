// CICal: a small C wrapper over libical (Debian: libical-dev) for pickerd's calendar reader.
//
// Swift never sees libical's types: a parsed calendar is an opaque `ci_calendar`, its events are
// addressed by index, times come back as a plain `ci_time`. Strings returned point into the parsed
// calendar and stay valid until `ci_free`; callers copy them. Nothing here reads a file, fetches a
// URL or writes anything: the caller hands over the text and gets values back.
#ifndef PICKERD_CICAL_H
#define PICKERD_CICAL_H

#include <stddef.h>

/// A parsed calendar (one VCALENDAR, or several in one file) and its VEVENTs in file order.
typedef struct ci_calendar ci_calendar;

/// What a time is relative to.
typedef enum ci_zone_kind {
    /// A floating local time ("20240504T190000") or a DATE: the person's own time zone applies.
    CI_FLOATING = 0,
    /// UTC ("…Z").
    CI_UTC = 1,
    /// A TZID libical resolved (the file's VTIMEZONE, or the system's zoneinfo): `utc_seconds` holds.
    CI_ZONED = 2,
    /// A TZID libical could not resolve: `tzid` says which; the caller resolves it or refuses.
    CI_UNRESOLVED = 3,
} ci_zone_kind;

/// A DATE or DATE-TIME as the file states it.
typedef struct ci_time {
    /// The wall-clock fields (for a DATE, the time fields are 0).
    int year, month, day, hour, minute, second;
    /// 1 for a DATE (an all-day value), 0 for a DATE-TIME.
    int is_date;
    /// What the fields are relative to.
    ci_zone_kind zone;
    /// Seconds since 1970 (UTC), valid for `CI_UTC` and `CI_ZONED`.
    long long utc_seconds;
    /// The TZID parameter as written (`CI_ZONED`, `CI_UNRESOLVED`), else empty.
    char tzid[128];
} ci_time;

/// Parses iCalendar text (RFC 5545) with libical.
/// Returns the calendar, or NULL with a sentence in `error` when libical finds no calendar in it or
/// reports a parse error outside its events (its `X-LIC-ERROR`, whose text is copied into `error`).
/// An empty property (`DESCRIPTION:`) and a property libical does not know (`LINK`) are read past;
/// an event's own errors are that event's (see `ci_event_error`).
ci_calendar *ci_parse(const char *text, char *error, size_t error_size);

/// Frees a calendar from `ci_parse` (NULL is fine).
void ci_free(ci_calendar *calendar);

/// How many VEVENTs the calendar holds.
size_t ci_event_count(const ci_calendar *calendar);

/// The first parse error libical found in the event (its `X-LIC-ERROR` text), NULL when none: the
/// caller leaves that event out and keeps the rest.
const char *ci_event_error(const ci_calendar *calendar, size_t event);

/// The event's UID, SUMMARY, LOCATION: NULL when absent.
const char *ci_event_uid(const ci_calendar *calendar, size_t event);
const char *ci_event_summary(const ci_calendar *calendar, size_t event);
const char *ci_event_location(const ci_calendar *calendar, size_t event);

/// 1 when the event's STATUS is CANCELLED.
int ci_event_cancelled(const ci_calendar *calendar, size_t event);

/// DTSTART, with its zone resolved through the file's VTIMEZONEs or the system's zoneinfo.
/// Returns 0 when the event has none.
int ci_event_start(const ci_calendar *calendar, size_t event, ci_time *out);

/// When the event ends: DTEND, else DTSTART + DURATION, else as RFC 5545 says (a DATE lasts a day,
/// a DATE-TIME is an instant). Returns 0 when the event has no DTSTART.
int ci_event_end(const ci_calendar *calendar, size_t event, ci_time *out);

/// RECURRENCE-ID (the occurrence of a recurring event this one replaces). Returns 0 when absent.
int ci_event_recurrence_id(const ci_calendar *calendar, size_t event, ci_time *out);

/// 1 when the event recurs (it has an RRULE or an RDATE).
int ci_event_recurs(const ci_calendar *calendar, size_t event);

/// How many ATTENDEE properties the event has.
size_t ci_event_attendee_count(const ci_calendar *calendar, size_t event);

/// The `index`th attendee: its CN (NULL when absent), its address (the value, such as
/// "mailto:maya@example.com"), and whether it declined (PARTSTAT=DECLINED). Returns 0 when out of range.
int ci_event_attendee(const ci_calendar *calendar, size_t event, size_t index, const char **name, const char **address,
                      int *declined);

/// The most recurrence-iterator steps one event may take (a rule that matches rarely ends here).
#define CI_MAX_ITERATIONS 200000

/// The most seconds one event's expansion may take (checked every 1,024 steps); then `*truncated`.
#define CI_MAX_SECONDS 2.0

/// The starts of a recurring event's occurrences (RRULEs and RDATEs, less EXDATEs) between `from`
/// and `to` (seconds since 1970; a floating time or DATE is compared as if its fields were UTC, so
/// pass a day's slack), in the zone of DTSTART, at most `capacity` of them (then `*truncated` is
/// set, as it is when `CI_MAX_ITERATIONS` steps or `CI_MAX_SECONDS` were taken). Unsorted; an RDATE may repeat a rule's
/// occurrence. Returns how many were written, or -1 when a rule cannot be read.
long ci_event_occurrences(const ci_calendar *calendar, size_t event, long long from, long long to, ci_time *out,
                          size_t capacity, int *truncated);

/// 1 when libical reads `rule` (an RRULE's value, "FREQ=YEARLY;BYMONTH=5") as a recurrence rule.
int ci_rrule_valid(const char *rule);

/// 1 when libical knows the time zone `tzid` without a VTIMEZONE: an Olson name in its list of
/// zones (the system's zone.tab). No file is opened for a name not in it (libical's own lookup
/// would try zoneinfo/<tzid>), so a reader that may open nothing can ask.
int ci_zone_known(const char *tzid);

/// Loads every zone libical knows (its zones.tab and each zone's rules from the system's zoneinfo)
/// into memory, so later lookups open no file: pickerd-reader calls it before it shuts itself in.
/// Returns the number of zones loaded.
int ci_preload_zones(void);

#endif
