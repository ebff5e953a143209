/* The configuration (Apple's JournalingSuggestionsConfiguration, with why it is off) and
 * donations of Generic Media and State of Mind, with their withdrawal: one request and its reply
 * each, on a GTask's thread. */
#define _GNU_SOURCE
#include "js-private.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* ---- JsConfiguration ---- */

/**
 * JsConfiguration:
 *
 * The journaling reminders as this app sees them: the schedule and, when it is off, every reason.
 */
struct _JsConfiguration {
  GObject parent_instance;
  JsNotificationSchedule schedule;
  JsOffCauses causes;
};

G_DEFINE_FINAL_TYPE (JsConfiguration, js_configuration, G_TYPE_OBJECT)

static void
js_configuration_class_init (JsConfigurationClass *klass)
{
  (void) klass;
}

static void
js_configuration_init (JsConfiguration *self)
{
  self->schedule = JS_NOTIFICATION_SCHEDULE_OFF;
}

/**
 * js_configuration_get_schedule:
 * @self: a #JsConfiguration
 *
 * Returns: when reminders come
 */
JsNotificationSchedule
js_configuration_get_schedule (JsConfiguration *self)
{
  g_return_val_if_fail (JS_IS_CONFIGURATION (self), JS_NOTIFICATION_SCHEDULE_OFF);
  return self->schedule;
}

/**
 * js_configuration_get_off_causes:
 * @self: a #JsConfiguration
 *
 * Returns: every reason the schedule is off; %JS_OFF_CAUSE_NONE unless it is
 */
JsOffCauses
js_configuration_get_off_causes (JsConfiguration *self)
{
  g_return_val_if_fail (JS_IS_CONFIGURATION (self), JS_OFF_CAUSE_NONE);
  return self->causes;
}

/* One request on a connection of its own, and its reply (or an error). */
static Pickerd__V1__Envelope *
call (const char *runtime_dir, Pickerd__V1__Envelope *request, const int *fds, guint n_fds, GCancellable *cancellable, GError **error)
{
  JsConnection *connection = js_connection_open (runtime_dir, cancellable, error);
  if (connection == NULL)
    return NULL;
  Pickerd__V1__Envelope *reply = js_connection_call (connection, request, fds, n_fds, cancellable, error);
  js_connection_free (connection);
  return reply;
}

static void
configuration_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  (void) source;
  GError *error = NULL;
  Pickerd__V1__ConfigurationRequest body = PICKERD__V1__CONFIGURATION_REQUEST__INIT;
  Pickerd__V1__Envelope request = PICKERD__V1__ENVELOPE__INIT;
  request.body_case = PICKERD__V1__ENVELOPE__BODY_CONFIGURATION;
  request.configuration = &body;
  Pickerd__V1__Envelope *reply = call (task_data, &request, NULL, 0, cancellable, &error);
  if (reply == NULL) {
    g_task_return_error (task, error);
    return;
  }
  if (reply->body_case != PICKERD__V1__ENVELOPE__BODY_CONFIGURATION_REPLY) {
    pickerd__v1__envelope__free_unpacked (reply, NULL);
    g_task_return_new_error (task, JS_ERROR, JS_ERROR_FAILED, "pickerd sent no configuration");
    return;
  }
  JsConfiguration *configuration = g_object_new (JS_TYPE_CONFIGURATION, NULL);
  switch (reply->configuration_reply->schedule) {
  case PICKERD__V1__NOTIFICATION_SCHEDULE__NOTIFICATION_SCHEDULE_SMART: configuration->schedule = JS_NOTIFICATION_SCHEDULE_SMART; break;
  case PICKERD__V1__NOTIFICATION_SCHEDULE__NOTIFICATION_SCHEDULE_CUSTOM: configuration->schedule = JS_NOTIFICATION_SCHEDULE_CUSTOM; break;
  default: configuration->schedule = JS_NOTIFICATION_SCHEDULE_OFF; break;
  }
  for (size_t i = 0; i < reply->configuration_reply->n_off_causes; i++) {
    switch (reply->configuration_reply->off_causes[i]) {
    case PICKERD__V1__OFF_CAUSE__OFF_CAUSE_SUGGESTIONS_OFF: configuration->causes |= JS_OFF_CAUSE_SUGGESTIONS_OFF; break;
    case PICKERD__V1__OFF_CAUSE__OFF_CAUSE_NOT_CHOSEN_APP: configuration->causes |= JS_OFF_CAUSE_NOT_CHOSEN_APP; break;
    case PICKERD__V1__OFF_CAUSE__OFF_CAUSE_NOTIFICATIONS_OFF: configuration->causes |= JS_OFF_CAUSE_NOTIFICATIONS_OFF; break;
    case PICKERD__V1__OFF_CAUSE__OFF_CAUSE_NO_URL_FORMAT: configuration->causes |= JS_OFF_CAUSE_NO_URL_FORMAT; break;
    default: break;
    }
  }
  pickerd__v1__envelope__free_unpacked (reply, NULL);
  g_task_return_pointer (task, configuration, g_object_unref);
}

