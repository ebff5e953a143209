/* JsPicker: present the picker and wait, on a GTask's thread, for the one outcome; close the
 * request; and the notification URL's token. */
#include "js-private.h"

#include <string.h>

/**
 * JsPicker:
 *
 * The journaling suggestions picker (Apple's JournalingSuggestionsPicker), for apps on Linux.
 *
 * js_picker_present() asks pickerd to show the picker, which pickerd's own trusted process draws
 * (in a window over the app's, in a terminal, or scripted); the app receives only the items the
 * person approved, with js_picker_present_finish(). The main loop never blocks: the socket is
 * read on a worker thread. There is no time limit on a person's review.
 */
struct _JsPicker {
  GObject parent_instance;
  char *button_title;
  char *runtime_dir;
  GMutex lock;               /* guards what follows, shared with the presenting thread */
  gboolean presenting;
  JsConnection *connection;  /* while a presentation is open */
  char *handle;              /* its session handle, once pickerd accepted it */
  gboolean close_requested;
};

enum { PROP_0, PROP_BUTTON_TITLE, PROP_RUNTIME_DIR, N_PROPS };
static GParamSpec *properties[N_PROPS];
enum { SIGNAL_ACCEPTED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (JsPicker, js_picker, G_TYPE_OBJECT)

/* GLib 2.76's g_set_str, for Debian 12's 2.74. */
static gboolean
replace_string (char **slot, const char *value)
{
  if (g_strcmp0 (*slot, value) == 0)
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (value);
  return TRUE;
}

static void
js_picker_finalize (GObject *object)
{
  JsPicker *self = JS_PICKER (object);
  g_free (self->button_title);
  g_free (self->runtime_dir);
  g_free (self->handle);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (js_picker_parent_class)->finalize (object);
}

static void
js_picker_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  JsPicker *self = JS_PICKER (object);
  switch (id) {
  case PROP_BUTTON_TITLE: g_value_set_string (value, self->button_title); break;
  case PROP_RUNTIME_DIR: g_value_set_string (value, self->runtime_dir); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
js_picker_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  JsPicker *self = JS_PICKER (object);
  switch (id) {
  case PROP_BUTTON_TITLE: js_picker_set_button_title (self, g_value_get_string (value)); break;
  case PROP_RUNTIME_DIR: js_picker_set_runtime_dir (self, g_value_get_string (value)); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
js_picker_class_init (JsPickerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = js_picker_finalize;
  object_class->get_property = js_picker_get_property;
  object_class->set_property = js_picker_set_property;
  /**
   * JsPicker:button-title:
   *
   * The title of the button that adds the suggestion to the app ("Add to My Journal").
   */
  properties[PROP_BUTTON_TITLE] = g_param_spec_string ("button-title", NULL, NULL, NULL,
                                                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * JsPicker:runtime-dir:
   *
   * pickerd's runtime directory; %NULL for `$PICKERD_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/pickerd`.
   */
  properties[PROP_RUNTIME_DIR] = g_param_spec_string ("runtime-dir", NULL, NULL, NULL,
                                                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  /**
   * JsPicker::accepted:
   * @self: the #JsPicker
   *
   * pickerd accepted the presentation: the picker is on its way to the person. Emitted in the
   * thread-default main context of js_picker_present(), before the outcome. An app may show that
   * the picker is open; it learns nothing else (a token that matched no suggestion is accepted
   * the same).
   */
  signals[SIGNAL_ACCEPTED] = g_signal_new ("accepted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static gboolean
emit_accepted (gpointer data)
{
  g_signal_emit (data, signals[SIGNAL_ACCEPTED], 0);
  return G_SOURCE_REMOVE;
}

static void
js_picker_init (JsPicker *self)
{
  g_mutex_init (&self->lock);
}

/**
 * js_picker_new:
 *
 * Returns: (transfer full): a new picker
 */
JsPicker *
js_picker_new (void)
{
  return g_object_new (JS_TYPE_PICKER, NULL);
}

/**
 * js_picker_get_button_title:
 * @self: a #JsPicker
 *
 * Returns: (nullable): the #JsPicker:button-title
 */
const char *
js_picker_get_button_title (JsPicker *self)
{
  g_return_val_if_fail (JS_IS_PICKER (self), NULL);
  return self->button_title;
}

/**
 * js_picker_set_button_title:
 * @self: a #JsPicker
 * @button_title: (nullable): the confirming button's title
 *
 * Sets the #JsPicker:button-title.
 */
void
js_picker_set_button_title (JsPicker *self, const char *button_title)
{
  g_return_if_fail (JS_IS_PICKER (self));
  if (replace_string (&self->button_title, button_title))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUTTON_TITLE]);
}

/**
 * js_picker_get_runtime_dir:
 * @self: a #JsPicker
 *
 * Returns: (nullable) (type filename): the #JsPicker:runtime-dir
 */
const char *
js_picker_get_runtime_dir (JsPicker *self)
{
  g_return_val_if_fail (JS_IS_PICKER (self), NULL);
  return self->runtime_dir;
}

/**
 * js_picker_set_runtime_dir:
 * @self: a #JsPicker
 * @runtime_dir: (nullable) (type filename): pickerd's runtime directory
 *
 * Sets the #JsPicker:runtime-dir.
 */
void
js_picker_set_runtime_dir (JsPicker *self, const char *runtime_dir)
{
  g_return_if_fail (JS_IS_PICKER (self));
  if (replace_string (&self->runtime_dir, runtime_dir))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNTIME_DIR]);
}

typedef struct {
  char *runtime_dir;
  char *button_title;
  char *parent_window;
  char *suggestion_id;
} PresentData;

static void
present_data_free (PresentData *data)
{
  g_free (data->runtime_dir);
  g_free (data->button_title);
  g_free (data->parent_window);
  g_free (data->suggestion_id);
  g_free (data);
}

/* Sends the close request for the open presentation. Called with the lock held. */
static void
send_close_locked (JsPicker *self)
{
  Pickerd__V1__CloseRequest close = PICKERD__V1__CLOSE_REQUEST__INIT;
  close.session_handle = self->handle;
  Pickerd__V1__Envelope envelope = PICKERD__V1__ENVELOPE__INIT;
  envelope.request_id = G_MAXUINT64;
  envelope.body_case = PICKERD__V1__ENVELOPE__BODY_CLOSE;
  envelope.close = &close;
  /* A connection already gone needs no closing: the outcome (or its absence) says what happened. */
  js_connection_send (self->connection, &envelope, NULL, 0, NULL);
}

static void
present_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  JsPicker *self = source;
  PresentData *data = task_data;
  GError *error = NULL;
  JsConnection *connection = js_connection_open (data->runtime_dir, cancellable, &error);
  if (connection == NULL) {
    g_mutex_lock (&self->lock);
    self->presenting = FALSE;
    g_mutex_unlock (&self->lock);
    g_task_return_error (task, error);
    return;
  }
  Pickerd__V1__PresentRequest present = PICKERD__V1__PRESENT_REQUEST__INIT;
  present.suggestion_token = data->suggestion_id ? data->suggestion_id : (char *) "";
  present.button_title = data->button_title ? data->button_title : (char *) "";
  present.parent_window = data->parent_window ? data->parent_window : (char *) "";
  Pickerd__V1__Envelope request = PICKERD__V1__ENVELOPE__INIT;
  request.request_id = 2;  /* the hello was 1 */
  request.body_case = PICKERD__V1__ENVELOPE__BODY_PRESENT;
  request.present = &present;

  g_mutex_lock (&self->lock);
  self->connection = connection;
  g_mutex_unlock (&self->lock);

  JsOutcome *outcome = NULL;
  gboolean cancelled = FALSE;
  if (js_connection_send (connection, &request, NULL, 0, &error)) {
    for (;;) {
      GArray *fds = NULL;
      Pickerd__V1__Envelope *reply = js_connection_receive (connection, &fds, cancelled ? NULL : cancellable, &error);
      if (reply == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
        /* Cancelled: withdraw the presentation (now, or as soon as pickerd accepts it), then wait
         * for pickerd's word that it is closed, so the picker is gone when the callback runs. */
        g_clear_error (&error);
        cancelled = TRUE;
        g_mutex_lock (&self->lock);
        self->close_requested = TRUE;
        if (self->handle != NULL)
          send_close_locked (self);
        g_mutex_unlock (&self->lock);
        continue;
      }
      if (reply == NULL)
        break;
      if (reply->request_id == request.request_id) {
        if (reply->body_case == PICKERD__V1__ENVELOPE__BODY_PRESENT_ACCEPTED) {
          g_mutex_lock (&self->lock);
          self->handle = g_strdup (reply->present_accepted->session_handle);
          if (self->close_requested)
            send_close_locked (self);
          g_mutex_unlock (&self->lock);
          g_main_context_invoke_full (g_task_get_context (task), G_PRIORITY_DEFAULT, emit_accepted, g_object_ref (self), g_object_unref);
        } else if (reply->body_case == PICKERD__V1__ENVELOPE__BODY_ERROR) {
          js_set_remote_error (&error, reply->error);
        } else if (reply->body_case == PICKERD__V1__ENVELOPE__BODY_OUTCOME) {
          outcome = js_outcome_from_message (reply->outcome, fds, &error);
        }
      }
      /* Every descriptor received is closed here: the outcome's media hold copies of theirs, and
       * a descriptor no media names is not kept. */
      js_close_fds (fds);
      gboolean done = reply->request_id == request.request_id
                      && (reply->body_case == PICKERD__V1__ENVELOPE__BODY_OUTCOME || reply->body_case == PICKERD__V1__ENVELOPE__BODY_ERROR);
      pickerd__v1__envelope__free_unpacked (reply, NULL);
      if (done)
        break;
    }
  }
  g_mutex_lock (&self->lock);
  self->connection = NULL;
  g_clear_pointer (&self->handle, g_free);
  self->close_requested = FALSE;
  self->presenting = FALSE;
  g_mutex_unlock (&self->lock);
  js_connection_free (connection);
  if (cancelled) {
    g_clear_object (&outcome);
    g_clear_error (&error);
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "the presentation was cancelled");
  } else if (outcome != NULL) {
    g_task_return_pointer (task, outcome, g_object_unref);
  } else {
    if (error == NULL)
      g_set_error_literal (&error, JS_ERROR, JS_ERROR_FAILED, "pickerd sent no outcome");
    g_task_return_error (task, error);
  }
}

/**
 * js_picker_present:
 * @self: a #JsPicker
 * @parent_window: (nullable): the app's window, as xdg-desktop-portal names one ("x11:<hex XID>"
 *   or "wayland:<exported handle>"; js_gtk_window_export_parent() makes one from a #GtkWindow), so
 *   the desktop picker appears over it. It only names a window and grants nothing.
 * @suggestion_id: (nullable): a suggestion identifier from a notification's URL
 *   (js_notification_url_parse()): the picker opens on it, and the person still reviews. Whether it
 *   matched a suggestion is never revealed.
 * @cancellable: (nullable): cancelling it withdraws the presentation (the picker is dismissed) and
 *   the result is %G_IO_ERROR_CANCELLED
 * @callback: called with the result, in the thread-default main context of this call
 * @user_data: data for @callback
 *
 * Presents the picker. One presentation per app at a time: pickerd answers a second with
 * %JS_ERROR_BUSY.
 */
void
js_picker_present (JsPicker *self, const char *parent_window, const char *suggestion_id, GCancellable *cancellable,
                   GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (JS_IS_PICKER (self));
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, js_picker_present);
  g_mutex_lock (&self->lock);
  gboolean busy = self->presenting;
  self->presenting = TRUE;
  g_mutex_unlock (&self->lock);
  if (busy) {
    g_task_return_new_error (task, JS_ERROR, JS_ERROR_BUSY, "this picker is already presenting");
    return;
  }
  PresentData *data = g_new0 (PresentData, 1);
  data->runtime_dir = g_strdup (self->runtime_dir);
  data->button_title = g_strdup (self->button_title);
  data->parent_window = g_strdup (parent_window);
  data->suggestion_id = g_strdup (suggestion_id);
  g_task_set_task_data (task, data, (GDestroyNotify) present_data_free);
  g_task_run_in_thread (task, present_thread);
}

