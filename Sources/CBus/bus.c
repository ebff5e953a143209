// CBus: see include/CBus.h for what each function does and who owns what.
#define _GNU_SOURCE  // strnlen, whatever C standard the compiler defaults to
#include "CBus.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

enum {
    PB_MAX_STRING = 4096,                 // longest string kept from a player, in bytes
    PB_MAX_LIST = 32,                     // most entries kept of a list (artists, genres)
    PB_MAX_STEPS = 64,                    // most messages one pb_bus_run handles before returning
};
static const uint64_t pb_call_timeout_us = 2 * 1000 * 1000;  // a player that never answers costs this

static const char pb_mpris_path[] = "/org/mpris/MediaPlayer2";
static const char pb_mpris_prefix[] = "org.mpris.MediaPlayer2.";
static const char pb_player_interface[] = "org.mpris.MediaPlayer2.Player";

struct pb_bus {
    sd_bus *bus;
    sd_bus_slot *owner_match;
    sd_bus_slot *properties_match;
    // Set for the length of one pb_bus_run: where the match callbacks hand their events.
    pb_event_handler handler;
    void *context;
    char error[512];
};

// MARK: Strings

/// A copy of `text` cut at PB_MAX_STRING bytes (on a UTF-8 character boundary); NULL only when
/// memory runs out.
static char *pb_copy(const char *text) {
    if (text == NULL) text = "";
    size_t length = strnlen(text, PB_MAX_STRING + 1);
    if (length > PB_MAX_STRING) {
        length = PB_MAX_STRING;
        while (length > 0 && ((unsigned char)text[length] & 0xC0) == 0x80) length--;
    }
    char *copy = malloc(length + 1);
    if (copy == NULL) return NULL;
    memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

/// Appends `text` (after `separator` when `buffer` is not empty) to `buffer` of PB_MAX_STRING + 1
/// bytes, as much as fits.
static void pb_append(char *buffer, const char *separator, const char *text) {
    size_t used = strlen(buffer);
    if (used > 0) {
        size_t n = strlen(separator);
        if (used + n >= PB_MAX_STRING) return;
        memcpy(buffer + used, separator, n + 1);
        used += n;
    }
    size_t n = strlen(text);
    if (used + n > PB_MAX_STRING) n = PB_MAX_STRING - used;
    memcpy(buffer + used, text, n);
    buffer[used + n] = '\0';
}

static void pb_remember(pb_bus *bus, const sd_bus_error *error, int r) {
    if (error != NULL && sd_bus_error_is_set(error)) {
        snprintf(bus->error, sizeof bus->error, "%s: %s", error->name, error->message ? error->message : "");
    } else {
        snprintf(bus->error, sizeof bus->error, "%s", strerror(-r));
    }
}

const char *pb_bus_error(pb_bus *bus) { return bus->error; }

void pb_free(void *pointer) { free(pointer); }

// MARK: Connecting

int pb_bus_open(const char *address, pb_bus **out) {
    *out = NULL;
    pb_bus *bus = calloc(1, sizeof *bus);
    if (bus == NULL) return -ENOMEM;
    int r;
    if (address == NULL) {
        r = sd_bus_open_user(&bus->bus);
    } else {
        // sd_bus_open_user reads the environment; a given address goes through the long way.
        r = sd_bus_new(&bus->bus);
        if (r >= 0) r = sd_bus_set_address(bus->bus, address);
        if (r >= 0) r = sd_bus_set_bus_client(bus->bus, 1);
        if (r >= 0) r = sd_bus_start(bus->bus);
    }
    if (r >= 0) r = sd_bus_set_method_call_timeout(bus->bus, pb_call_timeout_us);
    if (r < 0) {
        pb_bus_close(bus);
        return r;
    }
    *out = bus;
    return 0;
}

void pb_bus_close(pb_bus *bus) {
    if (bus == NULL) return;
    sd_bus_slot_unref(bus->owner_match);
    sd_bus_slot_unref(bus->properties_match);
    if (bus->bus != NULL) {
        sd_bus_close(bus->bus);
        sd_bus_unref(bus->bus);
    }
    free(bus);
}

// MARK: Signals

/// Which of the properties pickerd follows `key` names (PB_CHANGED_* bits).
static int pb_changed_bit(const char *key) {
    if (strcmp(key, "Metadata") == 0) return PB_CHANGED_METADATA;
    if (strcmp(key, "PlaybackStatus") == 0) return PB_CHANGED_STATUS;
    return 0;
}

static int pb_on_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    pb_bus *bus = userdata;
    const char *name, *old_owner, *new_owner;
    if (sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) < 0) return 0;
    // The match rule's arg0namespace already chose these; a bus that ignores it is checked here.
    if (strncmp(name, pb_mpris_prefix, sizeof pb_mpris_prefix - 1) != 0 || bus->handler == NULL) return 0;
    pb_event event = {.kind = PB_EVENT_OWNER_CHANGED, .name = name, .old_owner = old_owner, .new_owner = new_owner,
                      .sender = "", .changed = 0};
    bus->handler(&event, bus->context);
    return 0;
}

