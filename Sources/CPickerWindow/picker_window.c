// The desktop picker's window over GTK 4 (see CPickerWindow.h). Each function is a thin wrapper;
// what a screen holds is decided in Swift (picker-gtk).
#include "CPickerWindow.h"

#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif
#ifdef GDK_WINDOWING_WAYLAND
#include <gdk/wayland/gdkwayland.h>
#endif

static pw_event_handler handler;
static GMainLoop *loop;

#define W(x) ((GtkWidget *)(x))
#define P(x) ((pw_widget *)(x))

static void emit(int32_t id, int32_t kind, int32_t value, const char *text) {
    if (handler) handler(id, kind, value, text);
}

int pw_init(pw_event_handler event_handler) {
    handler = event_handler;
    // How the desktop and screen readers name this program (GTK 4 takes no argv to read it from).
    g_set_prgname("picker-gtk");
    g_set_application_name("Journaling Suggestions");
    // Painted with cairo unless the person asks for another renderer. The window lives for one
    // presentation and shows still pages: GL's start (the driver loaded, shaders compiled, in every
    // new picker) costs more than it ever saves, and without a GPU it is llvmpipe, the CPU emulating
    // one (on Xvfb the first screen took 260 ms with GL, 174 with cairo). pickerd's systemd unit sets
    // cairo too: there MemoryDenyWriteExecute leaves Mesa no way to compile shaders.
    if (!g_getenv("GSK_RENDERER")) g_setenv("GSK_RENDERER", "cairo", TRUE);
    // With cairo, GL is not needed at all, but GTK 4.8 still loads it when it opens an X11 display
    // (to choose a visual GL could draw on): 50 of the 60 ms gtk_init took. "gl-disable" skips that.
    if (g_str_equal(g_getenv("GSK_RENDERER"), "cairo") && !g_getenv("GDK_DEBUG")) g_setenv("GDK_DEBUG", "gl-disable", TRUE);
    if (!gtk_init_check()) return -1;
    loop = g_main_loop_new(NULL, FALSE);
    return 0;
}

const char *pw_display_name(void) {
    GdkDisplay *display = gdk_display_get_default();
    return display ? gdk_display_get_name(display) : "";
}

void pw_run(void) { g_main_loop_run(loop); }

void pw_quit(void) {
    if (loop) g_main_loop_quit(loop);
}

static gboolean on_wake(gpointer data) {
    emit(GPOINTER_TO_INT(data), PW_EVENT_WAKE, 0, NULL);
    return G_SOURCE_REMOVE;
}

// At the priority of input, above redrawing: a frame from pickerd (the next screen) is taken in
// before the next frame is painted. At idle priority it would wait for painting to stop, and an
// animation painted slower than its frame rate (GL emulated on a busy CPU) never stops.
void pw_wake(int32_t id) { g_idle_add_full(G_PRIORITY_DEFAULT, on_wake, GINT_TO_POINTER(id), NULL); }

void pw_css(const char *css) {
    GtkCssProvider *provider = gtk_css_provider_new();
    gtk_css_provider_load_from_data(provider, css, -1);
    gtk_style_context_add_provider_for_display(gdk_display_get_default(), GTK_STYLE_PROVIDER(provider),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    g_object_unref(provider);
}

// MARK: Windows

static gboolean on_close_request(GtkWindow *window, gpointer data) {
    (void)window;
    emit(GPOINTER_TO_INT(data), PW_EVENT_CLOSE, 0, NULL);
    return TRUE;  // the window stays until Swift destroys it
}

static gboolean on_escape(GtkWidget *widget, GVariant *args, gpointer data) {
    (void)widget, (void)args;
    emit(GPOINTER_TO_INT(data), PW_EVENT_ESCAPE, 0, NULL);
    return TRUE;
}

pw_widget *pw_window(const char *title, int width, int height, int32_t id) {
    GtkWidget *window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), title);
    gtk_window_set_default_size(GTK_WINDOW(window), width, height);
    GtkWidget *header = gtk_header_bar_new();
    gtk_window_set_titlebar(GTK_WINDOW(window), header);
    g_signal_connect(window, "close-request", G_CALLBACK(on_close_request), GINT_TO_POINTER(id));
    GtkEventController *shortcuts = gtk_shortcut_controller_new();
    gtk_shortcut_controller_add_shortcut(GTK_SHORTCUT_CONTROLLER(shortcuts),
        gtk_shortcut_new(gtk_shortcut_trigger_parse_string("Escape"),
                         gtk_callback_action_new(on_escape, GINT_TO_POINTER(id), NULL)));
    gtk_widget_add_controller(window, shortcuts);
    return P(window);
}

