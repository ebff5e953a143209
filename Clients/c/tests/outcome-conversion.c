/* Every asset type from an Outcome message to what the app gets (js_outcome_from_message, the
 * library's one conversion): each kind, its fields, its media by role with the bytes of the
 * descriptor it names, the generic image, and a Media naming no descriptor of the frame giving none.
 * Run by meson test (Tools/build-clients); built from the library's sources to reach the conversion. */
#define _GNU_SOURCE
#include "js-private.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int failures;

#define CHECK(condition, ...)                        \
  do {                                               \
    if (!(condition)) {                              \
      g_printerr ("outcome-conversion: " __VA_ARGS__); \
      g_printerr ("\n");                             \
      failures++;                                    \
    }                                                \
  } while (0)

static GArray *fds;

/* A Media naming a new descriptor of the frame: a memfd holding TEXT. */
static Pickerd__V1__Media *
media (const char *text)
{
  int fd = memfd_create ("test", MFD_CLOEXEC);
  g_assert (fd >= 0 && write (fd, text, strlen (text)) == (ssize_t) strlen (text));
  Pickerd__V1__Media *m = g_new0 (Pickerd__V1__Media, 1);
  pickerd__v1__media__init (m);
  m->has_fd = TRUE;
  m->fd_index = fds->len;
  m->filename = (char *) text;
  m->content_type = (char *) "image/png";
  g_array_append_val (fds, fd);
  return m;
}

static Pickerd__V1__Timestamp *
at (gint64 ms)
{
  Pickerd__V1__Timestamp *t = g_new0 (Pickerd__V1__Timestamp, 1);
  pickerd__v1__timestamp__init (t);
  t->unix_ms = ms;
  return t;
}

static Pickerd__V1__Quantity *
quantity (double value, const char *unit)
{
  Pickerd__V1__Quantity *q = g_new0 (Pickerd__V1__Quantity, 1);
  pickerd__v1__quantity__init (q);
  q->value = value;
  q->unit = (char *) unit;
  return q;
}

static Pickerd__V1__Workout *
workout (const char *icon, double distance)
{
  Pickerd__V1__WorkoutDetails *d = g_new0 (Pickerd__V1__WorkoutDetails, 1);
  pickerd__v1__workout_details__init (d);
  d->activity_type = 37;
  d->distance = quantity (distance, "m");
  d->localized_name = (char *) "Outdoor Run";
  Pickerd__V1__Workout *w = g_new0 (Pickerd__V1__Workout, 1);
  pickerd__v1__workout__init (w);
  w->details = d;
  w->icon = media (icon);
  w->n_route = 1;
  w->route = g_new0 (Pickerd__V1__GeoLocation *, 1);
  w->route[0] = g_new0 (Pickerd__V1__GeoLocation, 1);
  pickerd__v1__geo_location__init (w->route[0]);
  w->route[0]->latitude = 40.8013;
  w->route[0]->longitude = -73.9719;
  return w;
}

static Pickerd__V1__Location *
location (const char *place)
{
  Pickerd__V1__Location *l = g_new0 (Pickerd__V1__Location, 1);
  pickerd__v1__location__init (l);
  l->place = (char *) place;
  l->city = (char *) "New York";
  l->date = at (3);
  return l;
}

static Pickerd__V1__Item *
item (Pickerd__V1__Item__AssetCase kind, void *asset)
{
  Pickerd__V1__Item *i = g_new0 (Pickerd__V1__Item, 1);
  pickerd__v1__item__init (i);
  i->id = (char *) "5FD10393-C027-4833-9725-29E3EAA59BBA";
  i->asset_case = kind;
  i->photo = asset;  /* the union's members are all pointers */
  return i;
}

#define NEW(type, init) ({ type *x = g_new0 (type, 1); init (x); x; })

static char *
bytes_of (JsMedia *m)
{
  g_autoptr (GBytes) b = js_media_read_bytes (m, NULL);
  gsize size = 0;
  const char *data = b ? g_bytes_get_data (b, &size) : "";
  return g_strndup (data, size);
}

static void
expect_media (JsItem *it, const char *role, const char *text)
{
  JsMedia *m = js_item_lookup_media (it, role);
  CHECK (m != NULL, "%s: no media %s", js_item_get_kind_name (it), role);
  if (m == NULL)
    return;
  g_autofree char *got = bytes_of (m);
  CHECK (g_str_equal (got, text), "%s: media %s holds '%s', not '%s'", js_item_get_kind_name (it), role, got, text);
}