/// PropertiesChanged(s interface, a{sv} changed, as invalidated): tells which followed properties
/// changed. A body that cannot be read counts as both changed (the service reads them again).
static int pb_on_properties_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    pb_bus *bus = userdata;
    const char *interface;
    if (sd_bus_message_read(message, "s", &interface) < 0 || strcmp(interface, pb_player_interface) != 0) return 0;
    int changed = 0;
    int r = sd_bus_message_enter_container(message, 'a', "{sv}");
    while (r >= 0) {
        r = sd_bus_message_enter_container(message, 'e', "sv");
        if (r <= 0) break;
        const char *key;
        r = sd_bus_message_read_basic(message, 's', &key);
        if (r >= 0) changed |= pb_changed_bit(key);
        if (r >= 0) r = sd_bus_message_skip(message, "v");
        if (r >= 0) r = sd_bus_message_exit_container(message);
    }
    if (r >= 0) r = sd_bus_message_exit_container(message);
    char **invalidated = NULL;
    if (r >= 0) r = sd_bus_message_read_strv(message, &invalidated);
    if (r >= 0 && invalidated != NULL) {
        for (char **name = invalidated; *name != NULL; name++) changed |= pb_changed_bit(*name);
    }
    if (invalidated != NULL) {
        for (char **name = invalidated; *name != NULL; name++) free(*name);
        free(invalidated);
    }
    if (r < 0) changed = PB_CHANGED_METADATA | PB_CHANGED_STATUS;
    const char *sender = sd_bus_message_get_sender(message);
    if (changed == 0 || sender == NULL || bus->handler == NULL) return 0;
    pb_event event = {.kind = PB_EVENT_PLAYER_CHANGED, .name = "", .old_owner = "", .new_owner = "",
                      .sender = sender, .changed = changed};
    bus->handler(&event, bus->context);
    return 0;
}

int pb_bus_watch_players(pb_bus *bus) {
    int r = sd_bus_add_match(bus->bus, &bus->owner_match,
                             "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                             "member='NameOwnerChanged',arg0namespace='org.mpris.MediaPlayer2'",
                             pb_on_owner_changed, bus);
    if (r >= 0) {
        r = sd_bus_add_match(bus->bus, &bus->properties_match,
                             "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                             "path='/org/mpris/MediaPlayer2',arg0='org.mpris.MediaPlayer2.Player'",
                             pb_on_properties_changed, bus);
    }
    if (r < 0) pb_remember(bus, NULL, r);
    return r;
}

int pb_bus_run(pb_bus *bus, uint64_t timeout_us, pb_event_handler handler, void *context) {
    bus->handler = handler;
    bus->context = context;
    int handled = 0, r = 0;
    while (handled < PB_MAX_STEPS) {
        r = sd_bus_process(bus->bus, NULL);
        if (r <= 0) break;
        handled++;
    }
    if (r == 0 && handled == 0) {
        r = sd_bus_wait(bus->bus, timeout_us);
        if (r == -EINTR) r = 0;
    }
    bus->handler = NULL;
    bus->context = NULL;
    // A bus that went away leaves sd-bus closing: say so now rather than at the next call.
    if (r >= 0 && sd_bus_is_open(bus->bus) <= 0) r = -ENOTCONN;
    if (r < 0) {
        pb_remember(bus, NULL, r);
        return r;
    }
    return handled;
}