/**
 * js_configuration_fetch:
 * @runtime_dir: (nullable) (type filename): pickerd's runtime directory; %NULL for
 *   `$PICKERD_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/pickerd`
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result
 * @user_data: data for @callback
 *
 * Reads the configuration from pickerd.
 */
void
js_configuration_fetch (const char *runtime_dir, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, js_configuration_fetch);
  g_task_set_task_data (task, g_strdup (runtime_dir), g_free);
  g_task_run_in_thread (task, configuration_thread);
}

/**
 * js_configuration_fetch_finish:
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the configuration, or %NULL with @error set
 */
JsConfiguration *
js_configuration_fetch_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- JsDonations ---- */

/**
 * JsDonations:
 *
 * Donations to journaling suggestions: media the app played or showed (Generic Media) and how the
 * person said they felt (State of Mind), which then appear in the person's suggestions for every
 * journaling app. The app's entitlements must set `org.pickerd.journal.donations` to true.
 * Donating gives the app an acknowledgement and nothing else.
 */
struct _JsDonations {
  GObject parent_instance;
  char *runtime_dir;
};

G_DEFINE_FINAL_TYPE (JsDonations, js_donations, G_TYPE_OBJECT)

static void
js_donations_finalize (GObject *object)
{
  g_free (JS_DONATIONS (object)->runtime_dir);
  G_OBJECT_CLASS (js_donations_parent_class)->finalize (object);
}

static void
js_donations_class_init (JsDonationsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = js_donations_finalize;
}

static void
js_donations_init (JsDonations *self)
{
  (void) self;
}

/**
 * js_donations_new:
 * @runtime_dir: (nullable) (type filename): pickerd's runtime directory; %NULL for
 *   `$PICKERD_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/pickerd`
 *
 * Returns: (transfer full): a donor
 */
JsDonations *
js_donations_new (const char *runtime_dir)
{
  JsDonations *self = g_object_new (JS_TYPE_DONATIONS, NULL);
  self->runtime_dir = g_strdup (runtime_dir);
  return self;
}

typedef struct {
  char *runtime_dir;
  Pickerd__V1__Envelope *request;  /* packed from this thread's copies */
  GPtrArray *strings;              /* what the request points to */
  int fds[2];
  guint n_fds;
  char *open_error;
} Donation;

static void
donation_free (Donation *d)
{
  for (guint i = 0; i < d->n_fds; i++)
    close (d->fds[i]);
  g_free (d->runtime_dir);
  g_free (d->open_error);
  g_ptr_array_unref (d->strings);
  g_free (d);
}

static char *
keep (Donation *d, const char *text)
{
  char *copy = g_strdup (text ? text : "");
  g_ptr_array_add (d->strings, copy);
  return copy;
}