void pw_window_set_title(pw_widget *window, const char *title) { gtk_window_set_title(GTK_WINDOW(window), title); }

void pw_window_set_child(pw_widget *window, pw_widget *child) {
    // The old page's default and focused widgets go with it: the window lets go of them first
    // (GTK 4.8 would otherwise touch the finalized default widget when the next one is set).
    gtk_window_set_default_widget(GTK_WINDOW(window), NULL);
    gtk_window_set_focus(GTK_WINDOW(window), NULL);
    gtk_window_set_child(GTK_WINDOW(window), W(child));
}

void pw_window_present(pw_widget *window) { gtk_window_present(GTK_WINDOW(window)); }

int pw_window_set_parent(pw_widget *window, const char *handle) {
    if (!handle || !*handle) return -1;
    gtk_widget_realize(W(window));
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (!surface) return -1;
#ifdef GDK_WINDOWING_X11
    if (g_str_has_prefix(handle, "x11:") && GDK_IS_X11_SURFACE(surface)) {
        char *end = NULL;
        unsigned long parent = strtoul(handle + 4, &end, 16);
        if (parent == 0 || !end || *end != '\0') return -1;
        GdkDisplay *display = gdk_surface_get_display(surface);
        Display *xdisplay = gdk_x11_display_get_xdisplay(display);
        // A window that is gone (or was never there) is an X error, not a crash: trap it.
        gdk_x11_display_error_trap_push(display);
        XWindowAttributes attributes;
        int exists = XGetWindowAttributes(xdisplay, (Window)parent, &attributes);
        if (exists) XSetTransientForHint(xdisplay, gdk_x11_surface_get_xid(surface), (Window)parent);
        XSync(xdisplay, False);
        int failed = gdk_x11_display_error_trap_pop(display);
        return exists && !failed ? 0 : -1;
    }
#endif
#ifdef GDK_WINDOWING_WAYLAND
    if (g_str_has_prefix(handle, "wayland:") && GDK_IS_WAYLAND_TOPLEVEL(surface)) {
        return gdk_wayland_toplevel_set_transient_for_exported(GDK_TOPLEVEL(surface), (char *)handle + 8) ? 0 : -1;
    }
#endif
    return -1;
}

unsigned long pw_window_xid(pw_widget *window) {
#ifdef GDK_WINDOWING_X11
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (surface && GDK_IS_X11_SURFACE(surface)) return gdk_x11_surface_get_xid(surface);
#endif
    (void)window;
    return 0;
}

typedef struct {
    GtkWidget *window;
    char *state;
    int32_t id;
    gulong handler;
} pending_mark;

static pending_mark *pending;

static void set_property(GtkWidget *window, const char *name, const char *value) {
#ifdef GDK_WINDOWING_X11
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (surface && GDK_IS_X11_SURFACE(surface)) {
        GdkDisplay *display = gdk_surface_get_display(surface);
        Display *xdisplay = gdk_x11_display_get_xdisplay(display);
        Atom property = XInternAtom(xdisplay, name, False);
        Atom utf8 = XInternAtom(xdisplay, "UTF8_STRING", False);
        XChangeProperty(xdisplay, gdk_x11_surface_get_xid(surface), property, utf8, 8, PropModeReplace,
                        (const unsigned char *)value, (int)strlen(value));
        XFlush(xdisplay);
    }
#endif
    (void)window, (void)name, (void)value;
}

