// The desktop picker's window: a small C API over GTK 4 that picker-gtk's Swift code builds its
// screens with. Swift never sees a GTK type: widgets are opaque `pw_widget` pointers, and everything
// the person does arrives as one event (an id Swift chose when it made the widget, a kind, a value).
//
// Everything here runs on the main thread, inside pw_run(), except pw_wake(), which any thread may
// call to have PW_EVENT_WAKE delivered on the main thread.
#ifndef CPICKERWINDOW_H
#define CPICKERWINDOW_H

#include <stddef.h>
#include <stdint.h>

typedef struct pw_widget pw_widget;

/// What happened. `value` and `text` are as each kind says.
typedef enum {
    PW_EVENT_CLICKED = 1,      // a button was pressed
    PW_EVENT_TOGGLED = 2,      // a check button: value is 1 when now checked
    PW_EVENT_ACTIVATED = 3,    // Enter in an entry: text is its text
    PW_EVENT_ROW_ACTIVATED = 4,// a list row was opened (Enter, double click): value is its index
    PW_EVENT_ROW_SELECTED = 5, // a list row got the selection (arrow keys, a click): value is its index
    PW_EVENT_END_REACHED = 6,  // a list was scrolled to its end
    PW_EVENT_CLOSE = 7,        // the window manager asks the window to close
    PW_EVENT_ESCAPE = 8,       // Escape was pressed in the window (outside an entry that handles it)
    PW_EVENT_WAKE = 9,         // pw_wake() was called
    PW_EVENT_PAGE = 10,        // a stack switched page: value is the page's index
    PW_EVENT_DRAWN = 11,       // the frame asked for with pw_window_mark_drawn() was painted
    PW_EVENT_KEY = 12,         // a key went to the window (before any widget handles it), for the trace
} pw_event_kind;

typedef void (*pw_event_handler)(int32_t id, int32_t kind, int32_t value, const char *text);

/// Opens the display (GTK's default: $WAYLAND_DISPLAY, else $DISPLAY). 0, or -1 when there is none.
int pw_init(pw_event_handler handler);
/// The display's name (":99", "wayland-0"), for the log.
const char *pw_display_name(void);
/// Runs the main loop until pw_quit().
void pw_run(void);
void pw_quit(void);
/// Thread-safe: delivers PW_EVENT_WAKE with `id` on the main thread.
void pw_wake(int32_t id);
/// Adds application CSS.
void pw_css(const char *css);

// Windows
/// A window titled `title`, with a header bar; its close button and the window manager's close
/// arrive as PW_EVENT_CLOSE with `id` (the window stays until pw_destroy), Escape as PW_EVENT_ESCAPE.
pw_widget *pw_window(const char *title, int width, int height, int32_t id);
void pw_window_set_title(pw_widget *window, const char *title);
void pw_window_set_child(pw_widget *window, pw_widget *child);
void pw_window_present(pw_widget *window);
/// Makes `window` transient for the app's window, named as xdg-desktop-portal names it:
/// "x11:<hex XID>" or "wayland:<exported handle>". 0 when done, -1 when the handle is not for this
/// display's kind, malformed, or the window no longer exists.
int pw_window_set_parent(pw_widget *window, const char *handle);
/// The window's X11 id (0 on Wayland), for the log and the tests.
unsigned long pw_window_xid(pw_widget *window);
void pw_destroy(pw_widget *widget);
/// Once the window's next frame has been painted (its frame clock's "after-paint"): sets the X11
/// property _PICKERD_SCREEN (UTF8_STRING) on the window to `state` (nothing on Wayland), then delivers
/// PW_EVENT_DRAWN with `id`. What drives the picker (the demo, the tests, the benchmark) waits for the
/// screen a key is meant for by reading the property, not by waiting a while.
void pw_window_mark_drawn(pw_widget *window, const char *state, int32_t id);
/// Sets the X11 property `name` (UTF8_STRING) on the window to `value` (nothing on Wayland).
void pw_window_set_property(pw_widget *window, const char *name, const char *value);
/// Key presses on `window` are reported as PW_EVENT_KEY with `id` (value: the keyval) before the
/// window handles them; used only to time "key → next screen".
void pw_window_report_keys(pw_widget *window, int32_t id);

