// CICal: libical, wrapped for pickerd's calendar reader (see include/cical.h).
#include "cical.h"

#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// Seconds on the monotonic clock.
static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct ci_calendar {
    icalcomponent *root;
    icalcomponent **events;
    size_t count;
    size_t capacity;
};

static void copy_text(char *to, size_t size, const char *text) {
    if (!to || size == 0) return;
    snprintf(to, size, "%s", text ? text : "");
}

/// Whether libical's complaint loses nothing pickerd reads: a property with an empty value
/// (Google Calendar writes `DESCRIPTION:` and `LOCATION:`; an empty property is just empty) or one
/// whose name libical does not know (RFC 9253's `LINK`, a vendor's own): libical drops the property
/// and reads the rest.
static int harmless(const char *error) {
    return error && (strncmp(error, "No value for ", 13) == 0 || strncmp(error, "Parse error in property name", 28) == 0);
}

/// The first X-LIC-ERROR libical attached anywhere in `component` that is not ``harmless``, or
/// NULL; with `skip_events`, VEVENTs are not looked into (their errors leave out that event only).
static const char *first_error(icalcomponent *component, int skip_events) {
    for (icalproperty *p = icalcomponent_get_first_property(component, ICAL_XLICERROR_PROPERTY); p;
         p = icalcomponent_get_next_property(component, ICAL_XLICERROR_PROPERTY)) {
        const char *error = icalproperty_get_xlicerror(p);
        if (!harmless(error)) return error;
    }
    for (icalcomponent *child = icalcomponent_get_first_component(component, ICAL_ANY_COMPONENT); child;
         child = icalcomponent_get_next_component(component, ICAL_ANY_COMPONENT)) {
        if (skip_events && icalcomponent_isa(child) == ICAL_VEVENT_COMPONENT) continue;
        const char *found = first_error(child, skip_events);
        if (found) return found;
    }
    return NULL;
}

/// Every VEVENT of a VCALENDAR (or of each VCALENDAR in an XROOT), in file order.
static int collect(ci_calendar *calendar, icalcomponent *component) {
    for (icalcomponent *child = icalcomponent_get_first_component(component, ICAL_ANY_COMPONENT); child;
         child = icalcomponent_get_next_component(component, ICAL_ANY_COMPONENT)) {
        icalcomponent_kind kind = icalcomponent_isa(child);
        if (kind == ICAL_VCALENDAR_COMPONENT) {
            if (!collect(calendar, child)) return 0;
        } else if (kind == ICAL_VEVENT_COMPONENT) {
            if (calendar->count == calendar->capacity) {
                size_t capacity = calendar->capacity ? calendar->capacity * 2 : 64;
                icalcomponent **grown = realloc(calendar->events, capacity * sizeof *grown);
                if (!grown) return 0;
                calendar->events = grown;
                calendar->capacity = capacity;
            }
            calendar->events[calendar->count++] = child;
        }
    }
    return 1;
}

static icaltimezone *listed_zone(const char *location);
static icaltimezone *listed_zone_from_tzid(const char *tzid);

/// What a TZID that names no zone libical may look up is prefixed with (see keep_to_listed_zones):
/// no file's name starts with it, and tzid_of strips it again.
static const char unlisted_mark = '\x01';