void pw_window_set_property(pw_widget *window, const char *name, const char *value) { set_property(W(window), name, value); }

static void drop_pending(void) {
    if (!pending) return;
    GdkFrameClock *clock = gtk_widget_get_frame_clock(pending->window);
    if (clock && pending->handler) g_signal_handler_disconnect(clock, pending->handler);
    g_object_unref(pending->window);
    g_free(pending->state);
    g_free(pending);
    pending = NULL;
}

static void on_after_paint(GdkFrameClock *clock, gpointer data) {
    (void)clock, (void)data;
    if (!pending) return;
    GtkWidget *window = pending->window;
    char *state = g_strdup(pending->state);
    int32_t id = pending->id;
    drop_pending();
    set_property(window, "_PICKERD_SCREEN", state);
    emit(id, PW_EVENT_DRAWN, 0, state);
    g_free(state);
}

void pw_window_mark_drawn(pw_widget *window, const char *state, int32_t id) {
    drop_pending();
    GdkFrameClock *clock = gtk_widget_get_frame_clock(W(window));
    if (!clock) {  // not realized yet: the first frame will come with the window
        gtk_widget_realize(W(window));
        clock = gtk_widget_get_frame_clock(W(window));
    }
    if (!clock) return;
    pending = g_new0(pending_mark, 1);
    pending->window = g_object_ref(W(window));
    pending->state = g_strdup(state);
    pending->id = id;
    pending->handler = g_signal_connect(clock, "after-paint", G_CALLBACK(on_after_paint), NULL);
    gtk_widget_queue_draw(W(window));
}

static gboolean on_key(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state, gpointer data) {
    (void)controller, (void)keycode, (void)state;
    emit(GPOINTER_TO_INT(data), PW_EVENT_KEY, (int32_t)keyval, NULL);
    return FALSE;
}

void pw_window_report_keys(pw_widget *window, int32_t id) {
    GtkEventController *keys = gtk_event_controller_key_new();
    gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE);
    g_signal_connect(keys, "key-pressed", G_CALLBACK(on_key), GINT_TO_POINTER(id));
    gtk_widget_add_controller(W(window), keys);
}

void pw_destroy(pw_widget *widget) {
    if (pending && pending->window == W(widget)) drop_pending();
    if (GTK_IS_WINDOW(widget)) gtk_window_destroy(GTK_WINDOW(widget));
}

// MARK: Layout

pw_widget *pw_box(int vertical, int spacing) {
    return P(gtk_box_new(vertical ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL, spacing));
}

void pw_append(pw_widget *box, pw_widget *child) { gtk_box_append(GTK_BOX(box), W(child)); }

void pw_clear(pw_widget *box) {
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(W(box)))) gtk_box_remove(GTK_BOX(box), child);
}

void pw_margins(pw_widget *widget, int top, int end, int bottom, int start) {
    gtk_widget_set_margin_top(W(widget), top);
    gtk_widget_set_margin_end(W(widget), end);
    gtk_widget_set_margin_bottom(W(widget), bottom);
    gtk_widget_set_margin_start(W(widget), start);
}

void pw_expand(pw_widget *widget, int horizontal, int vertical) {
    gtk_widget_set_hexpand(W(widget), horizontal);
    gtk_widget_set_vexpand(W(widget), vertical);
}

void pw_align(pw_widget *widget, int horizontal, int vertical) {
    gtk_widget_set_halign(W(widget), (GtkAlign)horizontal);
    gtk_widget_set_valign(W(widget), (GtkAlign)vertical);
}

void pw_size(pw_widget *widget, int width, int height) { gtk_widget_set_size_request(W(widget), width, height); }