// Layout
pw_widget *pw_box(int vertical, int spacing);
void pw_append(pw_widget *box, pw_widget *child);
/// Removes every child of a box.
void pw_clear(pw_widget *box);
void pw_margins(pw_widget *widget, int top, int end, int bottom, int start);
void pw_expand(pw_widget *widget, int horizontal, int vertical);
/// 0 fill, 1 start, 2 end, 3 center (GtkAlign).
void pw_align(pw_widget *widget, int horizontal, int vertical);
void pw_size(pw_widget *widget, int width, int height);
void pw_class(pw_widget *widget, const char *css_class);
void pw_sensitive(pw_widget *widget, int sensitive);
void pw_visible(pw_widget *widget, int visible);
void pw_focus(pw_widget *widget);
/// Whether the widget takes the keyboard focus itself (a check inside a list row leaves it to the row).
void pw_focusable(pw_widget *widget, int focusable);
/// The accessible name (unless NULL: a button is named by its label) and description (unless NULL)
/// screen readers give the widget.
void pw_accessible(pw_widget *widget, const char *label, const char *description);
void pw_tooltip(pw_widget *widget, const char *text);
/// A scrolled area around `child`.
pw_widget *pw_scrolled(pw_widget *child, int horizontal_policy_never);
pw_widget *pw_separator(int vertical);

// Text
/// A label: style 0 body, 1 large title, 2 heading, 3 dim, 4 small dim, 5 error. Wraps at word
/// boundaries; xalign 0 unless centered.
pw_widget *pw_label(const char *text, int style, int centered);
void pw_label_set(pw_widget *label, const char *text);
/// Shows a label in the error style (style 5) when `error` is non-zero, else without it.
void pw_label_set_error(pw_widget *label, int error);
/// One line with an ellipsis where it does not fit.
void pw_label_single_line(pw_widget *label);
/// A text entry holding `text`; Enter is PW_EVENT_ACTIVATED.
pw_widget *pw_entry(const char *text, const char *accessible_label, int32_t id);
/// The entry's text (valid until the entry changes).
const char *pw_entry_text(pw_widget *entry);

// Controls
/// A button; `label` may carry a mnemonic ("_Add"). style 0 plain, 1 suggested, 2 destructive, 3 flat.
pw_widget *pw_button(const char *label, int style, int32_t id);
void pw_button_set_label(pw_widget *button, const char *label);
/// Makes `button` the window's default (Enter activates it when nothing else takes Enter).
void pw_default(pw_widget *window, pw_widget *button);
/// A check button; its PW_EVENT_TOGGLED carries `id`.
pw_widget *pw_check(const char *label, int active, int32_t id);
/// Sets a check button without an event.
void pw_check_set(pw_widget *check, int active);
pw_widget *pw_spinner(void);

// Lists
/// A list of rows (activatable, single selection) inside a scrolled window; returns the scrolled
/// window. Row events carry `id`; reaching the end is PW_EVENT_END_REACHED.
pw_widget *pw_list(int32_t id, const char *accessible_label);
/// Appends a row holding `child`, with its accessible name.
void pw_list_append(pw_widget *list, pw_widget *child, const char *accessible_label);
void pw_list_clear(pw_widget *list);
/// Whether a single click opens a row (the default) or only selects it (a double click opens).
void pw_list_single_click(pw_widget *list, int single_click);
/// Selects row `index` (no event) and, when `focus`, gives it the keyboard focus.
void pw_list_select(pw_widget *list, int index, int focus);
int pw_list_count(pw_widget *list);

// Pages
/// A stack of pages with a switcher above (tabs). Switching is PW_EVENT_PAGE with `id`.
pw_widget *pw_stack(int32_t id);
/// The switcher that shows `stack`'s pages as tabs.
pw_widget *pw_stack_switcher(pw_widget *stack);
void pw_stack_add(pw_widget *stack, pw_widget *child, const char *name, const char *title);
void pw_stack_set_title(pw_widget *stack, pw_widget *child, const char *title);
void pw_stack_show(pw_widget *stack, const char *name);

// Pictures
/// A picture from an encoded image (PNG, JPEG, TIFF: what GdkTexture reads), scaled to fit
/// `width`×`height` keeping its aspect (a square of at most 128 is a thumbnail of exactly that
/// size). NULL when the bytes are not an image GTK reads.
pw_widget *pw_picture_encoded(const uint8_t *bytes, size_t count, int width, int height, const char *alternative);
/// A picture from 8-bit RGB pixels.
pw_widget *pw_picture_rgb(const uint8_t *rgb, int pixel_width, int pixel_height, int width, int height, const char *alternative);
/// A route drawn from its points (latitude, longitude in degrees), with no map under it.
pw_widget *pw_route(const double *latitudes, const double *longitudes, int count, int width, int height, const char *alternative);
/// A large glyph on a tinted square: what a suggestion or item without a picture shows.
pw_widget *pw_glyph(const char *glyph, int width, int height, const char *alternative);

#endif
