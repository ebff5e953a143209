/* libjournalingsuggestions-gtk4-1: the parent window handle a GTK 4 app gives
 * js_picker_present(), so the desktop picker opens over the app's window. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void js_gtk_window_export_parent (GtkWindow *window,
                                  GCancellable *cancellable,
                                  GAsyncReadyCallback callback,
                                  gpointer user_data);
char *js_gtk_window_export_parent_finish (GtkWindow *window, GAsyncResult *result, GError **error);
char *js_gtk_window_get_x11_parent (GtkWindow *window);

G_END_DECLS
