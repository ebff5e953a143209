/* The app the conformance suite runs as its "c-library" caller (Tests/ConformanceTests/
 * ClientLibraryConformance.swift): it presents through libjournalingsuggestions-1 and prints, as
 * JSON lines, everything the library handed it, so the suite can audit what an app can get.
 *
 *   js-conformance-client RUNTIME_DIR present [SUGGESTION_ID]   present; the outcome
 *   js-conformance-client RUNTIME_DIR close                     present, then js_picker_close()
 *   js-conformance-client RUNTIME_DIR cancel                    present; once accepted, cancel its GCancellable
 *   js-conformance-client RUNTIME_DIR repeat N                  present N times (Tools/bench-client);
 *                                                               one line of timings
 *   js-conformance-client RUNTIME_DIR configuration             the configuration and its off causes
 *   js-conformance-client RUNTIME_DIR donate-media ID included|excluded [ARTWORK]
 *   js-conformance-client RUNTIME_DIR donate-mood ID            a daily mood (excited, proud; fitness)
 *   js-conformance-client RUNTIME_DIR withdraw [ID...]          those donations, or (no ID) all
 *
 * An outcome line holds "raw": base64 of every text and field value the library gave (the title
 * and each item's fields, printed and as serialized), and "descriptors": each media's bytes (base64), whether its
 * descriptor is writable, and what /proc says it is. */
#define _GNU_SOURCE
#include <journalingsuggestions.h>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

typedef struct {
  GMainLoop *loop;
  JsPicker *picker;
  GCancellable *cancellable;
  const char *mode;
  int remaining;
  GArray *took;
  gint64 started;
  int status;
} Run;

static void
json_string (GString *out, const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p; p++) {
    unsigned char c = (unsigned char) *p;
    if (c == '"' || c == '\\')
      g_string_append_printf (out, "\\%c", c);
    else if (c < 0x20)
      g_string_append_printf (out, "\\u%04x", c);
    else
      g_string_append_c (out, (char) c);
  }
  g_string_append_c (out, '"');
}

static const char *
error_code (const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return "cancelled";
  if (error->domain != JS_ERROR)
    return "failed";
  switch ((JsError) error->code) {
  case JS_ERROR_NOT_ENTITLED: return "notEntitled";
  case JS_ERROR_NO_PICKER_AVAILABLE: return "noPickerAvailable";
  case JS_ERROR_BUSY: return "busy";
  case JS_ERROR_UNREACHABLE: return "unreachable";
  case JS_ERROR_INVALID_ARGUMENT: return "invalidArgument";
  default: return "failed";
  }
}