void pw_class(pw_widget *widget, const char *css_class) { gtk_widget_add_css_class(W(widget), css_class); }

void pw_sensitive(pw_widget *widget, int sensitive) { gtk_widget_set_sensitive(W(widget), sensitive); }

void pw_visible(pw_widget *widget, int visible) { gtk_widget_set_visible(W(widget), visible); }

static void focus_when_mapped(GtkWidget *widget, gpointer data) {
    (void)data;
    g_signal_handlers_disconnect_by_func(widget, (gpointer)focus_when_mapped, NULL);
    gtk_widget_grab_focus(widget);
}

// A page just built is not on screen yet, and GTK gives the focus only to a widget that is: the
// focus is given when it is.
static void grab_focus_soon(GtkWidget *widget) {
    if (gtk_widget_get_mapped(widget)) {
        gtk_widget_grab_focus(widget);
    } else {
        g_signal_handlers_disconnect_by_func(widget, (gpointer)focus_when_mapped, NULL);
        g_signal_connect(widget, "map", G_CALLBACK(focus_when_mapped), NULL);
    }
}

void pw_focus(pw_widget *widget) { grab_focus_soon(W(widget)); }

void pw_focusable(pw_widget *widget, int focusable) { gtk_widget_set_focusable(W(widget), focusable); }

void pw_accessible(pw_widget *widget, const char *label, const char *description) {
    if (!label) {
        if (description) gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
    } else if (description)
        gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
    else
        gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

void pw_tooltip(pw_widget *widget, const char *text) { gtk_widget_set_tooltip_text(W(widget), text); }

pw_widget *pw_scrolled(pw_widget *child, int horizontal_policy_never) {
    GtkWidget *scrolled = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), W(child));
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scrolled),
                                   horizontal_policy_never ? GTK_POLICY_NEVER : GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
    return P(scrolled);
}

pw_widget *pw_separator(int vertical) {
    return P(gtk_separator_new(vertical ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL));
}

// MARK: Text

pw_widget *pw_label(const char *text, int style, int centered) {
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(label), PANGO_WRAP_WORD_CHAR);
    // At least 20 characters wide. Without it GTK finds a wrapping label's minimum width by laying
    // its text out at width 0, a line per character, each line shaped on its own: measured alone,
    // 25 ms for 800 characters against 0.7 ms at 20 characters' width. That was most of every
    // screen's layout (HarfBuzz alone about half the picker's CPU in a step).
    gtk_label_set_width_chars(GTK_LABEL(label), 20);
    gtk_label_set_xalign(GTK_LABEL(label), centered ? 0.5f : 0.0f);
    if (centered) gtk_label_set_justify(GTK_LABEL(label), GTK_JUSTIFY_CENTER);
    static const char *classes[] = {NULL, "pw-title", "pw-heading", "pw-dim", "pw-small", "pw-error"};
    if (style > 0 && style < (int)(sizeof classes / sizeof *classes)) gtk_widget_add_css_class(label, classes[style]);
    return P(label);
}

void pw_label_set(pw_widget *label, const char *text) { gtk_label_set_text(GTK_LABEL(label), text); }

void pw_label_set_error(pw_widget *label, int error) {
    if (error) gtk_widget_add_css_class(GTK_WIDGET(label), "pw-error");
    else gtk_widget_remove_css_class(GTK_WIDGET(label), "pw-error");
}

void pw_label_single_line(pw_widget *label) {
    gtk_label_set_wrap(GTK_LABEL(label), FALSE);
    gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
}

static void on_entry_activate(GtkEntry *entry, gpointer data) {
    emit(GPOINTER_TO_INT(data), PW_EVENT_ACTIVATED, 0, gtk_editable_get_text(GTK_EDITABLE(entry)));
}

