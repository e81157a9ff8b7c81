/* td-screenshot.c — a widget rendered to PNG (see td-screenshot.h): a GtkWidgetPaintable of
 * the widget is snapshotted to a render node, scaled to the surface's device pixels, which the
 * window's GskRenderer turns into a texture. */
#include "td-screenshot.h"

gboolean
td_screenshot_save(GtkWidget *widget, const char *path, GError **error)
{
  g_return_val_if_fail(GTK_IS_WIDGET(widget), FALSE);
  g_return_val_if_fail(path != NULL, FALSE);
  int width = gtk_widget_get_width(widget);
  int height = gtk_widget_get_height(widget);
  GtkNative *native = gtk_widget_get_native(widget);
  GskRenderer *renderer = native ? gtk_native_get_renderer(native) : NULL;
  GdkSurface *surface = native ? gtk_native_get_surface(native) : NULL;
  if (width <= 0 || height <= 0 || renderer == NULL || surface == NULL) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, "the window is not shown yet");
    return FALSE;
  }
  /* The whole surface, as on screen: the window and the frame its style draws around it. */
  double dx = 0, dy = 0;
  if (GTK_WIDGET(native) == widget) {
    gtk_native_get_surface_transform(native, &dx, &dy);
    width = gdk_surface_get_width(surface);
    height = gdk_surface_get_height(surface);
  }
  /* At the surface's scale (GDK_SCALE=2: twice the pixels each way), as the screen shows it:
   * the renderer draws a texture at one pixel per unit, so the node is scaled up and the
   * viewport given in device pixels. */
  int scale = MAX(gdk_surface_get_scale_factor(surface), 1);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new(widget);
  GtkSnapshot *snapshot = gtk_snapshot_new();
  gtk_snapshot_scale(snapshot, (float)scale, (float)scale);
  gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT((float)dx, (float)dy));
  gdk_paintable_snapshot(paintable, GDK_SNAPSHOT(snapshot), gtk_widget_get_width(widget),
                         gtk_widget_get_height(widget));
  g_autoptr(GskRenderNode) node = gtk_snapshot_free_to_node(snapshot);
  if (node == NULL) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "the window drew nothing");
    return FALSE;
  }
  g_autoptr(GdkTexture) texture = gsk_renderer_render_texture(
      renderer, node, &GRAPHENE_RECT_INIT(0, 0, width * scale, height * scale));
  if (texture == NULL || !gdk_texture_save_to_png(texture, path)) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "could not write %s", path);
    return FALSE;
  }
  g_debug("rendered %dx%d (scale %d) to %s", width, height, scale, path);
  return TRUE;
}