static void
print_outcome (JsOutcome *outcome)
{
  static const char *const reasons[] = { "none", "closedByApp", "pickerGone", "shutdown", "consentDeclined", "other" };
  static const char *const kinds[] = { "approved", "cancelled", "dismissed" };
  GString *line = g_string_new ("{\"event\": \"outcome\", \"result\": ");
  json_string (line, kinds[js_outcome_get_kind (outcome)]);
  if (js_outcome_get_kind (outcome) == JS_OUTCOME_DISMISSED) {
    g_string_append (line, ", \"reason\": ");
    json_string (line, reasons[js_outcome_get_dismissal_reason (outcome)]);
  }
  JsSuggestion *suggestion = js_outcome_get_suggestion (outcome);
  if (suggestion != NULL) {
    GString *raw = g_string_new (js_suggestion_get_title (suggestion));
    GString *items = g_string_new ("[");
    GString *descriptors = g_string_new ("[");
    GPtrArray *all = js_suggestion_get_items (suggestion);
    for (guint i = 0; i < all->len; i++) {
      JsItem *item = g_ptr_array_index (all, i);
      g_autofree char *fields = g_variant_print (js_item_get_fields (item), TRUE);
      g_string_append_printf (raw, "\n%s %s %s\n", js_item_get_id (item), js_item_get_kind_name (item), fields);
      /* And the fields' serialized bytes, where numbers are as they came (a double's 8 bytes). */
      g_string_append_len (raw, g_variant_get_data (js_item_get_fields (item)), (gssize) g_variant_get_size (js_item_get_fields (item)));
      g_string_append_printf (items, "%s{\"id\": \"%s\", \"kind\": \"%s\"", i ? ", " : "", js_item_get_id (item), js_item_get_kind_name (item));
      /* The item's local time, only when the library has one (pickerd sends it only with a kept place). */
      gint32 offset = 0;
      if (js_item_get_utc_offset (item, &offset))
        g_string_append_printf (items, ", \"utcOffset\": \"%d\"", (int) offset);
      g_string_append_c (items, '}');
      GPtrArray *media = js_item_get_media (item);
      for (guint m = 0; m < media->len; m++) {
        JsMedia *one = g_ptr_array_index (media, m);
        g_autoptr (GBytes) bytes = js_media_read_bytes (one, NULL);
        gsize size = 0;
        const guint8 *data = bytes ? g_bytes_get_data (bytes, &size) : NULL;
        g_autofree char *encoded = g_base64_encode (data, size);
        int fd = js_media_get_fd (one);
        gboolean writable = (fcntl (fd, F_GETFL) & O_ACCMODE) != O_RDONLY || pwrite (fd, "x", 1, 0) == 1;
        g_autofree char *proc = g_strdup_printf ("/proc/self/fd/%d", fd);
        g_autofree char *link = g_file_read_link (proc, NULL);
        g_string_append_printf (raw, "\n%s %s %s", js_media_get_role (one), js_media_get_content_type (one), js_media_get_filename (one));
        g_string_append_printf (descriptors, "%s{\"role\": ", descriptors->len > 1 ? ", " : "");
        json_string (descriptors, js_media_get_role (one));
        g_string_append_printf (descriptors, ", \"writable\": %s, \"link\": ", writable ? "true" : "false");
        json_string (descriptors, link ? link : "");
        g_string_append_printf (descriptors, ", \"base64\": \"%s\"}", encoded);
      }
    }
    g_string_append (items, "]");
    g_string_append (descriptors, "]");
    g_autofree char *raw64 = g_base64_encode ((const guchar *) raw->str, raw->len);
    g_string_append (line, ", \"title\": ");
    json_string (line, js_suggestion_get_title (suggestion));
    g_string_append_printf (line, ", \"items\": %s, \"descriptors\": %s, \"raw\": \"%s\"", items->str, descriptors->str, raw64);
    g_string_free (raw, TRUE);
    g_string_free (items, TRUE);
    g_string_free (descriptors, TRUE);
  }
  g_string_append (line, "}\n");
  fputs (line->str, stdout);
  fflush (stdout);
  g_string_free (line, TRUE);
}

static void presented (GObject *source, GAsyncResult *result, gpointer user_data);

static void
start (Run *run, const char *suggestion_id)
{
  run->started = g_get_monotonic_time ();
  js_picker_present (run->picker, NULL, suggestion_id, run->cancellable, presented, run);
  if (g_str_equal (run->mode, "close"))
    js_picker_close (run->picker);
}

/* "cancel": once pickerd accepted (the picker is shown), cancel the GCancellable. */
static void
accepted (JsPicker *picker, gpointer user_data)
{
  (void) picker;
  Run *run = user_data;
  if (g_str_equal (run->mode, "cancel"))
    g_cancellable_cancel (run->cancellable);
}

static void
presented (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Run *run = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsOutcome) outcome = js_picker_present_finish (JS_PICKER (source), result, &error);
  if (g_str_equal (run->mode, "repeat")) {
    double seconds = (double) (g_get_monotonic_time () - run->started) / G_USEC_PER_SEC;
    g_array_append_val (run->took, seconds);
    if (outcome == NULL || js_outcome_get_kind (outcome) != JS_OUTCOME_APPROVED) {
      g_printerr ("js-conformance-client: presentation %u was not approved\n", run->took->len);
      run->status = 1;
      g_main_loop_quit (run->loop);
      return;
    }
    if (--run->remaining > 0) {
      start (run, NULL);
      return;
    }
    GString *line = g_string_new ("{\"event\": \"timings\", \"seconds\": [");
    for (guint i = 0; i < run->took->len; i++)
      g_string_append_printf (line, "%s%.6f", i ? ", " : "", g_array_index (run->took, double, i));
    g_string_append (line, "]}\n");
    fputs (line->str, stdout);
    g_string_free (line, TRUE);
    run->status = 0;
  } else if (outcome == NULL) {
    GString *line = g_string_new ("{\"event\": \"error\", \"code\": ");
    json_string (line, error_code (error));
    g_string_append (line, ", \"message\": ");
    json_string (line, error->message);
    g_string_append (line, "}\n");
    fputs (line->str, stdout);
    g_string_free (line, TRUE);
    run->status = 0;
  } else {
    print_outcome (outcome);
    run->status = 0;
  }
  g_main_loop_quit (run->loop);
}