pw_widget *pw_entry(const char *text, const char *accessible_label, int32_t id) {
    GtkWidget *entry = gtk_entry_new();
    gtk_editable_set_text(GTK_EDITABLE(entry), text);
    gtk_entry_set_max_length(GTK_ENTRY(entry), 120);
    gtk_accessible_update_property(GTK_ACCESSIBLE(entry), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);
    g_signal_connect(entry, "activate", G_CALLBACK(on_entry_activate), GINT_TO_POINTER(id));
    return P(entry);
}

const char *pw_entry_text(pw_widget *entry) { return gtk_editable_get_text(GTK_EDITABLE(entry)); }

// MARK: Controls

static void on_clicked(GtkButton *button, gpointer data) {
    (void)button;
    emit(GPOINTER_TO_INT(data), PW_EVENT_CLICKED, 0, NULL);
}

// Alt with the underlined letter clicks at once. GTK's own mnemonic activation shows the button
// pressed for 250 ms (ACTIVATE_TIMEOUT) before it clicks, a quarter of a second added to every step.
static gboolean on_mnemonic(GtkWidget *button, gboolean group_cycling, gpointer data) {
    if (group_cycling || !gtk_widget_is_sensitive(button)) return FALSE;
    emit(GPOINTER_TO_INT(data), PW_EVENT_CLICKED, 0, NULL);
    return TRUE;
}

pw_widget *pw_button(const char *label, int style, int32_t id) {
    GtkWidget *button = gtk_button_new_with_mnemonic(label);
    // Its name for screen readers comes from its label widget alone: GTK 4.8 also sets the label
    // property to the mnemonic text, and a screen reader would say "_Turn On Turn On".
    gtk_accessible_reset_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL);
    static const char *classes[] = {NULL, "suggested-action", "destructive-action", "flat"};
    if (style > 0 && style < 4) gtk_widget_add_css_class(button, classes[style]);
    g_signal_connect(button, "clicked", G_CALLBACK(on_clicked), GINT_TO_POINTER(id));
    g_signal_connect(button, "mnemonic-activate", G_CALLBACK(on_mnemonic), GINT_TO_POINTER(id));
    return P(button);
}

void pw_button_set_label(pw_widget *button, const char *label) { gtk_button_set_label(GTK_BUTTON(button), label); }

void pw_default(pw_widget *window, pw_widget *button) { gtk_window_set_default_widget(GTK_WINDOW(window), W(button)); }

static void on_toggled(GtkCheckButton *check, gpointer data) {
    emit(GPOINTER_TO_INT(data), PW_EVENT_TOGGLED, gtk_check_button_get_active(check), NULL);
}

pw_widget *pw_check(const char *label, int active, int32_t id) {
    GtkWidget *check = gtk_check_button_new_with_label(label);
    gtk_check_button_set_active(GTK_CHECK_BUTTON(check), active);
    g_signal_connect(check, "toggled", G_CALLBACK(on_toggled), GINT_TO_POINTER(id));
    return P(check);
}

void pw_check_set(pw_widget *check, int active) {
    g_signal_handlers_block_matched(check, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, (gpointer)on_toggled, NULL);
    gtk_check_button_set_active(GTK_CHECK_BUTTON(check), active);
    g_signal_handlers_unblock_matched(check, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, (gpointer)on_toggled, NULL);
}

pw_widget *pw_spinner(void) {
    GtkWidget *spinner = gtk_spinner_new();
    gtk_spinner_start(GTK_SPINNER(spinner));
    return P(spinner);
}

// MARK: Lists

static GtkListBox *list_of(pw_widget *scrolled) { return GTK_LIST_BOX(g_object_get_data(G_OBJECT(scrolled), "pw-list")); }

static void on_row_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data) {
    (void)box;
    emit(GPOINTER_TO_INT(data), PW_EVENT_ROW_ACTIVATED, gtk_list_box_row_get_index(row), NULL);
}