/// Rewrites, in every property under `c`, a TZID that names no VTIMEZONE of the calendar so that
/// libical's own lookup (icalproperty_get_datetime_with_component, reached by every date getter)
/// never opens a zoneinfo file: libical looks a TZID up in its list of zones (zone.tab) and then,
/// for a name not in it that exists as a file (an alias such as US/Eastern, a "/Europe/Stockholm"),
/// opens zoneinfo/<TZID>, which pickerd-reader may not do (its filter kills it) and which a file's
/// bytes should not steer. A TZID that is a listed zone by another spelling ("/Europe/Stockholm",
/// libical's own "/freeassociation.sourceforge.net/…/Europe/London") becomes that zone's name; any
/// other is marked, so libical finds no file and leaves the time unresolved, and the importer
/// resolves the name itself (its time zones know the aliases).
static void keep_to_listed_zones(icalcomponent *c) {
    for (icalproperty *p = icalcomponent_get_first_property(c, ICAL_ANY_PROPERTY); p;
         p = icalcomponent_get_next_property(c, ICAL_ANY_PROPERTY)) {
        icalparameter *param = icalproperty_get_first_parameter(p, ICAL_TZID_PARAMETER);
        const char *tzid = param ? icalparameter_get_tzid(param) : NULL;
        if (!tzid || !*tzid || tzid[0] == unlisted_mark) continue;
        int defined = 0;
        for (icalcomponent *up = c; up && !defined; up = icalcomponent_get_parent(up)) {
            defined = icalcomponent_get_timezone(up, tzid) != NULL;
        }
        if (defined) continue;
        icaltimezone *zone = listed_zone(tzid);
        if (!zone) zone = listed_zone_from_tzid(tzid);
        const char *location = zone ? icaltimezone_get_location(zone) : NULL;
        if (location && strcmp(location, tzid) == 0) continue;
        size_t length = strlen(tzid);
        char *rewritten = malloc(length + 2);
        if (!rewritten) continue;
        if (location) {
            snprintf(rewritten, length + 2, "%s", location);
        } else {
            rewritten[0] = unlisted_mark;
            memcpy(rewritten + 1, tzid, length + 1);
        }
        icalparameter_set_tzid(param, rewritten);
        free(rewritten);
    }
    for (icalcomponent *child = icalcomponent_get_first_component(c, ICAL_ANY_COMPONENT); child;
         child = icalcomponent_get_next_component(c, ICAL_ANY_COMPONENT)) {
        keep_to_listed_zones(child);
    }
}

ci_calendar *ci_parse(const char *text, char *error, size_t error_size) {
    // libical aborts on errors only when built or told to; pickerd must never abort on a file.
    if (icalerror_get_errors_are_fatal()) icalerror_set_errors_are_fatal(0);
    icalcomponent *root = icalparser_parse_string(text);
    if (!root) {
        copy_text(error, error_size, "libical found no calendar in it");
        return NULL;
    }
    icalcomponent_kind kind = icalcomponent_isa(root);
    if (kind != ICAL_VCALENDAR_COMPONENT && kind != ICAL_XROOT_COMPONENT) {
        copy_text(error, error_size, "it is not a VCALENDAR");
        icalcomponent_free(root);
        return NULL;
    }
    const char *problem = icalcomponent_count_errors(root) > 0 ? first_error(root, 1) : NULL;
    if (problem) {
        copy_text(error, error_size, problem);
        icalcomponent_free(root);
        return NULL;
    }
    ci_calendar *calendar = calloc(1, sizeof *calendar);
    if (!calendar) {
        icalcomponent_free(root);
        copy_text(error, error_size, "out of memory");
        return NULL;
    }
    calendar->root = root;
    keep_to_listed_zones(root);
    int ok = collect(calendar, root);
    if (!ok) {
        ci_free(calendar);
        copy_text(error, error_size, "out of memory");
        return NULL;
    }
    return calendar;
}

void ci_free(ci_calendar *calendar) {
    if (!calendar) return;
    if (calendar->root) icalcomponent_free(calendar->root);
    free(calendar->events);
    free(calendar);
}

size_t ci_event_count(const ci_calendar *calendar) { return calendar->count; }

static icalcomponent *event_at(const ci_calendar *calendar, size_t event) {
    return event < calendar->count ? calendar->events[event] : NULL;
}

const char *ci_event_error(const ci_calendar *calendar, size_t event) {
    icalcomponent *c = event_at(calendar, event);
    return c ? first_error(c, 0) : NULL;
}

const char *ci_event_uid(const ci_calendar *calendar, size_t event) {
    icalcomponent *c = event_at(calendar, event);
    return c && icalcomponent_get_first_property(c, ICAL_UID_PROPERTY) ? icalcomponent_get_uid(c) : NULL;
}

const char *ci_event_summary(const ci_calendar *calendar, size_t event) {
    icalcomponent *c = event_at(calendar, event);
    return c && icalcomponent_get_first_property(c, ICAL_SUMMARY_PROPERTY) ? icalcomponent_get_summary(c) : NULL;
}

const char *ci_event_location(const ci_calendar *calendar, size_t event) {
    icalcomponent *c = event_at(calendar, event);
    return c && icalcomponent_get_first_property(c, ICAL_LOCATION_PROPERTY) ? icalcomponent_get_location(c) : NULL;
}

int ci_event_cancelled(const ci_calendar *calendar, size_t event) {
    icalcomponent *c = event_at(calendar, event);
    return c && icalcomponent_get_first_property(c, ICAL_STATUS_PROPERTY) && icalcomponent_get_status(c) == ICAL_STATUS_CANCELLED;
}