/* A picture to donate, opened read-only: pickerd gets the descriptor, never the path. */
static Pickerd__V1__Media *
attach (Donation *d, const char *path)
{
  if (path == NULL)
    return NULL;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (d->open_error == NULL)
      d->open_error = g_strdup_printf ("cannot open %s: %s", path, g_strerror (errno));
    return NULL;
  }
  Pickerd__V1__Media *media = g_new0 (Pickerd__V1__Media, 1);
  pickerd__v1__media__init (media);
  media->has_fd = TRUE;
  media->fd_index = d->n_fds;
  g_autofree char *base = g_path_get_basename (path);
  media->filename = keep (d, base);
  g_ptr_array_add (d->strings, media);
  d->fds[d->n_fds++] = fd;
  return media;
}

static void
donation_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  (void) source;
  Donation *d = task_data;
  GError *error = NULL;
  if (d->open_error != NULL) {
    g_task_return_new_error (task, JS_ERROR, JS_ERROR_INVALID_ARGUMENT, "%s", d->open_error);
    return;
  }
  Pickerd__V1__Envelope *reply = call (d->runtime_dir, d->request, d->fds, d->n_fds, cancellable, &error);
  if (reply == NULL) {
    g_task_return_error (task, error);
    return;
  }
  if (reply->body_case == PICKERD__V1__ENVELOPE__BODY_DONATION_REPLY)
    g_task_return_boolean (task, TRUE);
  else if (reply->body_case == PICKERD__V1__ENVELOPE__BODY_WITHDRAW_DONATIONS_REPLY)
    g_task_return_pointer (task, g_memdup2 (&reply->withdraw_donations_reply->withdrawn, sizeof (guint64)), g_free);
  else
    g_task_return_new_error (task, JS_ERROR, JS_ERROR_FAILED, "pickerd did not acknowledge the request");
  pickerd__v1__envelope__free_unpacked (reply, NULL);
}

static Donation *
donation_new (JsDonations *self)
{
  Donation *d = g_new0 (Donation, 1);
  d->runtime_dir = g_strdup (self->runtime_dir);
  d->strings = g_ptr_array_new_with_free_func (g_free);
  d->request = g_new0 (Pickerd__V1__Envelope, 1);
  pickerd__v1__envelope__init (d->request);
  g_ptr_array_add (d->strings, d->request);
  return d;
}

static Pickerd__V1__Timestamp *
timestamp (Donation *d, gint64 unix_ms)
{
  if (unix_ms == 0)
    return NULL;  /* now, as pickerd reads an absent date */
  Pickerd__V1__Timestamp *t = g_new0 (Pickerd__V1__Timestamp, 1);
  pickerd__v1__timestamp__init (t);
  t->unix_ms = unix_ms;
  g_ptr_array_add (d->strings, t);
  return t;
}

static void
run (JsDonations *self, Donation *d, gpointer tag, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, d, (GDestroyNotify) donation_free);
  g_task_run_in_thread (task, donation_thread);
}

/**
 * js_donations_donate_media:
 * @self: a #JsDonations
 * @identifier: the app's identifier for it (1…256 bytes); donating again with it replaces it
 * @title: (nullable): the title
 * @artist: (nullable): the artist
 * @album: (nullable): the album
 * @date_unix_ms: when, in milliseconds since 1970; 0 for now
 * @app_icon_path: (nullable) (type filename): the app's icon, a PNG or JPEG of at most 8 MiB
 * @artwork_path: (nullable) (type filename): the media's artwork, likewise
 * @excluded_from_suggestions: keep it out of every suggestion (Apple's per-item opt-out)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result
 * @user_data: data for @callback
 *
 * Donates media the person played or read in the app. The pictures go to pickerd as read-only
 * descriptors: it copies them and never learns their paths.
 */
