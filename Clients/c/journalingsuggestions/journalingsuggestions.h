/* libjournalingsuggestions-1: present pickerd's journaling suggestions picker from C, and through
 * GObject introspection from Python, GJS and Vala.
 *
 * The picker is drawn by a trusted process pickerd starts, never by the app; the app receives only
 * the items the person approved. This library speaks pickerd's client protocol (Protocol/README.md)
 * on client.sock and nothing else: it claims no identity (pickerd knows the app by the kernel's
 * account of the connection), and it hands the app exactly what pickerd sent, no more.
 */
#pragma once

#include <gio/gio.h>

#include "js-enum-types.h"

G_BEGIN_DECLS

/**
 * JS_ERROR:
 *
 * The error domain of this library.
 */
#define JS_ERROR (js_error_quark ())

/**
 * JsError:
 * @JS_ERROR_NOT_ENTITLED: the app may not present the picker: not registered, or its
 *   entitlements do not allow it (the message says which)
 * @JS_ERROR_NO_PICKER_AVAILABLE: no picker could be shown
 * @JS_ERROR_BUSY: this app already has a presentation in progress
 * @JS_ERROR_UNREACHABLE: pickerd is not running, or its socket is not in this app's view
 * @JS_ERROR_INVALID_ARGUMENT: pickerd refused a value (a parent window handle, a donation field…)
 * @JS_ERROR_FAILED: anything else (the message says what)
 *
 * Why a request to pickerd failed. Cancelling through a #GCancellable gives
 * %G_IO_ERROR_CANCELLED instead, as everywhere in GIO.
 */
typedef enum {
  JS_ERROR_NOT_ENTITLED,
  JS_ERROR_NO_PICKER_AVAILABLE,
  JS_ERROR_BUSY,
  JS_ERROR_UNREACHABLE,
  JS_ERROR_INVALID_ARGUMENT,
  JS_ERROR_FAILED,
} JsError;

GQuark js_error_quark (void);

/**
 * JsOutcomeKind:
 * @JS_OUTCOME_APPROVED: the person chose a suggestion and kept the items in it
 * @JS_OUTCOME_CANCELLED: the person cancelled
 * @JS_OUTCOME_DISMISSED: the picker went away without the person deciding
 *
 * How a presentation ended.
 */
typedef enum {
  JS_OUTCOME_APPROVED,
  JS_OUTCOME_CANCELLED,
  JS_OUTCOME_DISMISSED,
} JsOutcomeKind;

/**
 * JsDismissalReason:
 * @JS_DISMISSAL_NONE: not dismissed
 * @JS_DISMISSAL_CLOSED_BY_APP: the app closed its request (js_picker_close())
 * @JS_DISMISSAL_PICKER_GONE: the picker process ended
 * @JS_DISMISSAL_SHUTDOWN: pickerd shut down
 * @JS_DISMISSAL_CONSENT_DECLINED: the person did not turn journaling suggestions on
 * @JS_DISMISSAL_OTHER: anything else
 *
 * Why the picker went away.
 */
typedef enum {
  JS_DISMISSAL_NONE,
  JS_DISMISSAL_CLOSED_BY_APP,
  JS_DISMISSAL_PICKER_GONE,
  JS_DISMISSAL_SHUTDOWN,
  JS_DISMISSAL_CONSENT_DECLINED,
  JS_DISMISSAL_OTHER,
} JsDismissalReason;

/**
 * JsAssetKind:
 * @JS_ASSET_PHOTO: a photo (media "photo"; fields "date")
 * @JS_ASSET_LIVE_PHOTO: a Live Photo (media "image" and "video"; fields "date")
 * @JS_ASSET_VIDEO: a video (media "video"; fields "date")
 * @JS_ASSET_WORKOUT: a workout (media "icon"; fields "activity-type", "active-energy-burned",
 *   "distance", "average-heart-rate" (each a (ds) value and unit), "date-start", "date-end",
 *   "localized-name", "route" (aa{sv} of "latitude", "longitude", "altitude",
 *   "horizontal-accuracy", "timestamp"))
 * @JS_ASSET_WORKOUT_GROUP: workouts together (media "icon", "workouts/N/icon"; fields
 *   "workouts" (aa{sv}, each as a workout's), "duration", "active-energy-burned",
 *   "average-heart-rate")
 * @JS_ASSET_CONTACT: a person (media "photo"; fields "name")
 * @JS_ASSET_LOCATION: a place (fields "place", "city", "latitude", "longitude", "altitude",
 *   "horizontal-accuracy", "timestamp", "date", "is-work-location")
 * @JS_ASSET_LOCATION_GROUP: places (fields "locations", aa{sv} each as a location's)
 * @JS_ASSET_SONG: a song (media "artwork"; fields "song", "artist", "album", "date")
 * @JS_ASSET_PODCAST: a podcast episode (media "artwork"; fields "episode", "show", "date")
 * @JS_ASSET_MOTION_ACTIVITY: steps (media "icon"; fields "steps", "date-start", "date-end",
 *   "movement-type": "walking", "running" or "runningWalking")
 * @JS_ASSET_GENERIC_MEDIA: media an app donated (media "app-icon", "artwork"; fields "title",
 *   "artist", "album", "date")
 * @JS_ASSET_REFLECTION: a reflection prompt (fields "prompt", "color" (dddd) sRGB and alpha)
 * @JS_ASSET_STATE_OF_MIND: how the person felt (media "icon"; fields "kind" ("momentaryEmotion"
 *   or "dailyMood"), "valence", "valence-classification" (1…7), "labels" and "associations" (au of
 *   HealthKit's raw values), "date", "light-background" and "dark-background" (a(ddddd): red, green,
 *   blue, alpha and location of each stop))
 *
 * The asset types of Apple's JournalingSuggestions. Dates are milliseconds since 1970 (x); a field
 * pickerd did not send is absent from js_item_get_fields().
 */
