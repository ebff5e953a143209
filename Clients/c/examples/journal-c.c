/* journal-c: a small journaling app in C on libjournalingsuggestions-1. It presents pickerd's
 * picker, and when the person approves a suggestion writes a Markdown entry of the items they kept,
 * with the approved media copied beside it. Prints the entry's path.
 *
 *   journal-c --output DIR [--runtime-dir DIR] [--url URL [--url-format FORMAT]]
 *
 * Exit status: 0 an entry was written, 3 the person cancelled, 4 the picker was dismissed, 1 an
 * error (said on stderr). */
#include <journalingsuggestions.h>
#include <locale.h>
#include <stdio.h>

typedef struct {
  GMainLoop *loop;
  const char *output;
  int status;
} App;

static char *
describe (JsItem *item)
{
  GVariant *fields = js_item_get_fields (item);
  const char *text = NULL;
  for (const char *const *key = (const char *const[]) { "title", "song", "episode", "place", "name", "prompt", "localized-name", NULL };
       *key != NULL; key++) {
    if (g_variant_lookup (fields, *key, "&s", &text))
      break;
  }
  gint64 steps = 0;
  if (text == NULL && g_variant_lookup (fields, "steps", "x", &steps))
    return g_strdup_printf ("%" G_GINT64_FORMAT " steps", steps);
  return g_strdup (text ? text : "");
}

/* The item's time as it was lived where it happened: in its own offset when pickerd sent one (only
 * with a place the person kept), else in ours; empty for an item with no time. */
static char *
local_time (JsItem *item)
{
  GVariant *fields = js_item_get_fields (item);
  gint64 ms = 0;
  if (!g_variant_lookup (fields, "date", "x", &ms) && !g_variant_lookup (fields, "date-start", "x", &ms))
    return g_strdup ("");
  gint32 offset = 0;
  g_autoptr (GTimeZone) zone = js_item_get_utc_offset (item, &offset) ? g_time_zone_new_offset (offset) : g_time_zone_new_local ();
  g_autoptr (GDateTime) utc = g_date_time_new_from_unix_utc (ms / 1000);
  g_autoptr (GDateTime) there = g_date_time_to_timezone (utc, zone);
  return g_date_time_format (there, " · %A %-d %B, %H:%M");
}

static void
write_entry (App *app, JsSuggestion *suggestion)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y-%m-%d-%H%M%S");
  g_autofree char *name = g_strdup_printf ("%s.md", stamp);
  g_autofree char *path = g_build_filename (app->output, name, NULL);
  g_autofree char *media_dir = g_strdup_printf ("%.*s-media", (int) (strlen (path) - 3), path);
  GString *entry = g_string_new (NULL);
  g_string_append_printf (entry, "# %s\n\n", js_suggestion_get_title (suggestion));
  gint64 start = 0, end = 0;
  if (js_suggestion_get_date (suggestion, &start, &end)) {
    g_autoptr (GDateTime) from = g_date_time_new_from_unix_local (start / 1000);
    g_autoptr (GDateTime) to = g_date_time_new_from_unix_local (end / 1000);
    g_autofree char *a = g_date_time_format (from, "%Y-%m-%d %H:%M"), *b = g_date_time_format (to, "%Y-%m-%d %H:%M");
    g_string_append_printf (entry, "*%s – %s*\n\n", a, b);
  }
  GPtrArray *items = js_suggestion_get_items (suggestion);
  for (guint i = 0; i < items->len; i++) {
    JsItem *item = g_ptr_array_index (items, i);
    g_autofree char *text = describe (item), *when = local_time (item);
    g_string_append_printf (entry, "- **%s** %s%s\n", js_item_get_kind_name (item), text, when);
    GPtrArray *media = js_item_get_media (item);
    for (guint m = 0; m < media->len; m++) {
      g_autofree char *saved = js_media_save (g_ptr_array_index (media, m), media_dir, &error);
      if (saved == NULL) {
        g_printerr ("journal-c: %s\n", error->message);
        app->status = 1;
        g_string_free (entry, TRUE);
        return;
      }
      g_autofree char *base = g_path_get_basename (saved);
      g_string_append_printf (entry, "  ![%s](%s-media/%s)\n", js_media_get_role (g_ptr_array_index (media, m)), stamp, base);
    }
  }
  if (!g_file_set_contents (path, entry->str, (gssize) entry->len, &error)) {
    g_printerr ("journal-c: %s\n", error->message);
    app->status = 1;
  } else {
    g_print ("%s\n", path);
    app->status = 0;
  }
  g_string_free (entry, TRUE);
}

static void
presented (GObject *source, GAsyncResult *result, gpointer user_data)
{
  App *app = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsOutcome) outcome = js_picker_present_finish (JS_PICKER (source), result, &error);
  if (outcome == NULL) {
    g_printerr ("journal-c: %s\n", error->message);
    app->status = 1;
  } else if (js_outcome_get_kind (outcome) == JS_OUTCOME_APPROVED) {
    write_entry (app, js_outcome_get_suggestion (outcome));
  } else {
    app->status = js_outcome_get_kind (outcome) == JS_OUTCOME_CANCELLED ? 3 : 4;
  }
  g_main_loop_quit (app->loop);
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  g_autofree char *output = NULL, *runtime_dir = NULL, *url = NULL, *url_format = NULL;
  GOptionEntry entries[] = {
    { "output", 0, 0, G_OPTION_ARG_FILENAME, &output, "where entries are written", "DIR" },
    { "runtime-dir", 0, 0, G_OPTION_ARG_FILENAME, &runtime_dir, "pickerd's runtime directory", "DIR" },
    { "url", 0, 0, G_OPTION_ARG_STRING, &url, "the notification URL the app was opened with", "URL" },
    { "url-format", 0, 0, G_OPTION_ARG_STRING, &url_format, "the app's JSNotificationURLFormat", "FORMAT" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("— write a journal entry from a suggestion");
  g_option_context_add_main_entries (context, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (context, &argc, &argv, &error) || output == NULL) {
    g_printerr ("journal-c: %s\n", error ? error->message : "--output DIR is needed");
    return 2;
  }
  g_autofree char *suggestion_id = NULL;
  if (url != NULL && !js_notification_url_parse (url, url_format, &suggestion_id)) {
    g_printerr ("journal-c: %s names no suggestion\n", url);
    return 2;
  }
  if (g_mkdir_with_parents (output, 0700) != 0) {
    g_printerr ("journal-c: cannot make %s\n", output);
    return 1;
  }
  App app = { g_main_loop_new (NULL, FALSE), output, 1 };
  g_autoptr (JsPicker) picker = js_picker_new ();
  js_picker_set_button_title (picker, "Add to Journal C");
  js_picker_set_runtime_dir (picker, runtime_dir);
  js_picker_present (picker, NULL, suggestion_id, NULL, presented, &app);
  g_main_loop_run (app.loop);
  g_main_loop_unref (app.loop);
  return app.status;
}