static void on_row_selected(GtkListBox *box, GtkListBoxRow *row, gpointer data) {
    (void)box;
    if (row) emit(GPOINTER_TO_INT(data), PW_EVENT_ROW_SELECTED, gtk_list_box_row_get_index(row), NULL);
}

static void on_edge_reached(GtkScrolledWindow *scrolled, GtkPositionType position, gpointer data) {
    (void)scrolled;
    if (position == GTK_POS_BOTTOM) emit(GPOINTER_TO_INT(data), PW_EVENT_END_REACHED, 0, NULL);
}

pw_widget *pw_list(int32_t id, const char *accessible_label) {
    GtkWidget *box = gtk_list_box_new();
    gtk_list_box_set_selection_mode(GTK_LIST_BOX(box), GTK_SELECTION_SINGLE);
    gtk_widget_add_css_class(box, "boxed-list");
    gtk_accessible_update_property(GTK_ACCESSIBLE(box), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);
    g_signal_connect(box, "row-activated", G_CALLBACK(on_row_activated), GINT_TO_POINTER(id));
    g_signal_connect(box, "row-selected", G_CALLBACK(on_row_selected), GINT_TO_POINTER(id));
    GtkWidget *scrolled = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), box);
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_widget_set_vexpand(scrolled, TRUE);
    g_signal_connect(scrolled, "edge-reached", G_CALLBACK(on_edge_reached), GINT_TO_POINTER(id));
    g_object_set_data(G_OBJECT(scrolled), "pw-list", box);
    return P(scrolled);
}

void pw_list_append(pw_widget *list, pw_widget *child, const char *accessible_label) {
    GtkWidget *row = gtk_list_box_row_new();
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), W(child));
    gtk_accessible_update_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);
    gtk_list_box_append(list_of(list), row);
}

void pw_list_clear(pw_widget *list) {
    GtkListBox *box = list_of(list);
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(box)))) gtk_list_box_remove(box, child);
}

void pw_list_single_click(pw_widget *list, int single_click) {
    gtk_list_box_set_activate_on_single_click(list_of(list), single_click);
}

void pw_list_select(pw_widget *list, int index, int focus) {
    GtkListBox *box = list_of(list);
    GtkListBoxRow *row = gtk_list_box_get_row_at_index(box, index);
    if (!row) return;
    g_signal_handlers_block_matched(box, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, (gpointer)on_row_selected, NULL);
    gtk_list_box_select_row(box, row);
    g_signal_handlers_unblock_matched(box, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, (gpointer)on_row_selected, NULL);
    if (focus) grab_focus_soon(GTK_WIDGET(row));
}

int pw_list_count(pw_widget *list) {
    int count = 0;
    for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(list_of(list))); child; child = gtk_widget_get_next_sibling(child))
        count++;
    return count;
}

// MARK: Pages

static void on_visible_child(GObject *stack, GParamSpec *spec, gpointer data) {
    (void)spec;
    GtkWidget *child = gtk_stack_get_visible_child(GTK_STACK(stack));
    if (child) emit(GPOINTER_TO_INT(data), PW_EVENT_PAGE, GPOINTER_TO_INT(g_object_get_data(G_OBJECT(child), "pw-index")), NULL);
}

pw_widget *pw_stack(int32_t id) {
    GtkWidget *stack = gtk_stack_new();
    gtk_widget_set_vexpand(stack, TRUE);
    // Sized by the page shown alone: a homogeneous stack measures every page, and a page of rows
    // not shown would cost the text of all its rows laid out before the first frame.
    gtk_stack_set_hhomogeneous(GTK_STACK(stack), FALSE);
    gtk_stack_set_vhomogeneous(GTK_STACK(stack), FALSE);
    g_signal_connect(stack, "notify::visible-child", G_CALLBACK(on_visible_child), GINT_TO_POINTER(id));
    return P(stack);
}