/// The TZID parameter of `p`, or NULL.
static const char *tzid_of(icalproperty *p) {
    if (!p) return NULL;
    icalparameter *param = icalproperty_get_first_parameter(p, ICAL_TZID_PARAMETER);
    const char *tzid = param ? icalparameter_get_tzid(param) : NULL;
    return tzid && tzid[0] == unlisted_mark ? tzid + 1 : tzid;  // as the file wrote it (keep_to_listed_zones)
}

/// libical's own zone called `location` ("Europe/Lisbon"; leading slashes ignored, as the file
/// path libical would make of "/Europe/Lisbon" ignores them), or NULL: looked up in its list of
/// zones (zone.tab, read once: ci_preload_zones) and nowhere else. icaltimezone_get_builtin_timezone
/// would, for a name not in that list, open zoneinfo/<name>: a path a calendar's TZID steers, and
/// one a confined reader (pickerd-reader kills itself at any open) may not open at all.
static icaltimezone *listed_zone(const char *location) {
    if (!location) return NULL;
    while (*location == '/') location++;
    if (!*location) return NULL;
    if (strcmp(location, "UTC") == 0 || strcmp(location, "GMT") == 0) return icaltimezone_get_utc_timezone();
    icalarray *zones = icaltimezone_get_builtin_timezones();
    for (size_t i = 0; zones && i < zones->num_elements; i++) {
        icaltimezone *zone = icalarray_element_at(zones, i);
        const char *name = icaltimezone_get_location(zone);
        if (name && strcmp(name, location) == 0) return zone;
    }
    return NULL;
}

/// libical's own zone for a TZID it wrote itself ("/freeassociation.sourceforge.net/Tzfile/Europe/London":
/// its prefix, then the location after the third slash, as icaltimezone_get_builtin_timezone_from_tzid
/// reads it), from its list only (see listed_zone).
static icaltimezone *listed_zone_from_tzid(const char *tzid) {
    static const char prefix[] = "/freeassociation.sourceforge.net/";  // libical 3's, which it exports no getter for
    if (!tzid || strncmp(tzid, prefix, sizeof prefix - 1) != 0) return NULL;
    int slashes = 0;
    const char *p = tzid;
    for (; *p && slashes < 3; p++) if (*p == '/') slashes++;
    return slashes == 3 ? listed_zone(p) : NULL;
}

/// `t` in the zone `p`'s TZID names: the calendar's VTIMEZONE of that TZID, else libical's own
/// zone of that name. Values libical already placed (DTSTART, DTEND), UTC values and DATEs are
/// returned as they are.
static struct icaltimetype placed(struct icaltimetype t, icalproperty *p, icalcomponent *event) {
    if (t.is_date || t.zone) return t;
    const char *tzid = tzid_of(p);
    if (!tzid) return t;
    icaltimezone *zone = NULL;
    for (icalcomponent *up = icalcomponent_get_parent(event); up && !zone; up = icalcomponent_get_parent(up)) {
        zone = icalcomponent_get_timezone(up, tzid);
    }
    if (!zone) zone = listed_zone(tzid);
    if (!zone) zone = listed_zone_from_tzid(tzid);
    if (zone) t = icaltime_set_timezone(&t, zone);
    return t;
}

static int has_zone(struct icaltimetype t) { return !t.is_date && t.zone != NULL; }

static void fill(ci_time *out, struct icaltimetype t, const char *tzid) {
    memset(out, 0, sizeof *out);
    out->year = t.year;
    out->month = t.month;
    out->day = t.day;
    out->is_date = t.is_date ? 1 : 0;
    if (t.is_date) {
        out->zone = CI_FLOATING;
        return;
    }
    out->hour = t.hour;
    out->minute = t.minute;
    out->second = t.second;
    if (icaltime_is_utc(t)) {
        out->zone = CI_UTC;
        out->utc_seconds = (long long)icaltime_as_timet_with_zone(t, icaltimezone_get_utc_timezone());
    } else if (t.zone) {
        out->zone = CI_ZONED;
        out->utc_seconds = (long long)icaltime_as_timet_with_zone(t, t.zone);
        copy_text(out->tzid, sizeof out->tzid, tzid ? tzid : icaltimezone_get_location((icaltimezone *)t.zone));
    } else if (tzid && *tzid) {
        out->zone = CI_UNRESOLVED;
        copy_text(out->tzid, sizeof out->tzid, tzid);
    } else {
        out->zone = CI_FLOATING;
    }
}