/**
 * js_picker_present_finish:
 * @self: a #JsPicker
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): how the presentation ended, or %NULL with @error set (a #JsError, or
 *   %G_IO_ERROR_CANCELLED)
 */
JsOutcome *
js_picker_present_finish (JsPicker *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * js_picker_close:
 * @self: a #JsPicker
 *
 * Withdraws the presentation in progress: the picker is dismissed and the outcome is
 * %JS_OUTCOME_DISMISSED with %JS_DISMISSAL_CLOSED_BY_APP. Nothing happens when none is in
 * progress.
 */
void
js_picker_close (JsPicker *self)
{
  g_return_if_fail (JS_IS_PICKER (self));
  g_mutex_lock (&self->lock);
  if (self->presenting) {
    self->close_requested = TRUE;
    if (self->handle != NULL && self->connection != NULL)
      send_close_locked (self);
  }
  g_mutex_unlock (&self->lock);
}

/* Whether TEXT is a UUID: a suggestion identifier, or nothing. */
static gboolean
is_uuid (const char *text)
{
  return text != NULL && g_uuid_string_is_valid (text);
}

/**
 * js_notification_url_parse:
 * @url: the URL the app was opened with
 * @format: (nullable): the app's `JSNotificationURLFormat` (with `{journaling-suggestion-id}`); it
 *   says where the identifier sits. Without it, a query value that is a UUID, or else the last path
 *   component, is taken.
 * @suggestion_id: (out) (transfer full) (optional): the suggestion identifier to pass to
 *   js_picker_present(); empty for a general reminder
 *
 * Reads the suggestion a tapped notification names (Apple's
 * JournalingSuggestionPresentationToken from a URL), in path form (`myapp://suggestions/<id>`) or
 * query form (`myapp://open?suggestion=<id>`).
 *
 * Returns: %FALSE when the URL does not match the format or its identifier is not a UUID
 */
gboolean
js_notification_url_parse (const char *url, const char *format, char **suggestion_id)
{
  g_return_val_if_fail (url != NULL, FALSE);
  static const char placeholder[] = "{journaling-suggestion-id}";
  g_autofree char *candidate = NULL;
  const char *at = format ? strstr (format, placeholder) : NULL;
  if (at != NULL) {
    gsize prefix = (gsize) (at - format), suffix = strlen (at + strlen (placeholder)), length = strlen (url);
    if (length < prefix + suffix || strncmp (url, format, prefix) != 0 || strcmp (url + length - suffix, at + strlen (placeholder)) != 0)
      return FALSE;
    g_autofree char *middle = g_strndup (url + prefix, length - prefix - suffix);
    candidate = g_uri_unescape_string (middle, NULL);
    if (candidate == NULL)
      return FALSE;
  } else {
    g_autoptr (GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
    if (uri == NULL)
      return FALSE;
    const char *query = g_uri_get_query (uri);
    if (query != NULL && *query != '\0') {
      g_autoptr (GHashTable) params = g_uri_parse_params (query, -1, "&", G_URI_PARAMS_NONE, NULL);
      if (params == NULL)
        return FALSE;
      GHashTableIter iter;
      gpointer key, value;
      gboolean empty = FALSE;
      g_hash_table_iter_init (&iter, params);
      while (g_hash_table_iter_next (&iter, &key, &value)) {
        if (is_uuid (value) && candidate == NULL)
          candidate = g_strdup (value);
        empty = empty || *(const char *) value == '\0';
      }
      if (candidate == NULL && empty)
        candidate = g_strdup ("");
      if (candidate == NULL)
        return FALSE;
    } else {
      const char *path = g_uri_get_path (uri);
      const char *slash = strrchr (path, '/');
      candidate = g_strdup (slash ? slash + 1 : path);
    }
  }
  if (*candidate != '\0' && !is_uuid (candidate))
    return FALSE;
  if (suggestion_id != NULL)
    *suggestion_id = g_steal_pointer (&candidate);
  return TRUE;
}