void
js_donations_donate_media (JsDonations *self, const char *identifier, const char *title, const char *artist, const char *album,
                           gint64 date_unix_ms, const char *app_icon_path, const char *artwork_path, gboolean excluded_from_suggestions,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (JS_IS_DONATIONS (self));
  g_return_if_fail (identifier != NULL);
  Donation *d = donation_new (self);
  Pickerd__V1__GenericMedia *media = g_new0 (Pickerd__V1__GenericMedia, 1);
  pickerd__v1__generic_media__init (media);
  g_ptr_array_add (d->strings, media);
  media->title = keep (d, title);
  media->artist = keep (d, artist);
  media->album = keep (d, album);
  media->date = timestamp (d, date_unix_ms);
  media->app_icon = attach (d, app_icon_path);
  media->artwork = attach (d, artwork_path);
  Pickerd__V1__DonationRequest *donation = g_new0 (Pickerd__V1__DonationRequest, 1);
  pickerd__v1__donation_request__init (donation);
  g_ptr_array_add (d->strings, donation);
  donation->external_id = keep (d, identifier);
  donation->exclude_from_suggestions = excluded_from_suggestions;
  donation->asset_case = PICKERD__V1__DONATION_REQUEST__ASSET_GENERIC_MEDIA;
  donation->generic_media = media;
  d->request->body_case = PICKERD__V1__ENVELOPE__BODY_DONATION;
  d->request->donation = donation;
  run (self, d, js_donations_donate_media, cancellable, callback, user_data);
}

/**
 * js_donations_donate_state_of_mind:
 * @self: a #JsDonations
 * @identifier: the app's identifier for it (1…256 bytes); donating again with it replaces it
 * @kind: a momentary emotion or a daily mood
 * @valence: how pleasant, from -1 to 1
 * @valence_classification: HealthKit's classification, 1…7; 0 to have it worked out from @valence
 * @labels: (array length=n_labels): HealthKit's label raw values (1…38)
 * @n_labels: how many labels
 * @associations: (array length=n_associations): HealthKit's association raw values (1…18)
 * @n_associations: how many associations
 * @date_unix_ms: when, in milliseconds since 1970; 0 for now
 * @icon_path: (nullable) (type filename): a PNG or JPEG to show with it
 * @excluded_from_suggestions: keep it out of every suggestion
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result
 * @user_data: data for @callback
 *
 * Donates how the person said they felt (HealthKit's State of Mind).
 */
void
js_donations_donate_state_of_mind (JsDonations *self, const char *identifier, JsStateOfMindKind kind, double valence,
                                   guint valence_classification, const guint *labels, gsize n_labels, const guint *associations,
                                   gsize n_associations, gint64 date_unix_ms, const char *icon_path, gboolean excluded_from_suggestions,
                                   GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (JS_IS_DONATIONS (self));
  g_return_if_fail (identifier != NULL);
  Donation *d = donation_new (self);
  Pickerd__V1__StateOfMindSample *sample = g_new0 (Pickerd__V1__StateOfMindSample, 1);
  pickerd__v1__state_of_mind_sample__init (sample);
  g_ptr_array_add (d->strings, sample);
  sample->kind = (Pickerd__V1__StateOfMindKind) kind;
  sample->valence = valence;
  sample->valence_classification = (Pickerd__V1__ValenceClassification) valence_classification;
  sample->n_labels = n_labels;
  sample->labels = g_new0 (Pickerd__V1__StateOfMindLabel, n_labels ? n_labels : 1);
  g_ptr_array_add (d->strings, sample->labels);
  for (gsize i = 0; i < n_labels; i++)
    sample->labels[i] = (Pickerd__V1__StateOfMindLabel) labels[i];
  sample->n_associations = n_associations;
  sample->associations = g_new0 (Pickerd__V1__StateOfMindAssociation, n_associations ? n_associations : 1);
  g_ptr_array_add (d->strings, sample->associations);
  for (gsize i = 0; i < n_associations; i++)
    sample->associations[i] = (Pickerd__V1__StateOfMindAssociation) associations[i];
  sample->date = timestamp (d, date_unix_ms);
  Pickerd__V1__StateOfMind *state = g_new0 (Pickerd__V1__StateOfMind, 1);
  pickerd__v1__state_of_mind__init (state);
  g_ptr_array_add (d->strings, state);
  state->state = sample;
  state->icon = attach (d, icon_path);
  Pickerd__V1__DonationRequest *donation = g_new0 (Pickerd__V1__DonationRequest, 1);
  pickerd__v1__donation_request__init (donation);
  g_ptr_array_add (d->strings, donation);
  donation->external_id = keep (d, identifier);
  donation->exclude_from_suggestions = excluded_from_suggestions;
  donation->asset_case = PICKERD__V1__DONATION_REQUEST__ASSET_STATE_OF_MIND;
  donation->state_of_mind = state;
  d->request->body_case = PICKERD__V1__ENVELOPE__BODY_DONATION;
  d->request->donation = donation;
  run (self, d, js_donations_donate_state_of_mind, cancellable, callback, user_data);
}