int ci_event_start(const ci_calendar *calendar, size_t event, ci_time *out) {
    icalcomponent *c = event_at(calendar, event);
    icalproperty *p = c ? icalcomponent_get_first_property(c, ICAL_DTSTART_PROPERTY) : NULL;
    if (!p) return 0;
    fill(out, icalcomponent_get_dtstart(c), tzid_of(p));
    return 1;
}

int ci_event_end(const ci_calendar *calendar, size_t event, ci_time *out) {
    icalcomponent *c = event_at(calendar, event);
    icalproperty *start = c ? icalcomponent_get_first_property(c, ICAL_DTSTART_PROPERTY) : NULL;
    if (!start) return 0;
    icalproperty *end = icalcomponent_get_first_property(c, ICAL_DTEND_PROPERTY);
    struct icaltimetype t = icalcomponent_get_dtend(c);
    if (icaltime_is_null_time(t)) {
        t = icalcomponent_get_dtstart(c);
        end = NULL;
    }
    fill(out, t, tzid_of(end ? end : start));
    return 1;
}

int ci_event_recurrence_id(const ci_calendar *calendar, size_t event, ci_time *out) {
    icalcomponent *c = event_at(calendar, event);
    icalproperty *p = c ? icalcomponent_get_first_property(c, ICAL_RECURRENCEID_PROPERTY) : NULL;
    if (!p) return 0;
    fill(out, placed(icalproperty_get_recurrenceid(p), p, c), tzid_of(p));
    return 1;
}

int ci_event_recurs(const ci_calendar *calendar, size_t event) {
    icalcomponent *c = event_at(calendar, event);
    return c && (icalcomponent_get_first_property(c, ICAL_RRULE_PROPERTY) || icalcomponent_get_first_property(c, ICAL_RDATE_PROPERTY));
}

size_t ci_event_attendee_count(const ci_calendar *calendar, size_t event) {
    icalcomponent *c = event_at(calendar, event);
    return c ? (size_t)icalcomponent_count_properties(c, ICAL_ATTENDEE_PROPERTY) : 0;
}

int ci_event_attendee(const ci_calendar *calendar, size_t event, size_t index, const char **name, const char **address,
                      int *declined) {
    icalcomponent *c = event_at(calendar, event);
    if (!c) return 0;
    size_t at = 0;
    for (icalproperty *p = icalcomponent_get_first_property(c, ICAL_ATTENDEE_PROPERTY); p;
         p = icalcomponent_get_next_property(c, ICAL_ATTENDEE_PROPERTY), at++) {
        if (at != index) continue;
        icalparameter *cn = icalproperty_get_first_parameter(p, ICAL_CN_PARAMETER);
        icalparameter *partstat = icalproperty_get_first_parameter(p, ICAL_PARTSTAT_PARAMETER);
        *name = cn ? icalparameter_get_cn(cn) : NULL;
        *address = icalproperty_get_attendee(p);
        *declined = partstat && icalparameter_get_partstat(partstat) == ICAL_PARTSTAT_DECLINED;
        return 1;
    }
    return 0;
}

/// Seconds since 1970 of `t`: through its zone when it has one, else its fields read as UTC.
static long long key_of(struct icaltimetype t) {
    return has_zone(t) ? (long long)icaltime_as_timet_with_zone(t, t.zone) : (long long)icaltime_as_timet(t);
}

/// Whether two values name the same occurrence: the same instant when both are placed in a zone,
/// else the same wall-clock date (and time, for DATE-TIMEs).
static int same_occurrence(struct icaltimetype a, struct icaltimetype b) {
    if (has_zone(a) && has_zone(b)) return key_of(a) == key_of(b);
    if (a.year != b.year || a.month != b.month || a.day != b.day) return 0;
    if (a.is_date || b.is_date) return 1;
    return a.hour == b.hour && a.minute == b.minute && a.second == b.second;
}

typedef struct {
    struct icaltimetype *times;
    size_t count;
} time_list;

static int excluded(const time_list *exdates, struct icaltimetype t) {
    for (size_t i = 0; i < exdates->count; i++) {
        if (same_occurrence(exdates->times[i], t)) return 1;
    }
    return 0;
}

