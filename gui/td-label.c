/* td-label.c — labels of the debugger's live tables (see td-label.h). */
#include "td-label.h"

static gboolean
on_query_tooltip(GtkWidget *label, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                 gpointer user_data)
{
  const char *text = gtk_label_get_text(GTK_LABEL(label));
  if (!text || !*text)
    return FALSE;
  gtk_tooltip_set_text(tooltip, text);
  return TRUE;
}

void
td_label_tooltip_shows_text(GtkLabel *label)
{
  g_return_if_fail(GTK_IS_LABEL(label));
  gtk_widget_set_has_tooltip(GTK_WIDGET(label), TRUE);
  g_signal_connect(label, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);
}

GtkWidget *
td_label_new_cell(gboolean numeric, gboolean expand)
{
  GtkWidget *label = gtk_label_new(NULL);
  gtk_label_set_xalign(GTK_LABEL(label), numeric ? 1.0f : 0.0f);
  gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode(GTK_LABEL(label), TRUE);
  if (numeric)
    gtk_widget_add_css_class(label, "numeric");
  if (expand)
    td_label_tooltip_shows_text(GTK_LABEL(label));
  return label;
}