pw_widget *pw_stack_switcher(pw_widget *stack) {
    GtkWidget *switcher = gtk_stack_switcher_new();
    gtk_stack_switcher_set_stack(GTK_STACK_SWITCHER(switcher), GTK_STACK(stack));
    return P(switcher);
}

void pw_stack_add(pw_widget *stack, pw_widget *child, const char *name, const char *title) {
    int index = 0;
    for (GtkWidget *c = gtk_widget_get_first_child(W(stack)); c; c = gtk_widget_get_next_sibling(c)) index++;
    g_object_set_data(G_OBJECT(child), "pw-index", GINT_TO_POINTER(index));
    gtk_stack_add_titled(GTK_STACK(stack), W(child), name, title);
}

void pw_stack_set_title(pw_widget *stack, pw_widget *child, const char *title) {
    gtk_stack_page_set_title(gtk_stack_get_page(GTK_STACK(stack), W(child)), title);
}

void pw_stack_show(pw_widget *stack, const char *name) { gtk_stack_set_visible_child_name(GTK_STACK(stack), name); }

// MARK: Pictures

static GtkWidget *picture_of(GdkTexture *texture, int width, int height, const char *alternative) {
    if (width == height && width <= 128) {
        // A thumbnail: exactly that square, the picture fitted inside.
        GtkWidget *image = gtk_image_new_from_paintable(GDK_PAINTABLE(texture));
        g_object_unref(texture);
        gtk_image_set_pixel_size(GTK_IMAGE(image), width);
        gtk_accessible_update_property(GTK_ACCESSIBLE(image), GTK_ACCESSIBLE_PROPERTY_LABEL, alternative, -1);
        return image;
    }
    GtkWidget *picture = gtk_picture_new_for_paintable(GDK_PAINTABLE(texture));
    g_object_unref(texture);
    gtk_picture_set_can_shrink(GTK_PICTURE(picture), TRUE);
    gtk_picture_set_content_fit(GTK_PICTURE(picture), GTK_CONTENT_FIT_CONTAIN);
    gtk_picture_set_alternative_text(GTK_PICTURE(picture), alternative);
    gtk_widget_set_size_request(picture, width, height);
    return picture;
}

typedef struct {
    int width, height;
} fit_size;

static void on_size_prepared(GdkPixbufLoader *loader, int width, int height, gpointer data) {
    const fit_size *fit = data;
    double scale = fmin((double)fit->width / width, (double)fit->height / height);
    if (scale < 1) gdk_pixbuf_loader_set_size(loader, (int)fmax(1, width * scale), (int)fmax(1, height * scale));
}

pw_widget *pw_picture_encoded(const uint8_t *bytes, size_t count, int width, int height, const char *alternative) {
    // Scaled once, as it is decoded, to twice the size shown (sharp on a 2× screen): a photo's
    // full size would otherwise be scaled down again in every frame painted.
    fit_size fit = {width * 2, height * 2};
    GdkPixbufLoader *loader = gdk_pixbuf_loader_new();
    g_signal_connect(loader, "size-prepared", G_CALLBACK(on_size_prepared), &fit);
    GError *error = NULL;
    gboolean wrote = gdk_pixbuf_loader_write(loader, bytes, count, &error);
    g_clear_error(&error);
    gboolean closed = gdk_pixbuf_loader_close(loader, &error);  // always closed, even after a failed write
    g_clear_error(&error);
    GdkPixbuf *pixbuf = wrote && closed ? gdk_pixbuf_loader_get_pixbuf(loader) : NULL;
    GdkTexture *texture = pixbuf ? gdk_texture_new_for_pixbuf(pixbuf) : NULL;
    g_object_unref(loader);
    if (!texture) return NULL;
    return P(picture_of(texture, width, height, alternative));
}

