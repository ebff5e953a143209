/*
 * CBus: the little of D-Bus pickerd needs to follow media players (MPRIS) on the person's session
 * bus, over sd-bus from libsystemd (Debian: libsystemd-dev).
 *
 * Why C: sd-bus reads a message by walking its containers with calls whose types are given as
 * strings ("a{sv}", "as"), and MPRIS players put whatever they like in their metadata dictionary;
 * that walk reads better in C, and Swift then sees flat structs of strings, never an sd-bus type.
 *
 * What is here: connect to a bus (the user's, or a given address so tests can use a private bus),
 * list names, read the MPRIS properties (Player.Metadata decoded into a `pb_track`, PlaybackStatus,
 * Position; the root interface's Identity and DesktopEntry), subscribe to NameOwnerChanged for
 * `org.mpris.MediaPlayer2.*` and to PropertiesChanged of `org.mpris.MediaPlayer2.Player` on
 * `/org/mpris/MediaPlayer2`, and a process/wait step with a timeout that a thread calls in a loop.
 *
 * A `pb_bus` belongs to one thread at a time (sd-bus is not thread-safe). Method calls wait at most
 * two seconds: a player that never answers costs that, not a hung thread. Functions return 0 (or a
 * count) on success and a negative errno on failure; `pb_bus_error` then says what the bus said.
 * Every symbol is prefixed `pb_`.
 */
#ifndef CBUS_H
#define CBUS_H

#include <stddef.h>
#include <stdint.h>

/* A connection to a bus (opaque: it wraps an sd_bus). */
typedef struct pb_bus pb_bus;

/* What a player's metadata says (MPRIS's Metadata dictionary, flattened). Every string is non-NULL
 * (empty when the key is absent or of another type), owned by the struct, and released by
 * `pb_track_clear`. Strings are cut at 4 KiB, lists at 32 entries. */
typedef struct pb_track {
    char *title;      /* xesam:title (s) */
    char *artist;     /* xesam:artist (as, or s as some players send it), joined with ", " */
    char *album;      /* xesam:album (s) */
    char *art_url;    /* mpris:artUrl (s) */
    char *genre;      /* xesam:genre (as, or s), joined with "\n" */
    char *url;        /* xesam:url (s) */
    char *track_id;   /* mpris:trackid (o, or s) */
    int64_t length_us;  /* mpris:length in microseconds (x; t, i, u and d are accepted too); -1 when absent */
} pb_track;

/* What a `pb_event` reports. */
typedef enum pb_event_kind {
    /* NameOwnerChanged for a name under org.mpris.MediaPlayer2: a player came, went or moved. */
    PB_EVENT_OWNER_CHANGED = 1,
    /* PropertiesChanged of org.mpris.MediaPlayer2.Player touching Metadata or PlaybackStatus. */
    PB_EVENT_PLAYER_CHANGED = 2,
} pb_event_kind;

/* Bits of `pb_event.changed`. */
enum {
    PB_CHANGED_METADATA = 1,  /* Metadata changed (or was invalidated) */
    PB_CHANGED_STATUS = 2,    /* PlaybackStatus changed (or was invalidated) */
};

/* One signal, as `pb_bus_run` hands it over. The strings live only during the handler's call. */
typedef struct pb_event {
    pb_event_kind kind;
    /* OWNER_CHANGED: the well-known name ("org.mpris.MediaPlayer2.vlc"); its old and new owners'
     * unique names, "" for none. */
    const char *name;
    const char *old_owner;
    const char *new_owner;
    /* PLAYER_CHANGED: the unique name of the connection that sent it (":1.42"), and which of
     * Metadata and PlaybackStatus changed (PB_CHANGED_* bits). */
    const char *sender;
    int changed;
} pb_event;

/* Called by `pb_bus_run` for each event, on the calling thread. It must not call back into the bus. */
typedef void (*pb_event_handler)(const pb_event *event, void *context);

/* Connects to the bus at `address` (D-Bus address syntax, "unix:path=/run/user/1000/bus"), or to
 * the user's session bus (sd_bus_open_user: $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus)
 * when `address` is NULL, and says Hello. Returns 0 with `*out` a connection to release with
 * `pb_bus_close`, or a negative errno with `*out` NULL (-ENOENT: no socket there, -ECONNREFUSED:
 * nobody listens, -EINVAL: not an address). */
int pb_bus_open(const char *address, pb_bus **out);

/* Closes the connection and releases everything it holds (NULL is allowed). */
void pb_bus_close(pb_bus *bus);

/* What the bus last said when a call on `bus` failed ("org.freedesktop.DBus.Error.ServiceUnknown:
 * …"), or "" (owned by `bus`, valid until its next call). */
const char *pb_bus_error(pb_bus *bus);

/* Adds the two match rules (NameOwnerChanged for org.mpris.MediaPlayer2.*, PropertiesChanged of the
 * Player interface on /org/mpris/MediaPlayer2). Returns 0 or a negative errno. */
int pb_bus_watch_players(pb_bus *bus);

/* The names on the bus that start with `prefix` (ListNames), one per line, in `*out` (release with
 * `pb_free`). Returns how many, or a negative errno. */
int pb_bus_list_names(pb_bus *bus, const char *prefix, char **out);

/* The unique name owning `name` (GetNameOwner) in `*out` (release with `pb_free`). Returns 0, or a
 * negative errno (-ENXIO when nobody owns it). */
int pb_bus_name_owner(pb_bus *bus, const char *name, char **out);

/* Reads org.mpris.MediaPlayer2.Player's Metadata of the player `name` into `*out` (cleared first;
 * release with `pb_track_clear`, also after a failure). Returns 0 or a negative errno. */
int pb_player_metadata(pb_bus *bus, const char *name, pb_track *out);

/* Reads a string property of the player `name`: `interface` is "org.mpris.MediaPlayer2" (Identity,
 * DesktopEntry) or "org.mpris.MediaPlayer2.Player" (PlaybackStatus). `*out` is released with
 * `pb_free`. Returns 0 or a negative errno. */
int pb_player_string(pb_bus *bus, const char *name, const char *interface, const char *property, char **out);

/* Reads org.mpris.MediaPlayer2.Player's Position (x, microseconds) of the player `name`. Returns 0
 * or a negative errno. */
int pb_player_position(pb_bus *bus, const char *name, int64_t *out);

/* One step of the connection's loop: handles up to 64 waiting messages (calling `handler` for each
 * event), and when none was waiting, waits up to `timeout_us` for the bus to have something
 * (sd_bus_process, sd_bus_wait). Returns how many messages were handled (0 after a wait), or a
 * negative errno when the connection is lost (-ENOTCONN, -ECONNRESET…): close it then. */
int pb_bus_run(pb_bus *bus, uint64_t timeout_us, pb_event_handler handler, void *context);

/* Releases what a pb_track holds and empties it (safe on a zeroed struct, and twice). */
void pb_track_clear(pb_track *track);

/* Releases a string CBus returned. */
void pb_free(void *pointer);

#endif