int
main (void)
{
  fds = g_array_new (FALSE, FALSE, sizeof (int));
  Pickerd__V1__Item *items[15];
  int n = 0;

  Pickerd__V1__Photo *photo = NEW (Pickerd__V1__Photo, pickerd__v1__photo__init);
  photo->photo = media ("photo-bytes");
  photo->date = at (1);
  items[n++] = item (PICKERD__V1__ITEM__ASSET_PHOTO, photo);

  Pickerd__V1__LivePhoto *live = NEW (Pickerd__V1__LivePhoto, pickerd__v1__live_photo__init);
  live->image = media ("live-image");
  live->video = media ("live-video");
  items[n++] = item (PICKERD__V1__ITEM__ASSET_LIVE_PHOTO, live);

  Pickerd__V1__Video *video = NEW (Pickerd__V1__Video, pickerd__v1__video__init);
  video->url = media ("video-bytes");
  items[n++] = item (PICKERD__V1__ITEM__ASSET_VIDEO, video);

  items[n++] = item (PICKERD__V1__ITEM__ASSET_WORKOUT, workout ("workout-icon", 5000));

  Pickerd__V1__WorkoutGroup *group = NEW (Pickerd__V1__WorkoutGroup, pickerd__v1__workout_group__init);
  group->n_workouts = 2;
  group->workouts = g_new0 (Pickerd__V1__Workout *, 2);
  group->workouts[0] = workout ("group-0-icon", 1000);
  group->workouts[1] = workout ("group-1-icon", 2000);
  group->icon = media ("group-icon");
  items[n++] = item (PICKERD__V1__ITEM__ASSET_WORKOUT_GROUP, group);

  Pickerd__V1__Contact *contact = NEW (Pickerd__V1__Contact, pickerd__v1__contact__init);
  contact->name = (char *) "Maya Okafor";
  contact->photo = media ("contact-photo");
  items[n++] = item (PICKERD__V1__ITEM__ASSET_CONTACT, contact);

  items[n++] = item (PICKERD__V1__ITEM__ASSET_LOCATION, location ("Riverside Park"));

  Pickerd__V1__LocationGroup *places = NEW (Pickerd__V1__LocationGroup, pickerd__v1__location_group__init);
  places->n_locations = 2;
  places->locations = g_new0 (Pickerd__V1__Location *, 2);
  places->locations[0] = location ("Strand Book Store");
  places->locations[1] = location ("Via Carota");
  items[n++] = item (PICKERD__V1__ITEM__ASSET_LOCATION_GROUP, places);

  Pickerd__V1__Song *song = NEW (Pickerd__V1__Song, pickerd__v1__song__init);
  song->song = (char *) "Song Title";
  song->artist = (char *) "The Tideline";
  song->artwork = media ("song-artwork");
  items[n++] = item (PICKERD__V1__ITEM__ASSET_SONG, song);

  Pickerd__V1__Podcast *podcast = NEW (Pickerd__V1__Podcast, pickerd__v1__podcast__init);
  podcast->episode = (char *) "Episode 12";
  podcast->show = (char *) "The Show";
  podcast->artwork = media ("podcast-artwork");
  items[n++] = item (PICKERD__V1__ITEM__ASSET_PODCAST, podcast);

  Pickerd__V1__MotionActivity *motion = NEW (Pickerd__V1__MotionActivity, pickerd__v1__motion_activity__init);
  motion->steps = 6933;
  motion->movement_type = PICKERD__V1__MOVEMENT_TYPE__MOVEMENT_TYPE_RUNNING;
  motion->icon = media ("motion-icon");
  items[n++] = item (PICKERD__V1__ITEM__ASSET_MOTION_ACTIVITY, motion);

  Pickerd__V1__GenericMedia *generic = NEW (Pickerd__V1__GenericMedia, pickerd__v1__generic_media__init);
  generic->title = (char *) "A Book";
  generic->app_icon = media ("app-icon");
  generic->artwork = media ("generic-artwork");
  items[n++] = item (PICKERD__V1__ITEM__ASSET_GENERIC_MEDIA, generic);

  Pickerd__V1__Reflection *reflection = NEW (Pickerd__V1__Reflection, pickerd__v1__reflection__init);
  reflection->prompt = (char *) "What made you smile?";
  reflection->color = NEW (Pickerd__V1__Color, pickerd__v1__color__init);
  reflection->color->red = 1;
  reflection->color->alpha = 1;
  items[n++] = item (PICKERD__V1__ITEM__ASSET_REFLECTION, reflection);

  Pickerd__V1__StateOfMindSample *sample = NEW (Pickerd__V1__StateOfMindSample, pickerd__v1__state_of_mind_sample__init);
  sample->kind = PICKERD__V1__STATE_OF_MIND_KIND__STATE_OF_MIND_KIND_DAILY_MOOD;
  sample->valence = 0.7;
  sample->n_labels = 2;
  sample->labels = (Pickerd__V1__StateOfMindLabel[]) { 13, 25 };
  Pickerd__V1__StateOfMind *mood = NEW (Pickerd__V1__StateOfMind, pickerd__v1__state_of_mind__init);
  mood->state = sample;
  mood->icon = media ("mood-icon");
  items[n++] = item (PICKERD__V1__ITEM__ASSET_STATE_OF_MIND, mood);

  /* A photo whose Media names a descriptor the frame does not carry: no media, no crash. */
  Pickerd__V1__Photo *stray = NEW (Pickerd__V1__Photo, pickerd__v1__photo__init);
  stray->photo = NEW (Pickerd__V1__Media, pickerd__v1__media__init);
  stray->photo->has_fd = TRUE;
  stray->photo->fd_index = 200;
  items[n++] = item (PICKERD__V1__ITEM__ASSET_PHOTO, stray);

  /* Local times: Kyoto's +09:00 on the photo, St. John's -03:30 on the place, and on the song a
   * value no zone has (beyond ±18 h), which is not an offset. */
  Pickerd__V1__Int64Value kyoto = PICKERD__V1__INT64_VALUE__INIT, st_johns = PICKERD__V1__INT64_VALUE__INIT,
                          nonsense = PICKERD__V1__INT64_VALUE__INIT;
  kyoto.value = 9 * 3600;
  st_johns.value = -(3 * 3600 + 30 * 60);
  nonsense.value = 19 * 3600;
  items[0]->local_utc_offset_s = &kyoto;
  items[6]->local_utc_offset_s = &st_johns;
  items[8]->local_utc_offset_s = &nonsense;

  Pickerd__V1__Suggestion suggestion = PICKERD__V1__SUGGESTION__INIT;
  suggestion.title = (char *) "Every kind";
  suggestion.n_items = (size_t) n;
  suggestion.items = items;
  Pickerd__V1__Outcome message = PICKERD__V1__OUTCOME__INIT;
  message.result_case = PICKERD__V1__OUTCOME__RESULT_APPROVED;
  message.approved = &suggestion;

  g_autoptr (GError) error = NULL;
  g_autoptr (JsOutcome) outcome = js_outcome_from_message (&message, fds, &error);
  /* The frame's descriptors are the caller's: closed here, the media keep their own copies. */
  for (guint i = 0; i < fds->len; i++)
    close (g_array_index (fds, int, i));
  g_assert (outcome != NULL && js_outcome_get_kind (outcome) == JS_OUTCOME_APPROVED);
  JsSuggestion *s = js_outcome_get_suggestion (outcome);
  GPtrArray *got = js_suggestion_get_items (s);
  CHECK (got->len == 15, "%u items, not 15", got->len);
  if (got->len != 15)
    return 1;
  static const char *const kinds[] = { "photo", "livePhoto", "video", "workout", "workoutGroup", "contact", "location", "locationGroup",
                                       "song", "podcast", "motionActivity", "genericMedia", "reflection", "stateOfMind", "photo" };
  for (guint i = 0; i < got->len; i++)
    CHECK (g_str_equal (js_item_get_kind_name (g_ptr_array_index (got, i)), kinds[i]), "item %u is %s, not %s", i,
           js_item_get_kind_name (g_ptr_array_index (got, i)), kinds[i]);
#define ITEM(i) ((JsItem *) g_ptr_array_index (got, i))
  expect_media (ITEM (0), "photo", "photo-bytes");
  expect_media (ITEM (1), "image", "live-image");
  expect_media (ITEM (1), "video", "live-video");
  expect_media (ITEM (2), "video", "video-bytes");
  expect_media (ITEM (3), "icon", "workout-icon");
  expect_media (ITEM (4), "icon", "group-icon");
  expect_media (ITEM (4), "workouts/1/icon", "group-1-icon");
  expect_media (ITEM (5), "photo", "contact-photo");
  expect_media (ITEM (8), "artwork", "song-artwork");
  expect_media (ITEM (9), "artwork", "podcast-artwork");
  expect_media (ITEM (10), "icon", "motion-icon");
  expect_media (ITEM (11), "app-icon", "app-icon");
  expect_media (ITEM (11), "artwork", "generic-artwork");
  expect_media (ITEM (13), "icon", "mood-icon");
  CHECK (js_item_get_media (ITEM (14))->len == 0, "a Media naming no descriptor of the frame gave media");
  /* The generic image of the image-bearing kinds, and none for the others. */
  CHECK (js_item_get_image (ITEM (1)) == js_item_lookup_media (ITEM (1), "image"), "a Live Photo's image is not its still");
  CHECK (js_item_get_image (ITEM (8)) == js_item_lookup_media (ITEM (8), "artwork"), "a song's image is not its artwork");
  CHECK (js_item_get_image (ITEM (3)) == NULL, "a workout has an image");
  /* Fields. */
  double value = 0;
  const char *unit = NULL;
  CHECK (g_variant_lookup (js_item_get_fields (ITEM (3)), "distance", "(d&s)", &value, &unit) && value == 5000 && g_str_equal (unit, "m"),
         "the workout's distance");
  g_autoptr (GVariant) workouts = g_variant_lookup_value (js_item_get_fields (ITEM (4)), "workouts", G_VARIANT_TYPE ("aa{sv}"));
  CHECK (workouts != NULL && g_variant_n_children (workouts) == 2, "the group's two workouts");
  g_autoptr (GVariant) route = g_variant_lookup_value (js_item_get_fields (ITEM (3)), "route", G_VARIANT_TYPE ("aa{sv}"));
  CHECK (route != NULL && g_variant_n_children (route) == 1, "the workout's route");
  CHECK (g_strcmp0 (js_item_lookup_string (ITEM (5), "name"), "Maya Okafor") == 0, "the contact's name");
  CHECK (g_strcmp0 (js_item_lookup_string (ITEM (6), "place"), "Riverside Park") == 0, "the location's place");
  g_autoptr (GVariant) locations = g_variant_lookup_value (js_item_get_fields (ITEM (7)), "locations", G_VARIANT_TYPE ("aa{sv}"));
  CHECK (locations != NULL && g_variant_n_children (locations) == 2, "the location group's two places");
  CHECK (g_strcmp0 (js_item_lookup_string (ITEM (8), "artist"), "The Tideline") == 0, "the song's artist");
  CHECK (g_strcmp0 (js_item_lookup_string (ITEM (9), "episode"), "Episode 12") == 0, "the podcast's episode");
  CHECK (g_strcmp0 (js_item_lookup_string (ITEM (10), "movement-type"), "running") == 0, "the motion's movement");
  CHECK (g_strcmp0 (js_item_lookup_string (ITEM (11), "title"), "A Book") == 0, "the generic media's title");
  CHECK (g_strcmp0 (js_item_lookup_string (ITEM (12), "prompt"), "What made you smile?") == 0, "the reflection's prompt");
  g_autoptr (GVariant) labels = g_variant_lookup_value (js_item_get_fields (ITEM (13)), "labels", G_VARIANT_TYPE ("au"));
  CHECK (labels != NULL && g_variant_n_children (labels) == 2, "the mood's labels");
  CHECK (g_strcmp0 (js_item_lookup_string (ITEM (13), "kind"), "dailyMood") == 0, "the mood's kind");
  CHECK (js_item_lookup_string (ITEM (13), "place") == NULL, "a field no one sent is there");
  /* Local time: present where sent, absent (FALSE, 0) elsewhere and for a value no zone has. */
  gint32 offset = 1;
  CHECK (js_item_get_utc_offset (ITEM (0), &offset) && offset == 32400, "the photo's offset is %d, not 32400", offset);
  CHECK (js_item_get_utc_offset (ITEM (6), &offset) && offset == -12600, "the place's offset is %d, not -12600", offset);
  CHECK (js_item_get_utc_offset (ITEM (6), NULL), "the place's offset, asked without a place to put it");
  offset = 1;
  CHECK (!js_item_get_utc_offset (ITEM (8), &offset) && offset == 0, "19 hours was taken as an offset (%d)", offset);
  offset = 1;
  CHECK (!js_item_get_utc_offset (ITEM (1), &offset) && offset == 0, "an item sent without an offset has one (%d)", offset);
  return failures ? 1 : 0;
}