pw_widget *pw_picture_rgb(const uint8_t *rgb, int pixel_width, int pixel_height, int width, int height, const char *alternative) {
    if (pixel_width <= 0 || pixel_height <= 0) return NULL;
    GBytes *data = g_bytes_new(rgb, (size_t)pixel_width * (size_t)pixel_height * 3);
    GdkTexture *texture = gdk_memory_texture_new(pixel_width, pixel_height, GDK_MEMORY_R8G8B8, data, (size_t)pixel_width * 3);
    g_bytes_unref(data);
    return P(picture_of(texture, width, height, alternative));
}

typedef struct {
    int count;
    double *x, *y;  // projected, in the route's own units
} route_points;

static void free_route(gpointer data) {
    route_points *route = data;
    free(route->x);
    free(route->y);
    free(route);
}

static void draw_route(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data) {
    (void)area;
    route_points *route = data;
    cairo_set_source_rgb(cr, 0.93, 0.95, 0.93);
    cairo_paint(cr);
    if (route->count < 2) return;
    double minx = route->x[0], maxx = minx, miny = route->y[0], maxy = miny;
    for (int i = 1; i < route->count; i++) {
        minx = fmin(minx, route->x[i]), maxx = fmax(maxx, route->x[i]);
        miny = fmin(miny, route->y[i]), maxy = fmax(maxy, route->y[i]);
    }
    double pad = 16, spanx = fmax(maxx - minx, 1e-9), spany = fmax(maxy - miny, 1e-9);
    double scale = fmin((width - 2 * pad) / spanx, (height - 2 * pad) / spany);
    double ox = (width - spanx * scale) / 2, oy = (height - spany * scale) / 2;
    cairo_set_line_width(cr, 3.5);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_source_rgb(cr, 0.85, 0.33, 0.10);
    for (int i = 0; i < route->count; i++) {
        double px = ox + (route->x[i] - minx) * scale, py = oy + (maxy - route->y[i]) * scale;
        if (i == 0) cairo_move_to(cr, px, py); else cairo_line_to(cr, px, py);
    }
    cairo_stroke(cr);
    // Start green, end dark.
    double sx = ox + (route->x[0] - minx) * scale, sy = oy + (maxy - route->y[0]) * scale;
    double ex = ox + (route->x[route->count - 1] - minx) * scale, ey = oy + (maxy - route->y[route->count - 1]) * scale;
    cairo_set_source_rgb(cr, 0.15, 0.6, 0.25);
    cairo_arc(cr, sx, sy, 5, 0, 2 * M_PI);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_arc(cr, ex, ey, 5, 0, 2 * M_PI);
    cairo_fill(cr);
}

pw_widget *pw_route(const double *latitudes, const double *longitudes, int count, int width, int height, const char *alternative) {
    route_points *route = calloc(1, sizeof *route);
    route->count = count > 0 ? count : 0;
    route->x = calloc((size_t)route->count + 1, sizeof(double));
    route->y = calloc((size_t)route->count + 1, sizeof(double));
    // Equirectangular about the route's middle latitude: true to shape at a route's scale.
    double mean = 0;
    for (int i = 0; i < route->count; i++) mean += latitudes[i] / route->count;
    for (int i = 0; i < route->count; i++) {
        route->x[i] = longitudes[i] * cos(mean * M_PI / 180);
        route->y[i] = latitudes[i];
    }
    GtkWidget *area = gtk_drawing_area_new();
    gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(area), width);
    gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(area), height);
    gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(area), draw_route, route, free_route);
    gtk_accessible_update_property(GTK_ACCESSIBLE(area), GTK_ACCESSIBLE_PROPERTY_LABEL, alternative, -1);
    return P(area);
}

pw_widget *pw_glyph(const char *glyph, int width, int height, const char *alternative) {
    GtkWidget *label = gtk_label_new(glyph);
    gtk_widget_add_css_class(label, "pw-glyph");
    gtk_widget_set_size_request(label, width, height);
    gtk_accessible_update_property(GTK_ACCESSIBLE(label), GTK_ACCESSIBLE_PROPERTY_LABEL, alternative, -1);
    return P(label);
}
