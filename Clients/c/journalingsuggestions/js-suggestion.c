/* What a presentation gives the app: the outcome, the approved suggestion, its items and their
 * media, made from pickerd's Outcome message. Nothing is added and nothing is kept back: every field
 * pickerd sent is in an item's fields, every descriptor in its media. */
#define _GNU_SOURCE
#include "js-private.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- JsMedia ---- */

/**
 * JsMedia:
 *
 * A media file of an approved item: a photo, a Live Photo's parts, a video, artwork or an icon.
 * Its bytes are a sealed, read-only memfd pickerd sent (never a path into the person's library);
 * js_media_read_bytes() and js_media_save() copy them out.
 */
struct _JsMedia {
  GObject parent_instance;
  char *role;
  char *content_type;
  char *filename;
  guint64 byte_count;
  guint width, height;
  int fd;
};

G_DEFINE_FINAL_TYPE (JsMedia, js_media, G_TYPE_OBJECT)

static void
js_media_finalize (GObject *object)
{
  JsMedia *self = JS_MEDIA (object);
  g_free (self->role);
  g_free (self->content_type);
  g_free (self->filename);
  if (self->fd >= 0)
    close (self->fd);
  G_OBJECT_CLASS (js_media_parent_class)->finalize (object);
}

static void
js_media_class_init (JsMediaClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = js_media_finalize;
}

static void
js_media_init (JsMedia *self)
{
  self->fd = -1;
}

/**
 * js_media_get_role:
 * @self: a #JsMedia
 *
 * Returns: which of its item's media this is ("photo", "image", "video", "artwork", "icon",
 *   "app-icon", "workouts/N/icon"), as #JsAssetKind lists them
 */
const char *
js_media_get_role (JsMedia *self)
{
  g_return_val_if_fail (JS_IS_MEDIA (self), NULL);
  return self->role;
}

/**
 * js_media_get_content_type:
 * @self: a #JsMedia
 *
 * Returns: its MIME type, such as "image/jpeg" or "video/mp4"
 */
const char *
js_media_get_content_type (JsMedia *self)
{
  g_return_val_if_fail (JS_IS_MEDIA (self), NULL);
  return self->content_type;
}

/**
 * js_media_get_filename:
 * @self: a #JsMedia
 *
 * Returns: a suggested file name (never a path into the person's library)
 */
const char *
js_media_get_filename (JsMedia *self)
{
  g_return_val_if_fail (JS_IS_MEDIA (self), NULL);
  return self->filename;
}

/**
 * js_media_get_byte_count:
 * @self: a #JsMedia
 *
 * Returns: its size in bytes, as pickerd states it
 */
guint64
js_media_get_byte_count (JsMedia *self)
{
  g_return_val_if_fail (JS_IS_MEDIA (self), 0);
  return self->byte_count;
}

/**
 * js_media_get_pixel_width:
 * @self: a #JsMedia
 *
 * Returns: an image's width in pixels, or 0 when not an image or not known
 */
guint
js_media_get_pixel_width (JsMedia *self)
{
  g_return_val_if_fail (JS_IS_MEDIA (self), 0);
  return self->width;
}

/**
 * js_media_get_pixel_height:
 * @self: a #JsMedia
 *
 * Returns: an image's height in pixels, or 0 when not an image or not known
 */
guint
js_media_get_pixel_height (JsMedia *self)
{
  g_return_val_if_fail (JS_IS_MEDIA (self), 0);
  return self->height;
}

/**
 * js_media_get_fd:
 * @self: a #JsMedia
 *
 * The read-only descriptor pickerd sent: a sealed memfd. It stays the media's and is closed when
 * the media is finalized; dup() it to keep it longer. Read it with pread() (its offset is shared).
 *
 * Returns: the descriptor
 */
int
js_media_get_fd (JsMedia *self)
{
  g_return_val_if_fail (JS_IS_MEDIA (self), -1);
  return self->fd;
}

/**
 * js_media_read_bytes:
 * @self: a #JsMedia
 * @error: return location for a #GError
 *
 * Reads the whole file.
 *
 * Returns: (transfer full): its bytes, or %NULL with @error set
 */
