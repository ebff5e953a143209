/* The app's window as xdg-desktop-portal names a parent: "x11:<hex XID>" on X11, and on Wayland
 * "wayland:<handle>" from xdg-foreign's export (as libportal-gtk4's xdp_parent_new_gtk). pickerd
 * passes it to the desktop picker, which makes itself transient for that window. */
#include "journalingsuggestions-gtk4.h"

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif
#ifdef GDK_WINDOWING_WAYLAND
#include <gdk/wayland/gdkwayland.h>
#endif

/**
 * js_gtk_window_get_x11_parent:
 * @window: a realized #GtkWindow
 *
 * The parent handle of a window on X11, at once.
 *
 * Returns: (transfer full) (nullable): "x11:<hex window id>", or %NULL when the window is not on
 *   X11 (or not realized)
 */
char *
js_gtk_window_get_x11_parent (GtkWindow *window)
{
  g_return_val_if_fail (GTK_IS_WINDOW (window), NULL);
#ifdef GDK_WINDOWING_X11
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  if (surface != NULL && GDK_IS_X11_SURFACE (surface))
    return g_strdup_printf ("x11:%lx", (unsigned long) gdk_x11_surface_get_xid (surface));
#endif
  return NULL;
}

#ifdef GDK_WINDOWING_WAYLAND
static void
exported (GdkToplevel *toplevel, const char *handle, gpointer user_data)
{
  (void) toplevel;
  GTask *task = user_data;
  g_task_return_pointer (task, g_strdup_printf ("wayland:%s", handle), g_free);
}
#endif

/**
 * js_gtk_window_export_parent:
 * @window: a realized #GtkWindow
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the handle
 * @user_data: data for @callback
 *
 * Makes the parent handle of @window for js_picker_present(): on X11 its window id, on Wayland a
 * handle exported through xdg-foreign (which stays exported while the window lives). A window on
 * another backend gets an empty handle: the picker then opens on its own.
 */
void
js_gtk_window_export_parent (GtkWindow *window, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (GTK_IS_WINDOW (window));
  GTask *task = g_task_new (window, cancellable, callback, user_data);
  g_task_set_source_tag (task, js_gtk_window_export_parent);
  char *x11 = js_gtk_window_get_x11_parent (window);
  if (x11 != NULL) {
    g_task_return_pointer (task, x11, g_free);
    g_object_unref (task);
    return;
  }
#ifdef GDK_WINDOWING_WAYLAND
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  if (surface != NULL && GDK_IS_WAYLAND_TOPLEVEL (surface)
      && gdk_wayland_toplevel_export_handle (GDK_TOPLEVEL (surface), exported, task, g_object_unref))
    return;
#endif
  g_task_return_pointer (task, g_strdup (""), g_free);
  g_object_unref (task);
}

/**
 * js_gtk_window_export_parent_finish:
 * @window: the #GtkWindow
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the handle ("x11:…", "wayland:…", or empty), or %NULL with @error set
 */
char *
js_gtk_window_export_parent_finish (GtkWindow *window, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, window), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