// MARK: Names

int pb_bus_list_names(pb_bus *bus, const char *prefix, char **out) {
    *out = NULL;
    char **names = NULL;
    int r = sd_bus_list_names(bus->bus, &names, NULL);
    if (r < 0) {
        pb_remember(bus, NULL, r);
        return r;
    }
    size_t prefix_length = strlen(prefix), size = 1;
    int count = 0;
    for (char **name = names; name != NULL && *name != NULL; name++) {
        if (strncmp(*name, prefix, prefix_length) == 0) size += strlen(*name) + 1;
    }
    char *joined = malloc(size);
    if (joined != NULL) {
        joined[0] = '\0';
        size_t used = 0;
        for (char **name = names; name != NULL && *name != NULL; name++) {
            if (strncmp(*name, prefix, prefix_length) != 0) continue;
            size_t n = strlen(*name);
            memcpy(joined + used, *name, n);
            joined[used + n] = '\n';
            used += n + 1;
            count++;
        }
        joined[used] = '\0';
    }
    for (char **name = names; name != NULL && *name != NULL; name++) free(*name);
    free(names);
    if (joined == NULL) return -ENOMEM;
    *out = joined;
    return count;
}

int pb_bus_name_owner(pb_bus *bus, const char *name, char **out) {
    *out = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    const char *owner = NULL;
    int r = sd_bus_call_method(bus->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetNameOwner", &error, &reply, "s", name);
    if (r >= 0) r = sd_bus_message_read(reply, "s", &owner);
    if (r >= 0) {
        *out = pb_copy(owner);
        if (*out == NULL) r = -ENOMEM;
    } else {
        pb_remember(bus, &error, r);
    }
    sd_bus_error_free(&error);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

// MARK: Properties

/// Reads the variant the message is at, when it holds a string or an object path, into `*target`.
static int pb_read_string(sd_bus_message *message, const char *contents, char **target) {
    const char *text;
    int r = sd_bus_message_enter_container(message, 'v', contents);
    if (r >= 0) r = sd_bus_message_read_basic(message, contents[0], &text);
    if (r >= 0) {
        free(*target);
        *target = pb_copy(text);
        if (*target == NULL) r = -ENOMEM;
    }
    if (r >= 0) r = sd_bus_message_exit_container(message);
    return r;
}

/// Reads the variant the message is at, a list of strings, into `*target`, joined with `separator`.
static int pb_read_list(sd_bus_message *message, const char *separator, char **target) {
    char buffer[PB_MAX_STRING + 1] = "";
    int r = sd_bus_message_enter_container(message, 'v', "as");
    if (r >= 0) r = sd_bus_message_enter_container(message, 'a', "s");
    int count = 0;
    while (r >= 0) {
        const char *text;
        r = sd_bus_message_read_basic(message, 's', &text);
        if (r <= 0) break;
        if (count++ < PB_MAX_LIST && text[0] != '\0') pb_append(buffer, separator, text);
    }
    if (r >= 0) r = sd_bus_message_exit_container(message);
    if (r >= 0) r = sd_bus_message_exit_container(message);
    if (r >= 0) {
        free(*target);
        *target = pb_copy(buffer);
        if (*target == NULL) r = -ENOMEM;
    }
    return r;
}

/// Reads the variant the message is at, a number of any of D-Bus's integer types or a double.
static int pb_read_number(sd_bus_message *message, const char *contents, int64_t *target) {
    union { int16_t n; uint16_t q; int32_t i; uint32_t u; int64_t x; uint64_t t; double d; } value;
    int r = sd_bus_message_enter_container(message, 'v', contents);
    if (r >= 0) r = sd_bus_message_read_basic(message, contents[0], &value);
    if (r >= 0) {
        switch (contents[0]) {
        case 'n': *target = value.n; break;
        case 'q': *target = value.q; break;
        case 'i': *target = value.i; break;
        case 'u': *target = value.u; break;
        case 'x': *target = value.x; break;
        case 't': *target = value.t > INT64_MAX ? INT64_MAX : (int64_t)value.t; break;
        default: *target = value.d >= 0 && value.d < 9.2e18 ? (int64_t)value.d : -1; break;
        }
        r = sd_bus_message_exit_container(message);
    }
    return r;
}

/// Walks the a{sv} the message is at, keeping the keys pickerd uses and skipping the rest.
static int pb_read_metadata(sd_bus_message *message, pb_track *out) {
    int r = sd_bus_message_enter_container(message, 'a', "{sv}");
    while (r >= 0) {
        r = sd_bus_message_enter_container(message, 'e', "sv");
        if (r <= 0) break;
        const char *key, *contents;
        char type;
        r = sd_bus_message_read_basic(message, 's', &key);
        if (r >= 0) r = sd_bus_message_peek_type(message, &type, &contents);
        if (r < 0) break;
        char **single = NULL, **list = NULL;
        const char *separator = "";
        if (strcmp(key, "xesam:title") == 0) single = &out->title;
        else if (strcmp(key, "xesam:album") == 0) single = &out->album;
        else if (strcmp(key, "mpris:artUrl") == 0) single = &out->art_url;
        else if (strcmp(key, "xesam:url") == 0) single = &out->url;
        else if (strcmp(key, "mpris:trackid") == 0) single = &out->track_id;
        else if (strcmp(key, "xesam:artist") == 0) { single = &out->artist; list = &out->artist; separator = ", "; }
        else if (strcmp(key, "xesam:genre") == 0) { single = &out->genre; list = &out->genre; separator = "\n"; }
        bool is_string = strcmp(contents, "s") == 0 || strcmp(contents, "o") == 0;
        if (single != NULL && is_string) {
            r = pb_read_string(message, contents, single);
        } else if (list != NULL && strcmp(contents, "as") == 0) {
            r = pb_read_list(message, separator, list);
        } else if (strcmp(key, "mpris:length") == 0 && strlen(contents) == 1 && strchr("nqiuxtd", contents[0]) != NULL) {
            r = pb_read_number(message, contents, &out->length_us);
        } else {
            r = sd_bus_message_skip(message, "v");
        }
        if (r >= 0) r = sd_bus_message_exit_container(message);
    }
    if (r >= 0) r = sd_bus_message_exit_container(message);
    return r;
}

void pb_track_clear(pb_track *track) {
    free(track->title);
    free(track->artist);
    free(track->album);
    free(track->art_url);
    free(track->genre);
    free(track->url);
    free(track->track_id);
    memset(track, 0, sizeof *track);
    track->length_us = -1;
}

int pb_player_metadata(pb_bus *bus, const char *name, pb_track *out) {
    memset(out, 0, sizeof *out);
    out->length_us = -1;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_get_property(bus->bus, name, pb_mpris_path, pb_player_interface, "Metadata", &error, &reply, "a{sv}");
    if (r >= 0) r = pb_read_metadata(reply, out);
    if (r < 0) pb_remember(bus, &error, r);
    sd_bus_error_free(&error);
    sd_bus_message_unref(reply);
    // Every string is there, empty when absent.
    char **fields[] = {&out->title, &out->artist, &out->album, &out->art_url, &out->genre, &out->url, &out->track_id};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (*fields[i] == NULL) *fields[i] = pb_copy("");
        if (*fields[i] == NULL && r >= 0) r = -ENOMEM;
    }
    return r < 0 ? r : 0;
}

int pb_player_string(pb_bus *bus, const char *name, const char *interface, const char *property, char **out) {
    *out = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    char *value = NULL;
    int r = sd_bus_get_property_string(bus->bus, name, pb_mpris_path, interface, property, &error, &value);
    if (r >= 0) {
        *out = pb_copy(value);
        if (*out == NULL) r = -ENOMEM;
    } else {
        pb_remember(bus, &error, r);
    }
    free(value);
    sd_bus_error_free(&error);
    return r < 0 ? r : 0;
}

int pb_player_position(pb_bus *bus, const char *name, int64_t *out) {
    *out = 0;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int r = sd_bus_get_property_trivial(bus->bus, name, pb_mpris_path, pb_player_interface, "Position", &error, 'x', out);
    if (r < 0) pb_remember(bus, &error, r);
    sd_bus_error_free(&error);
    return r < 0 ? r : 0;
}