GBytes *
js_media_read_bytes (JsMedia *self, GError **error)
{
  g_return_val_if_fail (JS_IS_MEDIA (self), NULL);
  struct stat st;
  if (fstat (self->fd, &st) != 0) {
    int saved = errno;
    g_set_error (error, JS_ERROR, JS_ERROR_FAILED, "cannot read %s: %s", self->filename, g_strerror (saved));
    return NULL;
  }
  gsize size = (gsize) st.st_size;
  guint8 *data = g_malloc (size ? size : 1);
  gsize done = 0;
  while (done < size) {
    ssize_t n = pread (self->fd, data + done, size - done, (off_t) done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int saved = n < 0 ? errno : EIO;
      g_free (data);
      g_set_error (error, JS_ERROR, JS_ERROR_FAILED, "cannot read %s: %s", self->filename, g_strerror (saved));
      return NULL;
    }
    done += (gsize) n;
  }
  return g_bytes_new_take (data, size);
}

/**
 * js_media_save:
 * @self: a #JsMedia
 * @directory: (type filename): a directory (made, mode 0700, when missing)
 * @error: return location for a #GError
 *
 * Writes the bytes to a new file in @directory named after the suggested file name (a name already
 * taken gets a number), for an app that wants a file, as the Swift library's URLs are.
 *
 * Returns: (transfer full) (type filename): the file's path, or %NULL with @error set
 */
char *
js_media_save (JsMedia *self, const char *directory, GError **error)
{
  g_return_val_if_fail (JS_IS_MEDIA (self), NULL);
  g_return_val_if_fail (directory != NULL, NULL);
  if (g_mkdir_with_parents (directory, 0700) != 0) {
    int saved = errno;
    g_set_error (error, JS_ERROR, JS_ERROR_FAILED, "cannot make %s: %s", directory, g_strerror (saved));
    return NULL;
  }
  g_autoptr (GBytes) bytes = js_media_read_bytes (self, error);
  if (bytes == NULL)
    return NULL;
  /* A suggested name is a name: no directory part, no hidden file. */
  g_autofree char *base = g_path_get_basename (self->filename && *self->filename ? self->filename : "media");
  g_strdelimit (base, "/", '_');
  if (base[0] == '.')
    base[0] = '_';
  char *path = g_build_filename (directory, base, NULL);
  for (int n = 2; g_file_test (path, G_FILE_TEST_EXISTS); n++) {
    g_free (path);
    g_autofree char *numbered = g_strdup_printf ("%d-%s", n, base);
    path = g_build_filename (directory, numbered, NULL);
  }
  gsize size = 0;
  const void *data = g_bytes_get_data (bytes, &size);
  if (!g_file_set_contents_full (path, data, (gssize) size, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error)) {
    g_free (path);
    return NULL;
  }
  return path;
}

/* ---- JsItem ---- */

/**
 * JsItem:
 *
 * One approved item (Apple's ItemContent): an identifier, an asset kind, the asset's fields and
 * its media.
 */
struct _JsItem {
  GObject parent_instance;
  char *id;
  JsAssetKind kind;
  GVariant *fields;
  GPtrArray *media;
  gboolean has_utc_offset;
  gint32 utc_offset;
};

G_DEFINE_FINAL_TYPE (JsItem, js_item, G_TYPE_OBJECT)

static void
js_item_finalize (GObject *object)
{
  JsItem *self = JS_ITEM (object);
  g_free (self->id);
  g_clear_pointer (&self->fields, g_variant_unref);
  g_clear_pointer (&self->media, g_ptr_array_unref);
  G_OBJECT_CLASS (js_item_parent_class)->finalize (object);
}

static void
js_item_class_init (JsItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = js_item_finalize;
}

