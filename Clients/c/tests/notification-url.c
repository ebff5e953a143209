/* js_notification_url_parse against the Swift library's cases (JournalingSuggestionPresentationToken
 * (url:format:)): path and query forms, with and without the app's format, a general reminder, and
 * URLs that name no suggestion. Run by meson test (Tools/build-clients). */
#include <journalingsuggestions.h>

static const char id[] = "5FD10393-C027-4833-9725-29E3EAA59BBA";

static void
expect (const char *url, const char *format, gboolean matches, const char *wanted)
{
  g_autofree char *got = NULL;
  gboolean matched = js_notification_url_parse (url, format, &got);
  if (matched != matches || (matches && g_strcmp0 (got, wanted) != 0)) {
    g_printerr ("notification-url: %s with format %s: %s '%s', expected %s '%s'\n", url, format ? format : "(none)",
                matched ? "matched" : "no match", got ? got : "", matches ? "a match" : "no match", wanted ? wanted : "");
    exit (1);
  }
}

int
main (void)
{
  g_autofree char *path = g_strdup_printf ("myapp://suggestions/%s", id);
  g_autofree char *query = g_strdup_printf ("myapp://open?suggestion=%s", id);
  g_autofree char *other = g_strdup_printf ("otherapp://suggestions/%s", id);
  expect (path, "myapp://suggestions/{journaling-suggestion-id}", TRUE, id);
  expect (query, "myapp://open?suggestion={journaling-suggestion-id}", TRUE, id);
  expect (path, NULL, TRUE, id);
  expect (query, NULL, TRUE, id);
  expect ("myapp://suggestions/", "myapp://suggestions/{journaling-suggestion-id}", TRUE, "");  /* a general reminder */
  expect ("myapp://open?suggestion=", NULL, TRUE, "");
  expect (other, "myapp://suggestions/{journaling-suggestion-id}", FALSE, NULL);
  expect ("myapp://suggestions/not-a-uuid", "myapp://suggestions/{journaling-suggestion-id}", FALSE, NULL);
  expect ("myapp://open?suggestion=not-a-uuid", NULL, FALSE, NULL);
  return 0;
}