/**
 * js_donations_donate_media_finish:
 * @self: a #JsDonations
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Returns: %TRUE when pickerd kept the donation; %FALSE with @error set (%JS_ERROR_NOT_ENTITLED
 *   without the donations entitlement, %JS_ERROR_INVALID_ARGUMENT naming a wrong field)
 */
gboolean
js_donations_donate_media_finish (JsDonations *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == js_donations_donate_media, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * js_donations_donate_state_of_mind_finish:
 * @self: a #JsDonations
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Returns: %TRUE when pickerd kept the donation; %FALSE with @error set (%JS_ERROR_NOT_ENTITLED
 *   without the donations entitlement, %JS_ERROR_INVALID_ARGUMENT naming a wrong field)
 */
gboolean
js_donations_donate_state_of_mind_finish (JsDonations *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == js_donations_donate_state_of_mind, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * js_donations_withdraw:
 * @self: a #JsDonations
 * @identifiers: (nullable) (array zero-terminated=1): the app's identifiers of the donations to
 *   withdraw
 * @all: withdraw every donation the app made instead
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result
 * @user_data: data for @callback
 *
 * Withdraws the app's donations: they leave the person's suggestions and are never released again.
 * Identifiers the app did not donate name nothing (another app's donations are never touched).
 */
void
js_donations_withdraw (JsDonations *self, const char *const *identifiers, gboolean all, GCancellable *cancellable,
                       GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (JS_IS_DONATIONS (self));
  Donation *d = donation_new (self);
  Pickerd__V1__WithdrawDonationsRequest *withdraw = g_new0 (Pickerd__V1__WithdrawDonationsRequest, 1);
  pickerd__v1__withdraw_donations_request__init (withdraw);
  g_ptr_array_add (d->strings, withdraw);
  withdraw->all = all;
  withdraw->n_external_ids = identifiers ? g_strv_length ((char **) identifiers) : 0;
  withdraw->external_ids = g_new0 (char *, withdraw->n_external_ids + 1);
  g_ptr_array_add (d->strings, withdraw->external_ids);
  for (gsize i = 0; i < withdraw->n_external_ids; i++)
    withdraw->external_ids[i] = keep (d, identifiers[i]);
  d->request->body_case = PICKERD__V1__ENVELOPE__BODY_WITHDRAW_DONATIONS;
  d->request->withdraw_donations = withdraw;
  run (self, d, js_donations_withdraw, cancellable, callback, user_data);
}

/**
 * js_donations_withdraw_finish:
 * @self: a #JsDonations
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Returns: how many donations were withdrawn (0 with @error set on failure)
 */
guint64
js_donations_withdraw_finish (JsDonations *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), 0);
  g_autofree guint64 *count = g_task_propagate_pointer (G_TASK (result), error);
  return count ? *count : 0;
}