static void
js_item_init (JsItem *self)
{
  self->media = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * js_item_get_id:
 * @self: a #JsItem
 *
 * Returns: the item's stable identifier (a UUID)
 */
const char *
js_item_get_id (JsItem *self)
{
  g_return_val_if_fail (JS_IS_ITEM (self), NULL);
  return self->id;
}

/**
 * js_item_get_kind:
 * @self: a #JsItem
 *
 * Returns: the item's asset type
 */
JsAssetKind
js_item_get_kind (JsItem *self)
{
  g_return_val_if_fail (JS_IS_ITEM (self), JS_ASSET_PHOTO);
  return self->kind;
}

static const char *const kind_names[] = {
  "photo", "livePhoto", "video", "workout", "workoutGroup", "contact", "location", "locationGroup",
  "song", "podcast", "motionActivity", "genericMedia", "reflection", "stateOfMind",
};

/**
 * js_item_get_kind_name:
 * @self: a #JsItem
 *
 * Returns: the asset type's name as the protocol and the Swift library spell it ("photo",
 *   "livePhoto", "workout", "stateOfMind"…)
 */
const char *
js_item_get_kind_name (JsItem *self)
{
  g_return_val_if_fail (JS_IS_ITEM (self), NULL);
  return kind_names[self->kind];
}

/**
 * js_item_get_fields:
 * @self: a #JsItem
 *
 * The asset's fields, as #JsAssetKind lists them for each type: a dictionary (a{sv}) holding
 * each field pickerd sent and nothing else.
 *
 * Returns: (transfer none): the fields
 */
GVariant *
js_item_get_fields (JsItem *self)
{
  g_return_val_if_fail (JS_IS_ITEM (self), NULL);
  return self->fields;
}

/**
 * js_item_lookup_string:
 * @self: a #JsItem
 * @field: a field's name, such as "title" or "place"
 *
 * Returns: (nullable): the field's text, or %NULL when the item has no such text field
 */
const char *
js_item_lookup_string (JsItem *self, const char *field)
{
  g_return_val_if_fail (JS_IS_ITEM (self), NULL);
  const char *value = NULL;
  if (!g_variant_lookup (self->fields, field, "&s", &value))
    return NULL;
  return value;
}

/**
 * js_item_get_media:
 * @self: a #JsItem
 *
 * Returns: (transfer none) (element-type JsMedia): every media file of the item
 */
GPtrArray *
js_item_get_media (JsItem *self)
{
  g_return_val_if_fail (JS_IS_ITEM (self), NULL);
  return self->media;
}

/**
 * js_item_lookup_media:
 * @self: a #JsItem
 * @role: a media role, such as "photo", "video" or "artwork"
 *
 * Returns: (transfer none) (nullable): the item's media of that role, if any
 */
JsMedia *
js_item_lookup_media (JsItem *self, const char *role)
{
  g_return_val_if_fail (JS_IS_ITEM (self), NULL);
  for (guint i = 0; i < self->media->len; i++) {
    JsMedia *media = g_ptr_array_index (self->media, i);
    if (g_strcmp0 (media->role, role) == 0)
      return media;
  }
  return NULL;
}

/**
 * js_item_get_image:
 * @self: a #JsItem
 *
 * The item as a generic image, as Apple's image-bearing assets also offer one: a photo's photo, a
 * Live Photo's still image, a contact's photo, a song's or podcast's artwork.
 *
 * Returns: (transfer none) (nullable): the image, or %NULL for other assets or none sent
 */
JsMedia *
js_item_get_image (JsItem *self)
{
  g_return_val_if_fail (JS_IS_ITEM (self), NULL);
  switch (self->kind) {
  case JS_ASSET_PHOTO:
  case JS_ASSET_CONTACT: return js_item_lookup_media (self, "photo");
  case JS_ASSET_LIVE_PHOTO: return js_item_lookup_media (self, "image");
  case JS_ASSET_SONG:
  case JS_ASSET_PODCAST: return js_item_lookup_media (self, "artwork");
  default: return NULL;
  }
}

/**
 * js_item_get_utc_offset:
 * @self: a #JsItem
 * @seconds_east: (out) (optional): where to store the offset from UTC, in seconds east (32400 for
 *   Kyoto's +09:00); 0 when absent
 *
 * The offset from UTC of the local time where the item happened (a photo's own offset, else its
 * place's time zone at that instant), so an app can write its times as they were lived there.
 * pickerd sends it only when the person kept a place of the suggestion (an offset tells a region)
 * and it knows the offset; otherwise it is absent and the app shows its own time zone.
 *
 * Returns: %TRUE when the item has an offset, %FALSE when it is absent
 */
gboolean
js_item_get_utc_offset (JsItem *self, gint32 *seconds_east)
{
  g_return_val_if_fail (JS_IS_ITEM (self), FALSE);
  if (seconds_east)
    *seconds_east = self->has_utc_offset ? self->utc_offset : 0;
  return self->has_utc_offset;
}

/* ---- JsSuggestion ---- */

/**
 * JsSuggestion:
 *
 * A moment the person chose to share with the app: a title (possibly edited by the person), a date
 * range and only the items they kept.
 */
struct _JsSuggestion {
  GObject parent_instance;
  char *title;
  gboolean has_date;
  gint64 start, end;
  GPtrArray *items;
};

G_DEFINE_FINAL_TYPE (JsSuggestion, js_suggestion, G_TYPE_OBJECT)

static void
js_suggestion_finalize (GObject *object)
{
  JsSuggestion *self = JS_SUGGESTION (object);
  g_free (self->title);
  g_clear_pointer (&self->items, g_ptr_array_unref);
  G_OBJECT_CLASS (js_suggestion_parent_class)->finalize (object);
}

static void
js_suggestion_class_init (JsSuggestionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = js_suggestion_finalize;
}

static void
js_suggestion_init (JsSuggestion *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * js_suggestion_get_title:
 * @self: a #JsSuggestion
 *
 * Returns: the title
 */
const char *
js_suggestion_get_title (JsSuggestion *self)
{
  g_return_val_if_fail (JS_IS_SUGGESTION (self), NULL);
  return self->title;
}

/**
 * js_suggestion_get_date:
 * @self: a #JsSuggestion
 * @start_unix_ms: (out) (optional): where the span starts, in milliseconds since 1970
 * @end_unix_ms: (out) (optional): where it ends
 *
 * Returns: whether the suggestion has a date range
 */
gboolean
js_suggestion_get_date (JsSuggestion *self, gint64 *start_unix_ms, gint64 *end_unix_ms)
{
  g_return_val_if_fail (JS_IS_SUGGESTION (self), FALSE);
  if (start_unix_ms)
    *start_unix_ms = self->start;
  if (end_unix_ms)
    *end_unix_ms = self->end;
  return self->has_date;
}

/**
 * js_suggestion_get_items:
 * @self: a #JsSuggestion
 *
 * Returns: (transfer none) (element-type JsItem): the approved items, in order
 */
GPtrArray *
js_suggestion_get_items (JsSuggestion *self)
{
  g_return_val_if_fail (JS_IS_SUGGESTION (self), NULL);
  return self->items;
}

/* ---- JsOutcome ---- */

/**
 * JsOutcome:
 *
 * How a presentation ended: approved (with the suggestion), cancelled or dismissed (with why).
 */
struct _JsOutcome {
  GObject parent_instance;
  JsOutcomeKind kind;
  JsDismissalReason reason;
  JsSuggestion *suggestion;
};

G_DEFINE_FINAL_TYPE (JsOutcome, js_outcome, G_TYPE_OBJECT)

static void
js_outcome_finalize (GObject *object)
{
  g_clear_object (&JS_OUTCOME (object)->suggestion);
  G_OBJECT_CLASS (js_outcome_parent_class)->finalize (object);
}

static void
js_outcome_class_init (JsOutcomeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = js_outcome_finalize;
}

static void
js_outcome_init (JsOutcome *self)
{
  (void) self;
}

/**
 * js_outcome_get_kind:
 * @self: a #JsOutcome
 *
 * Returns: how the presentation ended
 */
JsOutcomeKind
js_outcome_get_kind (JsOutcome *self)
{
  g_return_val_if_fail (JS_IS_OUTCOME (self), JS_OUTCOME_DISMISSED);
  return self->kind;
}

/**
 * js_outcome_get_dismissal_reason:
 * @self: a #JsOutcome
 *
 * Returns: why the picker went away, or %JS_DISMISSAL_NONE unless dismissed
 */
JsDismissalReason
js_outcome_get_dismissal_reason (JsOutcome *self)
{
  g_return_val_if_fail (JS_IS_OUTCOME (self), JS_DISMISSAL_OTHER);
  return self->reason;
}

/**
 * js_outcome_get_suggestion:
 * @self: a #JsOutcome
 *
 * Returns: (transfer none) (nullable): the approved suggestion, or %NULL unless approved
 */
JsSuggestion *
js_outcome_get_suggestion (JsOutcome *self)
{
  g_return_val_if_fail (JS_IS_OUTCOME (self), NULL);
  return self->suggestion;
}

/* ---- from the protocol's messages ---- */

typedef struct {
  JsItem *item;
  GArray *fds;
} Converting;

static void
add_media (Converting *c, const char *role, const Pickerd__V1__Media *m)
{
  if (m == NULL || !m->has_fd || m->fd_index >= c->fds->len)
    return;
  int fd = fcntl (g_array_index (c->fds, int, m->fd_index), F_DUPFD_CLOEXEC, 0);
  if (fd < 0)
    return;
  JsMedia *media = g_object_new (JS_TYPE_MEDIA, NULL);
  media->role = g_strdup (role);
  media->content_type = g_strdup (m->content_type);
  media->filename = g_strdup (m->filename);
  media->byte_count = m->byte_count;
  media->width = m->pixel_width;
  media->height = m->pixel_height;
  media->fd = fd;
  g_ptr_array_add (c->item->media, media);
}

static void
put_string (GVariantBuilder *b, const char *key, const char *value)
{
  if (value != NULL && *value != '\0')
    g_variant_builder_add (b, "{sv}", key, g_variant_new_string (value));
}

static void
put_time (GVariantBuilder *b, const char *key, const Pickerd__V1__Timestamp *t)
{
  if (t != NULL)
    g_variant_builder_add (b, "{sv}", key, g_variant_new_int64 (t->unix_ms));
}

static void
put_interval (GVariantBuilder *b, const Pickerd__V1__DateInterval *d)
{
  if (d == NULL)
    return;
  g_variant_builder_add (b, "{sv}", "date-start", g_variant_new_int64 (d->start_unix_ms));
  g_variant_builder_add (b, "{sv}", "date-end", g_variant_new_int64 (d->end_unix_ms));
}

static void
put_quantity (GVariantBuilder *b, const char *key, const Pickerd__V1__Quantity *q)
{
  if (q != NULL)
    g_variant_builder_add (b, "{sv}", key, g_variant_new ("(ds)", q->value, q->unit ? q->unit : ""));
}

static void
put_double (GVariantBuilder *b, const char *key, const Pickerd__V1__DoubleValue *v)
{
  if (v != NULL)
    g_variant_builder_add (b, "{sv}", key, g_variant_new_double (v->value));
}

static void
put_geo (GVariantBuilder *b, const Pickerd__V1__GeoLocation *g)
{
  if (g == NULL)
    return;
  g_variant_builder_add (b, "{sv}", "latitude", g_variant_new_double (g->latitude));
  g_variant_builder_add (b, "{sv}", "longitude", g_variant_new_double (g->longitude));
  put_double (b, "altitude", g->altitude_m);
  put_double (b, "horizontal-accuracy", g->horizontal_accuracy_m);
  put_time (b, "timestamp", g->timestamp);
}

static GVariant *
gradient (const Pickerd__V1__Gradient *g)
{
  GVariantBuilder b;
  g_variant_builder_init (&b, G_VARIANT_TYPE ("a(ddddd)"));
  for (size_t i = 0; g != NULL && i < g->n_stops; i++) {
    const Pickerd__V1__Color *c = g->stops[i]->color;
    g_variant_builder_add (&b, "(ddddd)", c ? c->red : 0, c ? c->green : 0, c ? c->blue : 0, c ? c->alpha : 0, g->stops[i]->location);
  }
  return g_variant_builder_end (&b);
}

static void
put_workout (Converting *c, GVariantBuilder *b, const Pickerd__V1__Workout *w, const char *icon_role)
{
  if (w->details != NULL) {
    const Pickerd__V1__WorkoutDetails *d = w->details;
    g_variant_builder_add (b, "{sv}", "activity-type", g_variant_new_uint32 (d->activity_type));
    put_quantity (b, "active-energy-burned", d->active_energy_burned);
    put_quantity (b, "distance", d->distance);
    put_quantity (b, "average-heart-rate", d->average_heart_rate);
    put_interval (b, d->date);
    put_string (b, "localized-name", d->localized_name);
  }
  GVariantBuilder route;
  g_variant_builder_init (&route, G_VARIANT_TYPE ("aa{sv}"));
  for (size_t i = 0; i < w->n_route; i++) {
    GVariantBuilder point;
    g_variant_builder_init (&point, G_VARIANT_TYPE_VARDICT);
    put_geo (&point, w->route[i]);
    g_variant_builder_add_value (&route, g_variant_builder_end (&point));
  }
  g_variant_builder_add (b, "{sv}", "route", g_variant_builder_end (&route));
  add_media (c, icon_role, w->icon);
}

static GVariant *
location_fields (const Pickerd__V1__Location *l)
{
  GVariantBuilder b;
  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  put_string (&b, "place", l->place);
  put_string (&b, "city", l->city);
  put_geo (&b, l->location);
  put_time (&b, "date", l->date);
  if (l->is_work_location != NULL)
    g_variant_builder_add (&b, "{sv}", "is-work-location", g_variant_new_boolean (l->is_work_location->value));
  return g_variant_builder_end (&b);
}

static void
add_fields (GVariantBuilder *into, GVariant *dict)
{
  GVariantIter iter;
  const char *key;
  GVariant *value;
  g_variant_iter_init (&iter, dict);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value)) {
    g_variant_builder_add (into, "{sv}", key, value);
    g_variant_unref (value);
  }
}

