/* tp-notebook.c — the code cells of a Jupyter notebook (.ipynb), for hosts that run a
 * notebook's cells in order: the command line and the debugger's in-process runs. Reading the
 * file needs no Python; nbformat 4 keeps a cell's source as a string or a list of lines. */
#include "tp.h"

#include <jansson.h>

G_DEFINE_QUARK(tp-notebook-error-quark, tp_notebook_error);

/* A cell's source: a string or a list of lines. Transfer full. */
static char *
cell_source(json_t *cell)
{
  json_t *src = json_object_get(cell, "source");
  if (json_is_string(src))
    return g_strdup(json_string_value(src));
  GString *s = g_string_new(NULL);
  size_t i;
  json_t *line;
  json_array_foreach(src, i, line)
  {
    if (json_is_string(line))
      g_string_append(s, json_string_value(line));
  }
  return g_string_free(s, FALSE);
}

static void
cell_free(gpointer data)
{
  TpNotebookCell *cell = data;
  g_free(cell->source);
  g_free(cell);
}

/* Whether the cell's metadata.tags holds `tag`. */
static bool
has_tag(json_t *cell, const char *tag)
{
  json_t *tags = json_object_get(json_object_get(cell, "metadata"), "tags");
  size_t i;
  json_t *t;
  json_array_foreach(tags, i, t)
  {
    if (g_strcmp0(json_string_value(t), tag) == 0)
      return true;
  }
  return false;
}

GPtrArray *
tp_notebook_code_cells(const char *path, GError **error)
{
  g_return_val_if_fail(path != NULL, NULL);
  json_error_t jerr;
  json_t *nb = json_load_file(path, 0, &jerr);
  if (!nb) {
    if (jerr.line > 0)
      g_set_error(error, TP_NOTEBOOK_ERROR, 0, "%s (line %d)", jerr.text, jerr.line);
    else
      g_set_error_literal(error, TP_NOTEBOOK_ERROR, 0, jerr.text);
    return NULL;
  }
  json_t *cells = json_object_get(nb, "cells");
  if (!json_is_object(nb) || !json_is_array(cells)) {
    json_decref(nb);
    g_set_error_literal(error, TP_NOTEBOOK_ERROR, 0, "not a notebook: it has no cells");
    return NULL;
  }
  GPtrArray *code = g_ptr_array_new_with_free_func(cell_free);
  size_t i;
  json_t *cell;
  json_array_foreach(cells, i, cell)
  {
    if (g_strcmp0(json_string_value(json_object_get(cell, "cell_type")), "code") != 0)
      continue;
    TpNotebookCell *c = g_new(TpNotebookCell, 1);
    *c = (TpNotebookCell){cell_source(cell), has_tag(cell, "raises-exception")};
    g_ptr_array_add(code, c);
  }
  json_decref(nb);
  return code;
}