typedef enum {
  JS_ASSET_PHOTO,
  JS_ASSET_LIVE_PHOTO,
  JS_ASSET_VIDEO,
  JS_ASSET_WORKOUT,
  JS_ASSET_WORKOUT_GROUP,
  JS_ASSET_CONTACT,
  JS_ASSET_LOCATION,
  JS_ASSET_LOCATION_GROUP,
  JS_ASSET_SONG,
  JS_ASSET_PODCAST,
  JS_ASSET_MOTION_ACTIVITY,
  JS_ASSET_GENERIC_MEDIA,
  JS_ASSET_REFLECTION,
  JS_ASSET_STATE_OF_MIND,
} JsAssetKind;

/**
 * JsNotificationSchedule:
 * @JS_NOTIFICATION_SCHEDULE_SMART: at a time the system picks from the person's routine
 * @JS_NOTIFICATION_SCHEDULE_CUSTOM: at days and times the person set
 * @JS_NOTIFICATION_SCHEDULE_OFF: not for this app (see #JsOffCauses)
 *
 * When journaling reminders come (Apple's notificationSchedule).
 */
typedef enum {
  JS_NOTIFICATION_SCHEDULE_SMART,
  JS_NOTIFICATION_SCHEDULE_CUSTOM,
  JS_NOTIFICATION_SCHEDULE_OFF,
} JsNotificationSchedule;

/**
 * JsOffCauses:
 * @JS_OFF_CAUSE_NONE: the schedule is on
 * @JS_OFF_CAUSE_SUGGESTIONS_OFF: the person has not turned journaling suggestions on
 * @JS_OFF_CAUSE_NOT_CHOSEN_APP: another app (or none) is chosen to open reminders
 * @JS_OFF_CAUSE_NOTIFICATIONS_OFF: the person turned reminders off
 * @JS_OFF_CAUSE_NO_URL_FORMAT: this app declares no `JSNotificationURLFormat`
 *
 * Every reason the schedule is off for this app (Apple's four causes).
 */
typedef enum /*< flags >*/ {
  JS_OFF_CAUSE_NONE = 0,
  JS_OFF_CAUSE_SUGGESTIONS_OFF = 1 << 0,
  JS_OFF_CAUSE_NOT_CHOSEN_APP = 1 << 1,
  JS_OFF_CAUSE_NOTIFICATIONS_OFF = 1 << 2,
  JS_OFF_CAUSE_NO_URL_FORMAT = 1 << 3,
} JsOffCauses;

/**
 * JsStateOfMindKind:
 * @JS_STATE_OF_MIND_MOMENTARY_EMOTION: how the person felt at a moment
 * @JS_STATE_OF_MIND_DAILY_MOOD: how the day felt
 *
 * HealthKit's HKStateOfMind.Kind.
 */
typedef enum {
  JS_STATE_OF_MIND_MOMENTARY_EMOTION = 1,
  JS_STATE_OF_MIND_DAILY_MOOD = 2,
} JsStateOfMindKind;

/* ---- media ---- */

#define JS_TYPE_MEDIA (js_media_get_type ())
G_DECLARE_FINAL_TYPE (JsMedia, js_media, JS, MEDIA, GObject)

const char *js_media_get_role (JsMedia *self);
const char *js_media_get_content_type (JsMedia *self);
const char *js_media_get_filename (JsMedia *self);
guint64 js_media_get_byte_count (JsMedia *self);
guint js_media_get_pixel_width (JsMedia *self);
guint js_media_get_pixel_height (JsMedia *self);
int js_media_get_fd (JsMedia *self);
GBytes *js_media_read_bytes (JsMedia *self, GError **error);
char *js_media_save (JsMedia *self, const char *directory, GError **error);