static JsItem *
item_from_message (const Pickerd__V1__Item *m, GArray *fds)
{
  JsItem *item = g_object_new (JS_TYPE_ITEM, NULL);
  item->id = g_strdup (m->id);
  /* Real offsets lie within ±18 h (-64800 … 50400 s today): anything else is not one and stays absent. */
  if (m->local_utc_offset_s != NULL && m->local_utc_offset_s->value >= -18 * 3600 && m->local_utc_offset_s->value <= 18 * 3600) {
    item->has_utc_offset = TRUE;
    item->utc_offset = (gint32) m->local_utc_offset_s->value;
  }
  Converting c = { item, fds };
  GVariantBuilder b;
  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  switch (m->asset_case) {
  case PICKERD__V1__ITEM__ASSET_PHOTO:
    item->kind = JS_ASSET_PHOTO;
    put_time (&b, "date", m->photo->date);
    add_media (&c, "photo", m->photo->photo);
    break;
  case PICKERD__V1__ITEM__ASSET_LIVE_PHOTO:
    item->kind = JS_ASSET_LIVE_PHOTO;
    put_time (&b, "date", m->live_photo->date);
    add_media (&c, "image", m->live_photo->image);
    add_media (&c, "video", m->live_photo->video);
    break;
  case PICKERD__V1__ITEM__ASSET_VIDEO:
    item->kind = JS_ASSET_VIDEO;
    put_time (&b, "date", m->video->date);
    add_media (&c, "video", m->video->url);
    break;
  case PICKERD__V1__ITEM__ASSET_WORKOUT:
    item->kind = JS_ASSET_WORKOUT;
    put_workout (&c, &b, m->workout, "icon");
    break;
  case PICKERD__V1__ITEM__ASSET_WORKOUT_GROUP: {
    item->kind = JS_ASSET_WORKOUT_GROUP;
    const Pickerd__V1__WorkoutGroup *g = m->workout_group;
    GVariantBuilder workouts;
    g_variant_builder_init (&workouts, G_VARIANT_TYPE ("aa{sv}"));
    for (size_t i = 0; i < g->n_workouts; i++) {
      GVariantBuilder w;
      g_variant_builder_init (&w, G_VARIANT_TYPE_VARDICT);
      g_autofree char *role = g_strdup_printf ("workouts/%zu/icon", i);
      put_workout (&c, &w, g->workouts[i], role);
      g_variant_builder_add_value (&workouts, g_variant_builder_end (&w));
    }
    g_variant_builder_add (&b, "{sv}", "workouts", g_variant_builder_end (&workouts));
    put_double (&b, "duration", g->duration_s);
    put_quantity (&b, "active-energy-burned", g->active_energy_burned);
    put_quantity (&b, "average-heart-rate", g->average_heart_rate);
    add_media (&c, "icon", g->icon);
    break;
  }
  case PICKERD__V1__ITEM__ASSET_CONTACT:
    item->kind = JS_ASSET_CONTACT;
    put_string (&b, "name", m->contact->name);
    add_media (&c, "photo", m->contact->photo);
    break;
  case PICKERD__V1__ITEM__ASSET_LOCATION: {
    item->kind = JS_ASSET_LOCATION;
    g_autoptr (GVariant) fields = g_variant_ref_sink (location_fields (m->location));
    add_fields (&b, fields);
    break;
  }
  case PICKERD__V1__ITEM__ASSET_LOCATION_GROUP: {
    item->kind = JS_ASSET_LOCATION_GROUP;
    GVariantBuilder locations;
    g_variant_builder_init (&locations, G_VARIANT_TYPE ("aa{sv}"));
    for (size_t i = 0; i < m->location_group->n_locations; i++)
      g_variant_builder_add_value (&locations, location_fields (m->location_group->locations[i]));
    g_variant_builder_add (&b, "{sv}", "locations", g_variant_builder_end (&locations));
    break;
  }
  case PICKERD__V1__ITEM__ASSET_SONG:
    item->kind = JS_ASSET_SONG;
    put_string (&b, "song", m->song->song);
    put_string (&b, "artist", m->song->artist);
    put_string (&b, "album", m->song->album);
    put_time (&b, "date", m->song->date);
    add_media (&c, "artwork", m->song->artwork);
    break;
  case PICKERD__V1__ITEM__ASSET_PODCAST:
    item->kind = JS_ASSET_PODCAST;
    put_string (&b, "episode", m->podcast->episode);
    put_string (&b, "show", m->podcast->show);
    put_time (&b, "date", m->podcast->date);
    add_media (&c, "artwork", m->podcast->artwork);
    break;
  case PICKERD__V1__ITEM__ASSET_MOTION_ACTIVITY: {
    item->kind = JS_ASSET_MOTION_ACTIVITY;
    static const char *const movements[] = { NULL, "walking", "running", "runningWalking" };
    g_variant_builder_add (&b, "{sv}", "steps", g_variant_new_int64 (m->motion_activity->steps));
    put_interval (&b, m->motion_activity->date);
    guint movement = (guint) m->motion_activity->movement_type;
    if (movement < G_N_ELEMENTS (movements))
      put_string (&b, "movement-type", movements[movement]);
    add_media (&c, "icon", m->motion_activity->icon);
    break;
  }
  case PICKERD__V1__ITEM__ASSET_GENERIC_MEDIA:
    item->kind = JS_ASSET_GENERIC_MEDIA;
    put_string (&b, "title", m->generic_media->title);
    put_string (&b, "artist", m->generic_media->artist);
    put_string (&b, "album", m->generic_media->album);
    put_time (&b, "date", m->generic_media->date);
    add_media (&c, "app-icon", m->generic_media->app_icon);
    add_media (&c, "artwork", m->generic_media->artwork);
    break;
  case PICKERD__V1__ITEM__ASSET_REFLECTION: {
    item->kind = JS_ASSET_REFLECTION;
    put_string (&b, "prompt", m->reflection->prompt);
    const Pickerd__V1__Color *color = m->reflection->color;
    if (color != NULL)
      g_variant_builder_add (&b, "{sv}", "color", g_variant_new ("(dddd)", color->red, color->green, color->blue, color->alpha));
    break;
  }
  case PICKERD__V1__ITEM__ASSET_STATE_OF_MIND: {
    item->kind = JS_ASSET_STATE_OF_MIND;
    const Pickerd__V1__StateOfMindSample *s = m->state_of_mind->state;
    if (s != NULL) {
      if (s->kind == PICKERD__V1__STATE_OF_MIND_KIND__STATE_OF_MIND_KIND_MOMENTARY_EMOTION)
        put_string (&b, "kind", "momentaryEmotion");
      else if (s->kind == PICKERD__V1__STATE_OF_MIND_KIND__STATE_OF_MIND_KIND_DAILY_MOOD)
        put_string (&b, "kind", "dailyMood");
      g_variant_builder_add (&b, "{sv}", "valence", g_variant_new_double (s->valence));
      g_variant_builder_add (&b, "{sv}", "valence-classification", g_variant_new_uint32 ((guint32) s->valence_classification));
      GVariantBuilder labels, associations;
      g_variant_builder_init (&labels, G_VARIANT_TYPE ("au"));
      g_variant_builder_init (&associations, G_VARIANT_TYPE ("au"));
      for (size_t i = 0; i < s->n_labels; i++)
        g_variant_builder_add (&labels, "u", (guint32) s->labels[i]);
      for (size_t i = 0; i < s->n_associations; i++)
        g_variant_builder_add (&associations, "u", (guint32) s->associations[i]);
      g_variant_builder_add (&b, "{sv}", "labels", g_variant_builder_end (&labels));
      g_variant_builder_add (&b, "{sv}", "associations", g_variant_builder_end (&associations));
      put_time (&b, "date", s->date);
    }
    g_variant_builder_add (&b, "{sv}", "light-background", gradient (m->state_of_mind->light_background));
    g_variant_builder_add (&b, "{sv}", "dark-background", gradient (m->state_of_mind->dark_background));
    add_media (&c, "icon", m->state_of_mind->icon);
    break;
  }
  default:
    /* An asset this library does not know (a later protocol version): left out, as the Swift
     * library leaves it out. */
    g_variant_builder_clear (&b);
    g_object_unref (item);
    return NULL;
  }
  item->fields = g_variant_ref_sink (g_variant_builder_end (&b));
  return item;
}