static void
configured (GObject *source, GAsyncResult *result, gpointer user_data)
{
  (void) source;
  Run *run = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsConfiguration) configuration = js_configuration_fetch_finish (result, &error);
  if (configuration == NULL) {
    printf ("{\"event\": \"error\", \"code\": \"%s\"}\n", error_code (error));
  } else {
    static const char *const schedules[] = { "smart", "custom", "off" };
    static const char *const causes[] = { "suggestionsOff", "notChosenApp", "notificationsOff", "noUrlFormat" };
    GString *line = g_string_new ("{\"event\": \"configuration\", \"schedule\": ");
    json_string (line, schedules[js_configuration_get_schedule (configuration)]);
    g_string_append (line, ", \"off\": [");
    for (guint i = 0, n = 0; i < G_N_ELEMENTS (causes); i++)
      if (js_configuration_get_off_causes (configuration) & (1u << i))
        g_string_append_printf (line, "%s\"%s\"", n++ ? ", " : "", causes[i]);
    g_string_append (line, "]}\n");
    fputs (line->str, stdout);
    g_string_free (line, TRUE);
  }
  run->status = 0;
  g_main_loop_quit (run->loop);
}

static void
donated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Run *run = user_data;
  g_autoptr (GError) error = NULL;
  gboolean kept = g_task_get_source_tag (G_TASK (result)) == js_donations_donate_media
                    ? js_donations_donate_media_finish (JS_DONATIONS (source), result, &error)
                    : js_donations_donate_state_of_mind_finish (JS_DONATIONS (source), result, &error);
  if (kept)
    printf ("{\"event\": \"donated\"}\n");
  else
    printf ("{\"event\": \"error\", \"code\": \"%s\"}\n", error_code (error));
  run->status = 0;
  g_main_loop_quit (run->loop);
}

static void
withdrawn (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Run *run = user_data;
  g_autoptr (GError) error = NULL;
  guint64 count = js_donations_withdraw_finish (JS_DONATIONS (source), result, &error);
  if (error == NULL)
    printf ("{\"event\": \"withdrawn\", \"count\": %" G_GUINT64_FORMAT "}\n", count);
  else
    printf ("{\"event\": \"error\", \"code\": \"%s\"}\n", error_code (error));
  run->status = 0;
  g_main_loop_quit (run->loop);
}

int
main (int argc, char **argv)
{
  if (argc < 3) {
    g_printerr ("usage: js-conformance-client RUNTIME_DIR present [ID] | close | cancel | repeat N | configuration | donate-media ID included|excluded [ARTWORK] | donate-mood ID | withdraw [ID...]\n");
    return 2;
  }
  Run run = { .loop = g_main_loop_new (NULL, FALSE), .picker = js_picker_new (), .cancellable = g_cancellable_new (),
              .mode = argv[2], .remaining = 1, .took = g_array_new (FALSE, FALSE, sizeof (double)), .status = 1 };
  js_picker_set_runtime_dir (run.picker, argv[1]);
  js_picker_set_button_title (run.picker, "Add to Conformance");
  g_signal_connect (run.picker, "accepted", G_CALLBACK (accepted), &run);
  if (g_str_equal (run.mode, "repeat"))
    run.remaining = argc > 3 ? atoi (argv[3]) : 1;
  g_autoptr (JsDonations) donations = js_donations_new (argv[1]);
  static const guint labels[] = { 13, 25 }, associations[] = { 6 };
  if (g_str_equal (run.mode, "configuration"))
    js_configuration_fetch (argv[1], NULL, configured, &run);
  else if (g_str_equal (run.mode, "donate-media") && argc > 4)
    js_donations_donate_media (donations, argv[3], "Canary Song", "Canary Artist", NULL, 0, NULL, argc > 5 ? argv[5] : NULL,
                               g_str_equal (argv[4], "excluded"), NULL, donated, &run);
  else if (g_str_equal (run.mode, "donate-mood") && argc > 3)
    js_donations_donate_state_of_mind (donations, argv[3], JS_STATE_OF_MIND_DAILY_MOOD, 0.6, 0, labels, G_N_ELEMENTS (labels),
                                       associations, G_N_ELEMENTS (associations), 0, NULL, FALSE, NULL, donated, &run);
  else if (g_str_equal (run.mode, "withdraw"))
    js_donations_withdraw (donations, argc > 3 ? (const char *const *) argv + 3 : NULL, argc <= 3, NULL, withdrawn, &run);
  else
    start (&run, g_str_equal (run.mode, "present") && argc > 3 ? argv[3] : NULL);
  g_main_loop_run (run.loop);
  g_object_unref (run.picker);
  g_object_unref (run.cancellable);
  g_array_unref (run.took);
  g_main_loop_unref (run.loop);
  return run.status;
}