/* ---- items and suggestions ---- */

#define JS_TYPE_ITEM (js_item_get_type ())
G_DECLARE_FINAL_TYPE (JsItem, js_item, JS, ITEM, GObject)

const char *js_item_get_id (JsItem *self);
JsAssetKind js_item_get_kind (JsItem *self);
const char *js_item_get_kind_name (JsItem *self);
GVariant *js_item_get_fields (JsItem *self);
const char *js_item_lookup_string (JsItem *self, const char *field);
GPtrArray *js_item_get_media (JsItem *self);
JsMedia *js_item_lookup_media (JsItem *self, const char *role);
JsMedia *js_item_get_image (JsItem *self);
gboolean js_item_get_utc_offset (JsItem *self, gint32 *seconds_east);

#define JS_TYPE_SUGGESTION (js_suggestion_get_type ())
G_DECLARE_FINAL_TYPE (JsSuggestion, js_suggestion, JS, SUGGESTION, GObject)

const char *js_suggestion_get_title (JsSuggestion *self);
gboolean js_suggestion_get_date (JsSuggestion *self, gint64 *start_unix_ms, gint64 *end_unix_ms);
GPtrArray *js_suggestion_get_items (JsSuggestion *self);

#define JS_TYPE_OUTCOME (js_outcome_get_type ())
G_DECLARE_FINAL_TYPE (JsOutcome, js_outcome, JS, OUTCOME, GObject)

JsOutcomeKind js_outcome_get_kind (JsOutcome *self);
JsDismissalReason js_outcome_get_dismissal_reason (JsOutcome *self);
JsSuggestion *js_outcome_get_suggestion (JsOutcome *self);

/* ---- the picker ---- */

#define JS_TYPE_PICKER (js_picker_get_type ())
G_DECLARE_FINAL_TYPE (JsPicker, js_picker, JS, PICKER, GObject)

JsPicker *js_picker_new (void);
const char *js_picker_get_button_title (JsPicker *self);
void js_picker_set_button_title (JsPicker *self, const char *button_title);
const char *js_picker_get_runtime_dir (JsPicker *self);
void js_picker_set_runtime_dir (JsPicker *self, const char *runtime_dir);
void js_picker_present (JsPicker *self,
                        const char *parent_window,
                        const char *suggestion_id,
                        GCancellable *cancellable,
                        GAsyncReadyCallback callback,
                        gpointer user_data);
JsOutcome *js_picker_present_finish (JsPicker *self, GAsyncResult *result, GError **error);
void js_picker_close (JsPicker *self);

gboolean js_notification_url_parse (const char *url, const char *format, char **suggestion_id);

/* ---- configuration ---- */

#define JS_TYPE_CONFIGURATION (js_configuration_get_type ())
G_DECLARE_FINAL_TYPE (JsConfiguration, js_configuration, JS, CONFIGURATION, GObject)

void js_configuration_fetch (const char *runtime_dir,
                             GCancellable *cancellable,
                             GAsyncReadyCallback callback,
                             gpointer user_data);
JsConfiguration *js_configuration_fetch_finish (GAsyncResult *result, GError **error);
JsNotificationSchedule js_configuration_get_schedule (JsConfiguration *self);
JsOffCauses js_configuration_get_off_causes (JsConfiguration *self);

/* ---- donations ---- */

#define JS_TYPE_DONATIONS (js_donations_get_type ())
G_DECLARE_FINAL_TYPE (JsDonations, js_donations, JS, DONATIONS, GObject)

JsDonations *js_donations_new (const char *runtime_dir);
void js_donations_donate_media (JsDonations *self,
                                const char *identifier,
                                const char *title,
                                const char *artist,
                                const char *album,
                                gint64 date_unix_ms,
                                const char *app_icon_path,
                                const char *artwork_path,
                                gboolean excluded_from_suggestions,
                                GCancellable *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer user_data);
void js_donations_donate_state_of_mind (JsDonations *self,
                                        const char *identifier,
                                        JsStateOfMindKind kind,
                                        double valence,
                                        guint valence_classification,
                                        const guint *labels,
                                        gsize n_labels,
                                        const guint *associations,
                                        gsize n_associations,
                                        gint64 date_unix_ms,
                                        const char *icon_path,
                                        gboolean excluded_from_suggestions,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data);
gboolean js_donations_donate_media_finish (JsDonations *self, GAsyncResult *result, GError **error);
gboolean js_donations_donate_state_of_mind_finish (JsDonations *self, GAsyncResult *result, GError **error);
void js_donations_withdraw (JsDonations *self,
                            const char * const *identifiers,
                            gboolean all,
                            GCancellable *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer user_data);
guint64 js_donations_withdraw_finish (JsDonations *self, GAsyncResult *result, GError **error);

G_END_DECLS