long ci_event_occurrences(const ci_calendar *calendar, size_t event, long long from, long long to, ci_time *out,
                          size_t capacity, int *truncated) {
    *truncated = 0;
    icalcomponent *c = event_at(calendar, event);
    icalproperty *start_property = c ? icalcomponent_get_first_property(c, ICAL_DTSTART_PROPERTY) : NULL;
    if (!start_property) return 0;
    struct icaltimetype start = icalcomponent_get_dtstart(c);
    const char *tzid = tzid_of(start_property);

    time_list exdates = {0};
    size_t exdate_count = (size_t)icalcomponent_count_properties(c, ICAL_EXDATE_PROPERTY);
    if (exdate_count > 0) {
        exdates.times = calloc(exdate_count, sizeof *exdates.times);
        if (!exdates.times) return -1;
        for (icalproperty *p = icalcomponent_get_first_property(c, ICAL_EXDATE_PROPERTY); p && exdates.count < exdate_count;
             p = icalcomponent_get_next_property(c, ICAL_EXDATE_PROPERTY)) {
            exdates.times[exdates.count++] = placed(icalproperty_get_exdate(p), p, c);
        }
    }

    long written = 0;
    long steps = 0;
    double deadline = now_seconds() + CI_MAX_SECONDS;
    int failed = 0;
    // DTSTART is the set's first occurrence (RFC 5545 3.8.5.2), whatever the rules say.
    long long first = key_of(start);
    if (first >= from && first <= to && capacity > 0 && !excluded(&exdates, start)) fill(&out[written++], start, tzid);
    for (icalproperty *p = icalcomponent_get_first_property(c, ICAL_RRULE_PROPERTY); p && !*truncated;
         p = icalcomponent_get_next_property(c, ICAL_RRULE_PROPERTY)) {
        struct icalrecurrencetype rule = icalproperty_get_rrule(p);
        if (rule.freq == ICAL_NO_RECURRENCE) {
            failed = 1;
            break;
        }
        icalrecur_iterator *iterator = icalrecur_iterator_new(rule, start);
        if (!iterator) {
            failed = 1;
            break;
        }
        for (struct icaltimetype next = icalrecur_iterator_next(iterator); !icaltime_is_null_time(next);
             next = icalrecur_iterator_next(iterator)) {
            if (++steps > CI_MAX_ITERATIONS || (steps % 1024 == 0 && now_seconds() > deadline)) {
                *truncated = 1;
                break;
            }
            if (start.zone && !next.is_date) next = icaltime_set_timezone(&next, (icaltimezone *)start.zone);
            long long key = key_of(next);
            if (key > to) break;
            if (key < from || excluded(&exdates, next)) continue;
            if ((size_t)written == capacity) {
                *truncated = 1;
                break;
            }
            fill(&out[written++], next, tzid);
        }
        icalrecur_iterator_free(iterator);
    }
    for (icalproperty *p = icalcomponent_get_first_property(c, ICAL_RDATE_PROPERTY); p && !failed && !*truncated;
         p = icalcomponent_get_next_property(c, ICAL_RDATE_PROPERTY)) {
        struct icaldatetimeperiodtype value = icalproperty_get_rdate(p);
        struct icaltimetype t = icaltime_is_null_time(value.time) ? value.period.start : value.time;
        if (icaltime_is_null_time(t)) continue;
        t = placed(t, p, c);
        long long key = key_of(t);
        if (key < from || key > to || excluded(&exdates, t)) continue;
        if ((size_t)written == capacity) {
            *truncated = 1;
            break;
        }
        fill(&out[written++], t, tzid_of(p) ? tzid_of(p) : tzid);
    }
    free(exdates.times);
    return failed ? -1 : written;
}

int ci_rrule_valid(const char *rule) {
    struct icalrecurrencetype parsed = icalrecurrencetype_from_string(rule);
    icalerror_clear_errno();
    return parsed.freq != ICAL_NO_RECURRENCE;
}

int ci_preload_zones(void) {
    icalarray *zones = icaltimezone_get_builtin_timezones();
    int loaded = 0;
    for (size_t i = 0; zones && i < zones->num_elements; i++) {
        icaltimezone *zone = icalarray_element_at(zones, i);
        if (icaltimezone_get_component(zone)) loaded++;
    }
    return loaded;
}

int ci_zone_known(const char *tzid) {
    return listed_zone(tzid) != NULL || listed_zone_from_tzid(tzid) != NULL;
}