JsOutcome *
js_outcome_from_message (const Pickerd__V1__Outcome *message, GArray *fds, GError **error)
{
  JsOutcome *outcome = g_object_new (JS_TYPE_OUTCOME, NULL);
  switch (message->result_case) {
  case PICKERD__V1__OUTCOME__RESULT_APPROVED: {
    const Pickerd__V1__Suggestion *s = message->approved;
    outcome->kind = JS_OUTCOME_APPROVED;
    JsSuggestion *suggestion = g_object_new (JS_TYPE_SUGGESTION, NULL);
    suggestion->title = g_strdup (s->title);
    if (s->date != NULL) {
      suggestion->has_date = TRUE;
      suggestion->start = s->date->start_unix_ms;
      suggestion->end = s->date->end_unix_ms;
    }
    for (size_t i = 0; i < s->n_items; i++) {
      JsItem *item = item_from_message (s->items[i], fds);
      if (item != NULL)
        g_ptr_array_add (suggestion->items, item);
    }
    outcome->suggestion = suggestion;
    return outcome;
  }
  case PICKERD__V1__OUTCOME__RESULT_CANCELLED:
    outcome->kind = JS_OUTCOME_CANCELLED;
    return outcome;
  case PICKERD__V1__OUTCOME__RESULT_DISMISSED:
    outcome->kind = JS_OUTCOME_DISMISSED;
    switch (message->dismissed->reason) {
    case PICKERD__V1__DISMISS_REASON__DISMISS_REASON_CLIENT_CLOSED: outcome->reason = JS_DISMISSAL_CLOSED_BY_APP; break;
    case PICKERD__V1__DISMISS_REASON__DISMISS_REASON_AGENT_GONE: outcome->reason = JS_DISMISSAL_PICKER_GONE; break;
    case PICKERD__V1__DISMISS_REASON__DISMISS_REASON_SHUTDOWN: outcome->reason = JS_DISMISSAL_SHUTDOWN; break;
    case PICKERD__V1__DISMISS_REASON__DISMISS_REASON_CONSENT_DECLINED: outcome->reason = JS_DISMISSAL_CONSENT_DECLINED; break;
    default: outcome->reason = JS_DISMISSAL_OTHER; break;
    }
    return outcome;
  case PICKERD__V1__OUTCOME__RESULT_ERROR:
    js_set_remote_error (error, message->error);
    break;
  default:
    g_set_error_literal (error, JS_ERROR, JS_ERROR_FAILED, "pickerd sent an empty outcome");
    break;
  }
  g_object_unref (outcome);
  return NULL;
}
