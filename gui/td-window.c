/* td-window.c — one debugger window (see td-window.h).
 *
 * The window owns its session: the TdClient delivers snapshots, event batches, status and
 * output on the main loop, the TdStore folds them, and every view follows the store. The
 * eager switch shows the store's eager state; a user's toggle asks the kernel (or the local
 * session) and the switch settles when the eager_mode event comes back, so a switch flipped in
 * a notebook moves it too and nothing is echoed back. */
#include "td-window.h"

#include <string.h>

#include "td-event-log.h"
#include "td-format.h"
#include "td-functions-view.h"
#include "td-traces-view.h"
#include "td-graph-view.h"
#include "td-timeline.h"

/* Events a window keeps for its timeline, log and export: as many as a snapshot's state. */
#define KEEP_EVENTS TD_CLIENT_KEEP_EVENTS

/* The notebook's pages, in .ui order. */
enum { PAGE_TRACES, PAGE_GRAPH, PAGE_EVENTS, PAGE_OUTPUT };

/* How each client state reads in the header bar. */
typedef struct {
  const char *label;     /* status text */
  const char *css_class; /* status-* class for its colour */
} TdStatusLook;

static const TdStatusLook status_looks[] = {
    [TD_CLIENT_CONNECTING] = {"Connecting…", "connecting"},
    [TD_CLIENT_LIVE] = {"Live", "live"},
    [TD_CLIENT_RUNNING] = {"Running", "running"},
    [TD_CLIENT_FINISHED] = {"Finished", "finished"},
    [TD_CLIENT_LOST] = {"Kernel lost", "lost"},
    [TD_CLIENT_FAILED] = {"Failed", "failed"},
};

struct _TdWindow {
  GtkApplicationWindow parent_instance;
  /* template children */
  GtkLabel *status_label;          /* session state in the header bar */
  GtkLabel *title_label;           /* window title */
  GtkLabel *subtitle_label;        /* what the session is: file or kernel */
  GtkSwitch *eager_switch;         /* "Run functions eagerly" */
  GtkInfoBar *info_bar;            /* errors and warnings */
  GtkLabel *info_label;            /* the info bar's text */
  GtkInfoBar *pause_bar;           /* shown while a debugger holds the kernel paused */
  GtkLabel *pause_label;           /* where and why it is paused */
  GtkStack *main_stack;            /* "welcome" or "session" */
  GtkListBox *kernel_list;         /* running kernels on the welcome page */
  GtkBox *timeline_box;            /* holds the timeline */
  TdFunctionsView *functions_view; /* the Functions table */
  GtkNotebook *details_notebook;   /* Traces, Graph, Events, Output */
  TdTracesView *traces_view;       /* the selected Function's traces */
  GtkLabel *graph_label;           /* which trace the graph shows */
  GtkLabel *graph_matches;         /* how many nodes the search found */
  GtkSearchEntry *graph_search;    /* find a node */
  GtkBox *graph_box;               /* holds the graph view */
  TdEventLog *event_log;           /* the event log */
  GtkTextView *output_view;        /* standalone: what the cells printed */
  /* made in code */
  GtkWidget *timeline;   /* TdTimeline */
  GtkWidget *graph_view; /* TdGraphView */
  /* the session */
  TdClient *client;        /* event source, or NULL */
  TdStore *store;          /* the data, or NULL */
  int status;              /* TdClientStatus, -1 before a session */
  char *status_message;    /* what the client said with it */
  gboolean syncing_eager;  /* the switch is being set from the store */
  int eager_wanted;        /* -1, or the mode asked for that the session has not reported yet */
  GtkLabel *eager_note;    /* "applies when the running cell yields", while one is pending */
  gboolean announced;      /* "attached" was logged */
  gint64 graph_cf;         /* trace in the graph view (0: none) */
  GtkNativeDialog *dialog; /* open file chooser, or NULL */
};

G_DEFINE_FINAL_TYPE(TdWindow, td_window, GTK_TYPE_APPLICATION_WINDOW)

enum { SIGNAL_STATUS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- messages ---- */

static void
show_message(TdWindow *self, GtkMessageType type, const char *text)
{
  gtk_info_bar_set_message_type(self->info_bar, type);
  gtk_label_set_text(self->info_label, text);
  gtk_info_bar_set_revealed(self->info_bar, TRUE);
}

static void
on_info_bar_response(GtkInfoBar *bar, int response, gpointer user_data)
{
  gtk_info_bar_set_revealed(bar, FALSE);
}

/* ---- status ---- */

static void
set_status(TdWindow *self, TdClientStatus status, const char *message)
{
  g_return_if_fail(status >= 0 && status < (int)G_N_ELEMENTS(status_looks));
  if (self->status >= 0)
    gtk_widget_remove_css_class(GTK_WIDGET(self->status_label),
                                status_looks[self->status].css_class);
  self->status = status;
  g_free(self->status_message);
  self->status_message = g_strdup(message);
  gboolean raised = status == TD_CLIENT_FINISHED && message && g_strcmp0(message, "ok") != 0;
  gtk_label_set_text(self->status_label,
                     raised ? "Stopped on an error" : status_looks[status].label);
  gtk_widget_add_css_class(GTK_WIDGET(self->status_label), status_looks[status].css_class);
  if (raised)
    gtk_widget_add_css_class(GTK_WIDGET(self->status_label), "raised");
  else
    gtk_widget_remove_css_class(GTK_WIDGET(self->status_label), "raised");
  gtk_widget_set_visible(GTK_WIDGET(self->status_label), TRUE);
  gtk_widget_set_tooltip_text(GTK_WIDGET(self->status_label), message);
  gtk_widget_set_sensitive(GTK_WIDGET(self->eager_switch),
                           status == TD_CLIENT_LIVE || status == TD_CLIENT_RUNNING);

  if (status == TD_CLIENT_FAILED || status == TD_CLIENT_LOST) {
    /* Nobody holds a lost kernel paused any more, as far as the window can know. */
    gtk_info_bar_set_revealed(self->pause_bar, FALSE);
    /* the client's message is the detail: "no reply for 5 s", or why the start failed */
    g_autofree char *text =
        status == TD_CLIENT_LOST
            ? g_strdup_printf("The kernel stopped answering%s%s%s.", message ? " (" : "",
                              message ? message : "", message ? ")" : "")
            : g_strdup_printf("The session could not start%s%s.", message ? ": " : "",
                              message ? message : "");
    show_message(self, GTK_MESSAGE_ERROR, text);
  } else if (raised) {
    show_message(self, GTK_MESSAGE_WARNING, message);
  } else if (status == TD_CLIENT_LIVE) {
    gtk_info_bar_set_revealed(self->info_bar, FALSE);
  }
  g_signal_emit(self, signals[SIGNAL_STATUS_CHANGED], 0, (int)status, message);
}

/* ---- the eager switch ---- */

/* The switch shows the session's mode, or the mode the user asked for until the session
 * reports it: a kernel applies a request only when its running cell yields, and a switch left
 * half-way until then read as broken. The note beside it says the change is pending. */
static void
sync_eager(TdWindow *self)
{
  gboolean on = self->store && tr_state_eager(td_store_get_state(self->store));
  if (!self->store || self->eager_wanted == on)
    self->eager_wanted = -1; /* applied (or no session to apply it) */
  if (self->eager_wanted >= 0)
    on = self->eager_wanted;
  self->syncing_eager = TRUE;
  gtk_switch_set_state(self->eager_switch, on);
  gtk_switch_set_active(self->eager_switch, on);
  self->syncing_eager = FALSE;
  gtk_widget_set_visible(GTK_WIDGET(self->eager_note), self->eager_wanted >= 0);
}

static void
request_eager(TdWindow *self, gboolean on)
{
  if (!self->client || !self->store)
    return;
  self->eager_wanted = on;
  td_client_set_eager(self->client, on);
  sync_eager(self);
}

static gboolean
on_eager_state_set(GtkSwitch *sw, gboolean state, gpointer user_data)
{
  TdWindow *self = TD_WINDOW(user_data);
  if (self->syncing_eager)
    return FALSE;
  request_eager(self, state);
  return TRUE; /* sync_eager set the state */
}

static void
on_store_eager_changed(TdStore *store, gboolean enabled, gpointer user_data)
{
  sync_eager(TD_WINDOW(user_data));
}

/* ---- a debugger's pause ---- */

/* The pause bar follows the store: shown with where the kernel stopped, hidden when it runs
 * (a debugger_continued, or a snapshot taken while it ran). */
static void
sync_paused(TdWindow *self)
{
  const TrEvent *paused = self->store ? td_store_get_paused(self->store) : NULL;
  if (paused) {
    g_autofree char *text = td_format_pause(paused);
    gtk_label_set_text(self->pause_label, text);
  }
  gtk_info_bar_set_revealed(self->pause_bar, paused != NULL);
}

static void
on_store_paused_changed(TdStore *store, gboolean paused, gpointer user_data)
{
  sync_paused(TD_WINDOW(user_data));
}

static void
on_store_reset(TdStore *store, gpointer user_data)
{
  sync_eager(TD_WINDOW(user_data));
  sync_paused(TD_WINDOW(user_data));
}

/* ---- the graph ---- */

static void
show_trace(TdWindow *self, gint64 cf_id)
{
  const TrStateTrace *tr =
      self->store && cf_id ? tr_state_trace(td_store_get_state(self->store), cf_id) : NULL;
  self->graph_cf = tr ? cf_id : 0;
  const char *signature = tr && tr->signature ? tr->signature : "";
  /* The signature's first line ("f(x, y)") names the trace; the tooltip has all of it. */
  g_autofree char *head = g_strndup(signature, strcspn(signature, "\n"));
  g_autofree char *text =
      tr ? g_strdup_printf("#%" G_GINT64_FORMAT "  %s%s", tr->id, head,
                           tr->graph_json ? "" : "  (the kernel did not send this graph)")
         : g_strdup("Select a trace to see its graph");
  gtk_label_set_text(self->graph_label, text);
  gtk_widget_set_tooltip_text(GTK_WIDGET(self->graph_label), *signature ? signature : NULL);
  td_graph_view_set_trace(TD_GRAPH_VIEW(self->graph_view), self->graph_cf,
                          tr ? tr->graph_json : NULL);
}

static void
on_trace_selected(TdTracesView *view, gint64 cf_id, gpointer user_data)
{
  show_trace(TD_WINDOW(user_data), cf_id);
}

static void
on_trace_activated(TdTracesView *view, gint64 cf_id, gpointer user_data)
{
  TdWindow *self = TD_WINDOW(user_data);
  show_trace(self, cf_id);
  gtk_notebook_set_current_page(self->details_notebook, PAGE_GRAPH);
}

/* The search's count follows the graph view: a new search text, or another trace shown. */
static void
on_graph_matches_changed(TdGraphView *view, guint n, gpointer user_data)
{
  TdWindow *self = TD_WINDOW(user_data);
  if (!self->graph_search)
    return; /* the window is being disposed */
  const char *text = gtk_editable_get_text(GTK_EDITABLE(self->graph_search));
  int current = td_graph_view_get_current_match(view);
  g_autofree char *matches = !*text ? g_strdup("")
                             : n > 1 && current > 0
                                 ? g_strdup_printf("%d of %u nodes", current, n)
                                 : g_strdup_printf("%u node%s", n, n == 1 ? "" : "s");
  gtk_label_set_text(self->graph_matches, matches);
}

/* Enter or Ctrl+G: the next matching node; Shift+Enter or Ctrl+Shift+G: the previous one. */
static void
show_match(TdWindow *self, gboolean backwards)
{
  TdGraphView *view = TD_GRAPH_VIEW(self->graph_view);
  td_graph_view_next_match(view, backwards);
  on_graph_matches_changed(view, td_graph_view_get_n_matches(view), self);
}

static void
on_graph_search_next(GtkSearchEntry *entry, gpointer user_data)
{
  show_match(TD_WINDOW(user_data), FALSE);
}

static void
on_graph_search_previous(GtkSearchEntry *entry, gpointer user_data)
{
  show_match(TD_WINDOW(user_data), TRUE);
}

static gboolean
on_graph_search_shift_return(GtkWidget *entry, GVariant *args, gpointer user_data)
{
  show_match(TD_WINDOW(user_data), TRUE);
  return TRUE;
}

/* The graph search's keys: Enter and Ctrl+G (GtkSearchEntry's next-match) go forward,
 * Shift+Enter and Ctrl+Shift+G back. */
static void
add_graph_search_keys(TdWindow *self)
{
  g_signal_connect(self->graph_search, "activate", G_CALLBACK(on_graph_search_next), self);
  g_signal_connect(self->graph_search, "next-match", G_CALLBACK(on_graph_search_next), self);
  g_signal_connect(self->graph_search, "previous-match", G_CALLBACK(on_graph_search_previous),
                   self);
  GtkEventController *keys = gtk_shortcut_controller_new();
  gtk_shortcut_controller_add_shortcut(
      GTK_SHORTCUT_CONTROLLER(keys),
      gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_Return, GDK_SHIFT_MASK),
                       gtk_callback_action_new(on_graph_search_shift_return, self, NULL)));
  gtk_widget_add_controller(GTK_WIDGET(self->graph_search), keys);
}

static void
on_graph_search_changed(GtkSearchEntry *entry, gpointer user_data)
{
  TdWindow *self = TD_WINDOW(user_data);
  td_graph_view_search(TD_GRAPH_VIEW(self->graph_view), gtk_editable_get_text(GTK_EDITABLE(entry)));
}

static void
on_function_selected(TdFunctionsView *view, gint64 fn_id, gpointer user_data)
{
  TdWindow *self = TD_WINDOW(user_data);
  td_traces_view_set_function(self->traces_view, fn_id);
  if (fn_id == 0)
    show_trace(self, 0);
}

static void
on_function_activated(GtkWidget *timeline, gint64 fn_id, gpointer user_data)
{
  TdWindow *self = TD_WINDOW(user_data);
  td_functions_view_select(self->functions_view, fn_id);
}

/* A click on a log row: its Function in the table, its trace among the Function's and in the
 * graph view. */
static void
on_event_activated(TdEventLog *log, gint64 fn_id, gint64 cf_id, gpointer user_data)
{
  TdWindow *self = TD_WINDOW(user_data);
  if (fn_id) {
    td_functions_view_select(self->functions_view, fn_id);
    td_traces_view_set_function(self->traces_view, fn_id); /* also when already selected */
  }
  if (cf_id) {
    td_traces_view_select_trace(self->traces_view, cf_id);
    show_trace(self, cf_id);
  }
}

/* ---- client callbacks (main loop) ---- */

static void
client_snapshot(TrState *state, gpointer data)
{
  TdWindow *self = TD_WINDOW(data);
  td_store_load(self->store, state);
}

static void
client_events(GPtrArray *events, gpointer data)
{
  TdWindow *self = TD_WINDOW(data);
  td_store_apply_events(self->store, events);
  g_debug("applied events up to seq %" G_GUINT64_FORMAT,
          tr_state_last_seq(td_store_get_state(self->store)));
  g_ptr_array_unref(events);
}

static void
client_status(TdClientStatus status, const char *message, gpointer data)
{
  TdWindow *self = TD_WINDOW(data);
  if (status == TD_CLIENT_LIVE && !self->announced) {
    self->announced = TRUE;
    g_debug("attached, snapshot at seq %" G_GUINT64_FORMAT,
            tr_state_last_seq(td_store_get_state(self->store)));
  }
  set_status(self, status, message);
}

static void
client_output(const char *text, gsize len, bool is_stderr, gpointer data)
{
  TdWindow *self = TD_WINDOW(data);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->output_view);
  /* A cell may print anything: invalid UTF-8 is shown with replacement characters. */
  g_autofree char *valid = g_utf8_make_valid(text, (gssize)len);
  GtkTextIter end;
  gtk_text_buffer_get_end_iter(buffer, &end);
  gtk_text_buffer_insert_with_tags_by_name(buffer, &end, valid, -1, is_stderr ? "stderr" : "stdout",
                                           NULL);
  GtkTextMark *end_mark = gtk_text_buffer_get_mark(buffer, "td-end");
  gtk_text_view_scroll_mark_onscreen(self->output_view, end_mark);
}

static const TdClientCallbacks client_callbacks = {
    .snapshot = client_snapshot,
    .events = client_events,
    .status = client_status,
    .output = client_output,
};

/* ---- sessions ---- */

/* Every view that reads the store, in one place: begin_session connects them all, and
 * end_session disconnects them all (it left the timeline holding the store, connected). */
static void
set_views_store(TdWindow *self, TdStore *store)
{
  td_functions_view_set_store(self->functions_view, store);
  td_traces_view_set_store(self->traces_view, store);
  td_event_log_set_store(self->event_log, store);
  td_timeline_set_store(TD_TIMELINE(self->timeline), store);
}

static void
begin_session(TdWindow *self, const char *title, const char *subtitle, gboolean standalone)
{
  self->store = td_store_new(KEEP_EVENTS);
  /* The Functions table and traces follow ten times a second, however fast events come. */
  td_store_set_function_interval(self->store, 100);
  g_signal_connect(self->store, "eager-changed", G_CALLBACK(on_store_eager_changed), self);
  g_signal_connect(self->store, "reset", G_CALLBACK(on_store_reset), self);
  g_signal_connect(self->store, "paused-changed", G_CALLBACK(on_store_paused_changed), self);
  set_views_store(self, self->store);
  gtk_label_set_text(self->title_label, title);
  gtk_label_set_text(self->subtitle_label, subtitle);
  gtk_widget_set_visible(GTK_WIDGET(self->subtitle_label), TRUE);
  g_autofree char *window_title = g_strdup_printf("%s — Trellis Debugger", title);
  gtk_window_set_title(GTK_WINDOW(self), window_title);
  GtkWidget *output = gtk_notebook_get_nth_page(self->details_notebook, PAGE_OUTPUT);
  gtk_widget_set_visible(output, standalone);
  gtk_stack_set_visible_child_name(self->main_stack, "session");
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.export", TRUE);
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.save", TRUE);
  sync_eager(self);
  sync_paused(self);
}

/* Undo begin_session when the client could not start. */
static void
end_session(TdWindow *self)
{
  set_views_store(self, NULL);
  if (self->store)
    g_signal_handlers_disconnect_by_data(self->store, self);
  g_clear_object(&self->store);
  sync_paused(self);
  gtk_stack_set_visible_child_name(self->main_stack, "welcome");
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.export", FALSE);
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.save", FALSE);
  gtk_label_set_text(self->title_label, "Trellis Debugger");
  gtk_widget_set_visible(GTK_WIDGET(self->subtitle_label), FALSE);
  gtk_window_set_title(GTK_WINDOW(self), "Trellis Debugger");
}

gboolean
td_window_has_session(TdWindow *self)
{
  g_return_val_if_fail(TD_IS_WINDOW(self), FALSE);
  return self->client != NULL;
}

gboolean
td_window_open_file(TdWindow *self, const char *path, GError **error)
{
  g_return_val_if_fail(TD_IS_WINDOW(self), FALSE);
  g_return_val_if_fail(self->client == NULL, FALSE);
  g_autofree char *base = g_path_get_basename(path);
  g_autofree char *dir = g_path_get_dirname(path);
  if (g_str_has_suffix(path, ".jsonl")) { /* a saved session (or --events file): read, not run */
    begin_session(self, base, dir, FALSE);
    if (!td_store_load_events_file(self->store, path, error)) {
      end_session(self);
      return FALSE;
    }
    set_status(self, TD_CLIENT_FINISHED, NULL);
    gtk_widget_grab_focus(GTK_WIDGET(self->functions_view));
    return TRUE;
  }
  begin_session(self, base, dir, TRUE);
  self->client = td_client_new_local(path, &client_callbacks, self, NULL, error);
  if (self->client == NULL) {
    end_session(self);
    return FALSE;
  }
  if (self->status < 0)
    set_status(self, TD_CLIENT_RUNNING, NULL);
  gtk_widget_grab_focus(GTK_WIDGET(self->functions_view));
  return TRUE;
}

gboolean
td_window_attach(TdWindow *self, const char *connection_file, GError **error)
{
  g_return_val_if_fail(TD_IS_WINDOW(self), FALSE);
  g_return_val_if_fail(self->client == NULL, FALSE);
  g_autofree char *base = g_path_get_basename(connection_file);
  begin_session(self, "Kernel", base, FALSE);
  self->client = td_client_new_attach(connection_file, &client_callbacks, self, NULL, error);
  if (self->client == NULL) {
    end_session(self);
    return FALSE;
  }
  if (self->status < 0)
    set_status(self, TD_CLIENT_CONNECTING, NULL);
  return TRUE;
}

void
td_window_show_error(TdWindow *self, const char *text)
{
  g_return_if_fail(TD_IS_WINDOW(self));
  show_message(self, GTK_MESSAGE_ERROR, text);
}

TdStore *
td_window_get_store(TdWindow *self)
{
  g_return_val_if_fail(TD_IS_WINDOW(self), NULL);
  return self->store;
}

int
td_window_get_status(TdWindow *self, const char **message)
{
  g_return_val_if_fail(TD_IS_WINDOW(self), -1);
  if (message)
    *message = self->status_message;
  return self->status;
}

gboolean
td_window_show_busiest(TdWindow *self)
{
  g_return_val_if_fail(TD_IS_WINDOW(self), FALSE);
  if (self->store == NULL)
    return FALSE;
  GPtrArray *fns = tr_state_functions(td_store_get_state(self->store));
  const TrStateFn *best = NULL;
  for (guint i = 0; i < fns->len; i++) {
    const TrStateFn *fn = g_ptr_array_index(fns, i);
    if (best == NULL || fn->calls > best->calls)
      best = fn;
  }
  if (best == NULL || !td_functions_view_select(self->functions_view, best->id))
    return FALSE;
  td_traces_view_set_function(self->traces_view, best->id);
  if (best->traces->len > 0) {
    const TrStateTrace *last = g_ptr_array_index(best->traces, best->traces->len - 1);
    td_traces_view_select_trace(self->traces_view, last->id);
    show_trace(self, last->id);
    gtk_notebook_set_current_page(self->details_notebook, PAGE_GRAPH);
  }
  return TRUE;
}

gboolean
td_window_is_idle(TdWindow *self)
{
  g_return_val_if_fail(TD_IS_WINDOW(self), TRUE);
  if (td_graph_view_is_busy(TD_GRAPH_VIEW(self->graph_view)))
    return FALSE;
  return TRUE;
}

/* ---- opening files and kernels ---- */

/* This window if it has no session yet, else a new one. */
static TdWindow *
target_window(TdWindow *self)
{
  if (!td_window_has_session(self))
    return self;
  TdWindow *win = td_window_new(gtk_window_get_application(GTK_WINDOW(self)));
  gtk_window_present(GTK_WINDOW(win));
  return win;
}

static void
open_path(TdWindow *self, const char *path, gboolean attach)
{
  TdWindow *win = target_window(self);
  g_autoptr(GError) error = NULL;
  gboolean ok =
      attach ? td_window_attach(win, path, &error) : td_window_open_file(win, path, &error);
  if (!ok)
    show_message(win, GTK_MESSAGE_ERROR, error->message);
}

static void
on_chooser_response(GtkNativeDialog *dialog, int response, gpointer user_data)
{
  TdWindow *self = TD_WINDOW(user_data);
  gboolean attach = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(dialog), "td-attach"));
  g_autoptr(GFile) file =
      response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog)) : NULL;
  g_autofree char *path = file ? g_file_get_path(file) : NULL;
  g_clear_object(&self->dialog);
  if (path)
    open_path(self, path, attach);
}

static void
add_filter(GtkFileChooser *chooser, const char *name, const char *const *patterns)
{
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new();
  gtk_file_filter_set_name(filter, name);
  for (guint i = 0; patterns[i]; i++)
    gtk_file_filter_add_pattern(filter, patterns[i]);
  gtk_file_chooser_add_filter(chooser, filter);
}

static void
run_chooser(TdWindow *self, const char *title, GtkFileChooserAction action, const char *accept,
            GCallback on_response)
{
  g_clear_object(&self->dialog);
  GtkFileChooserNative *chooser =
      gtk_file_chooser_native_new(title, GTK_WINDOW(self), action, accept, "_Cancel");
  self->dialog = GTK_NATIVE_DIALOG(chooser);
  gtk_native_dialog_set_modal(self->dialog, TRUE);
  g_signal_connect(chooser, "response", on_response, self);
}

static void
action_open(GtkWidget *widget, const char *name, GVariant *param)
{
  TdWindow *self = TD_WINDOW(widget);
  run_chooser(self, "Open Notebook, Script or Session", GTK_FILE_CHOOSER_ACTION_OPEN, "_Open",
              G_CALLBACK(on_chooser_response));
  static const char *const code[] = {"*.ipynb", "*.py", "*.jsonl", NULL};
  static const char *const all[] = {"*", NULL};
  add_filter(GTK_FILE_CHOOSER(self->dialog), "Notebooks, scripts and saved sessions", code);
  add_filter(GTK_FILE_CHOOSER(self->dialog), "All files", all);
  gtk_native_dialog_show(self->dialog);
}

static void
action_attach_file(GtkWidget *widget, const char *name, GVariant *param)
{
  TdWindow *self = TD_WINDOW(widget);
  run_chooser(self, "Attach to a Kernel's Connection File", GTK_FILE_CHOOSER_ACTION_OPEN, "_Attach",
              G_CALLBACK(on_chooser_response));
  static const char *const json[] = {"*.json", NULL};
  add_filter(GTK_FILE_CHOOSER(self->dialog), "Connection files", json);
  g_object_set_data(G_OBJECT(self->dialog), "td-attach", GINT_TO_POINTER(TRUE));
  GPtrArray *kernels = td_kernel_list(NULL);
  if (kernels->len > 0) {
    const TdKernelInfo *k = g_ptr_array_index(kernels, 0);
    g_autofree char *dir = g_path_get_dirname(k->connection_file);
    g_autoptr(GFile) folder = g_file_new_for_path(dir);
    gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(self->dialog), folder, NULL);
  }
  g_ptr_array_unref(kernels);
  gtk_native_dialog_show(self->dialog);
}

static void
on_export_response(GtkNativeDialog *dialog, int response, gpointer user_data)
{
  TdWindow *self = TD_WINDOW(user_data);
  g_autoptr(GFile) file =
      response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog)) : NULL;
  g_autofree char *path = file ? g_file_get_path(file) : NULL;
  g_clear_object(&self->dialog);
  g_autoptr(GError) error = NULL;
  if (path && self->store && !td_store_export_perfetto(self->store, path, &error))
    show_message(self, GTK_MESSAGE_ERROR, error->message);
}

static void
on_save_response(GtkNativeDialog *dialog, int response, gpointer user_data)
{
  TdWindow *self = TD_WINDOW(user_data);
  g_autoptr(GFile) file =
      response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog)) : NULL;
  g_autofree char *path = file ? g_file_get_path(file) : NULL;
  g_clear_object(&self->dialog);
  g_autoptr(GError) error = NULL;
  if (path && self->store && !td_store_save_events(self->store, path, &error))
    show_message(self, GTK_MESSAGE_ERROR, error->message);
}

/* Save Session: the session's events as JSON lines, which Open reads back as a session. */
static void
action_save(GtkWidget *widget, const char *name, GVariant *param)
{
  TdWindow *self = TD_WINDOW(widget);
  if (self->store == NULL)
    return;
  run_chooser(self, "Save Session", GTK_FILE_CHOOSER_ACTION_SAVE, "_Save",
              G_CALLBACK(on_save_response));
  gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(self->dialog), "trellis-session.jsonl");
  gtk_native_dialog_show(self->dialog);
}

static void
action_export(GtkWidget *widget, const char *name, GVariant *param)
{
  TdWindow *self = TD_WINDOW(widget);
  if (self->store == NULL)
    return;
  run_chooser(self, "Export Perfetto Trace", GTK_FILE_CHOOSER_ACTION_SAVE, "_Export",
              G_CALLBACK(on_export_response));
  gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(self->dialog), "trellis-trace.json");
  gtk_native_dialog_show(self->dialog);
}

static void
action_search(GtkWidget *widget, const char *name, GVariant *param)
{
  TdWindow *self = TD_WINDOW(widget);
  if (gtk_notebook_get_current_page(self->details_notebook) == PAGE_GRAPH) {
    gtk_widget_grab_focus(GTK_WIDGET(self->graph_search));
    return;
  }
  gtk_notebook_set_current_page(self->details_notebook, PAGE_EVENTS);
  td_event_log_focus_search(self->event_log);
}

static void
action_toggle_eager(GtkWidget *widget, const char *name, GVariant *param)
{
  TdWindow *self = TD_WINDOW(widget);
  request_eager(self, !gtk_switch_get_state(self->eager_switch));
}

static void
action_zoom_fit(GtkWidget *widget, const char *name, GVariant *param)
{
  TdWindow *self = TD_WINDOW(widget);
  td_graph_view_zoom_fit(TD_GRAPH_VIEW(self->graph_view));
}

static void
action_zoom(GtkWidget *widget, const char *name, GVariant *param)
{
  TdWindow *self = TD_WINDOW(widget);
  td_graph_view_zoom(TD_GRAPH_VIEW(self->graph_view),
                     g_str_equal(name, "win.zoom-in") ? 1.25 : 0.8);
}

/* ---- running kernels ---- */

static GtkWidget *
kernel_row(const TdKernelInfo *k)
{
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
  gtk_widget_add_css_class(box, "kernel-row");
  g_autofree char *title = g_strdup_printf("Kernel %" G_GINT64_FORMAT, k->pid);
  GtkWidget *label = gtk_label_new(title);
  gtk_label_set_xalign(GTK_LABEL(label), 0);
  gtk_box_append(GTK_BOX(box), label);
  g_autofree char *base = g_path_get_basename(k->connection_file);
  g_autofree char *sub = g_strdup_printf("%s · started %s", base, k->started ? k->started : "?");
  label = gtk_label_new(sub);
  gtk_label_set_xalign(GTK_LABEL(label), 0);
  gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class(label, "dim-label");
  gtk_widget_add_css_class(label, "caption");
  gtk_box_append(GTK_BOX(box), label);
  GtkWidget *row = gtk_list_box_row_new();
  gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), box);
  g_object_set_data_full(G_OBJECT(row), "td-connection", g_strdup(k->connection_file), g_free);
  return row;
}

static void
refresh_kernels(TdWindow *self)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->kernel_list))))
    gtk_list_box_remove(self->kernel_list, child);
  g_autoptr(GPtrArray) kernels = td_kernel_list(NULL);
  for (guint i = 0; i < kernels->len; i++)
    gtk_list_box_append(self->kernel_list, kernel_row(g_ptr_array_index(kernels, i)));
}

static void
action_refresh_kernels(GtkWidget *widget, const char *name, GVariant *param)
{
  refresh_kernels(TD_WINDOW(widget));
}

static void
on_kernel_row_activated(GtkListBox *list, GtkListBoxRow *row, gpointer user_data)
{
  const char *conn = g_object_get_data(G_OBJECT(row), "td-connection");
  if (conn)
    open_path(TD_WINDOW(user_data), conn, TRUE);
}

/* ---- the widget ---- */

static void
add_views(TdWindow *self)
{
  self->timeline = td_timeline_new();
  g_signal_connect(self->timeline, "function-activated", G_CALLBACK(on_function_activated), self);
  self->graph_view = td_graph_view_new();
  /* The graph view may outlive the window (a layout task holds it): the handler goes with
   * the window. */
  g_signal_connect_object(self->graph_view, "matches-changed", G_CALLBACK(on_graph_matches_changed),
                          self, 0);
  gtk_widget_set_hexpand(self->timeline, TRUE);
  gtk_widget_set_vexpand(self->timeline, TRUE);
  gtk_widget_set_hexpand(self->graph_view, TRUE);
  gtk_widget_set_vexpand(self->graph_view, TRUE);
  /* "Fit all" over the timeline's top-right corner (its 0 and f keys do the same) */
  GtkWidget *overlay = gtk_overlay_new();
  gtk_overlay_set_child(GTK_OVERLAY(overlay), self->timeline);
  GtkWidget *fit = gtk_button_new_from_icon_name("zoom-fit-best-symbolic");
  gtk_widget_set_tooltip_text(fit, "Fit all (0)");
  gtk_widget_set_halign(fit, GTK_ALIGN_END);
  gtk_widget_set_valign(fit, GTK_ALIGN_START);
  gtk_widget_add_css_class(fit, "flat");
  gtk_widget_add_css_class(fit, "timeline-fit");
  g_signal_connect_swapped(fit, "clicked", G_CALLBACK(td_timeline_fit_all), self->timeline);
  gtk_overlay_add_overlay(GTK_OVERLAY(overlay), fit);
  gtk_box_append(self->timeline_box, overlay);
  gtk_box_append(self->graph_box, self->graph_view);
}

static void
add_kernel_placeholder(TdWindow *self)
{
  GtkWidget *label = gtk_label_new("No Trellis kernels are running");
  gtk_widget_add_css_class(label, "dim-label");
  gtk_widget_add_css_class(label, "kernel-placeholder");
  gtk_list_box_set_placeholder(self->kernel_list, label);
}

static void
add_output_tags(TdWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->output_view);
  gtk_text_buffer_create_tag(buffer, "stdout", NULL);
  gtk_text_buffer_create_tag(buffer, "stderr", "foreground", "#c01c28", NULL);
  GtkTextIter end;
  gtk_text_buffer_get_end_iter(buffer, &end);
  gtk_text_buffer_create_mark(buffer, "td-end", &end, FALSE); /* stays after appended text */
}

static void
td_window_dispose(GObject *object)
{
  TdWindow *self = TD_WINDOW(object);
  /* The client first: no callback may run on a half-disposed window. */
  g_clear_pointer(&self->client, td_client_free);
  if (self->dialog)
    gtk_native_dialog_destroy(self->dialog);
  g_clear_object(&self->dialog);
  if (self->store)
    g_signal_handlers_disconnect_by_data(self->store, self);
  g_clear_object(&self->store);
  /* The views made in code report to the window no more (their template parents go next). */
  if (self->graph_view)
    g_signal_handlers_disconnect_by_data(self->graph_view, self);
  if (self->timeline)
    g_signal_handlers_disconnect_by_data(self->timeline, self);
  gtk_widget_dispose_template(GTK_WIDGET(self), TD_TYPE_WINDOW);
  G_OBJECT_CLASS(td_window_parent_class)->dispose(object);
}

static void
td_window_finalize(GObject *object)
{
  g_free(TD_WINDOW(object)->status_message);
  G_OBJECT_CLASS(td_window_parent_class)->finalize(object);
}

#define BIND(name) gtk_widget_class_bind_template_child(widget_class, TdWindow, name)

static void
td_window_class_init(TdWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  object_class->dispose = td_window_dispose;
  object_class->finalize = td_window_finalize;

  g_type_ensure(TD_TYPE_FUNCTIONS_VIEW);
  g_type_ensure(TD_TYPE_TRACES_VIEW);
  g_type_ensure(TD_TYPE_EVENT_LOG);
  gtk_widget_class_set_template_from_resource(widget_class, "/org/trellis/Debugger/td-window.ui");
  BIND(status_label);
  BIND(title_label);
  BIND(subtitle_label);
  BIND(eager_switch);
  BIND(info_bar);
  BIND(pause_bar);
  BIND(pause_label);
  BIND(info_label);
  BIND(main_stack);
  BIND(kernel_list);
  BIND(timeline_box);
  BIND(functions_view);
  BIND(details_notebook);
  BIND(traces_view);
  BIND(graph_label);
  BIND(graph_matches);
  BIND(graph_search);
  BIND(graph_box);
  BIND(event_log);
  BIND(output_view);
  gtk_widget_class_bind_template_callback(widget_class, on_eager_state_set);
  gtk_widget_class_bind_template_callback(widget_class, on_info_bar_response);
  gtk_widget_class_bind_template_callback(widget_class, on_kernel_row_activated);
  gtk_widget_class_bind_template_callback(widget_class, on_function_selected);
  gtk_widget_class_bind_template_callback(widget_class, on_trace_selected);
  gtk_widget_class_bind_template_callback(widget_class, on_trace_activated);
  gtk_widget_class_bind_template_callback(widget_class, on_graph_search_changed);

  gtk_widget_class_install_action(widget_class, "win.open", NULL, action_open);
  gtk_widget_class_install_action(widget_class, "win.attach-file", NULL, action_attach_file);
  gtk_widget_class_install_action(widget_class, "win.export", NULL, action_export);
  gtk_widget_class_install_action(widget_class, "win.save", NULL, action_save);
  gtk_widget_class_install_action(widget_class, "win.search", NULL, action_search);
  gtk_widget_class_install_action(widget_class, "win.toggle-eager", NULL, action_toggle_eager);
  gtk_widget_class_install_action(widget_class, "win.zoom-fit", NULL, action_zoom_fit);
  gtk_widget_class_install_action(widget_class, "win.zoom-in", NULL, action_zoom);
  gtk_widget_class_install_action(widget_class, "win.zoom-out", NULL, action_zoom);
  gtk_widget_class_install_action(widget_class, "win.refresh-kernels", NULL,
                                  action_refresh_kernels);

  signals[SIGNAL_STATUS_CHANGED] =
      g_signal_new("status-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
}

static void
td_window_init(TdWindow *self)
{
  self->status = -1;
  gtk_widget_init_template(GTK_WIDGET(self));
  add_graph_search_keys(self);
  add_views(self);
  g_signal_connect(self->event_log, "event-activated", G_CALLBACK(on_event_activated), self);
  add_output_tags(self);
  add_kernel_placeholder(self);
  gtk_widget_set_sensitive(GTK_WIDGET(self->eager_switch), FALSE);
  self->eager_wanted = -1;
  self->eager_note = GTK_LABEL(gtk_label_new("applies when the running cell yields"));
  gtk_widget_add_css_class(GTK_WIDGET(self->eager_note), "dim-label");
  gtk_widget_add_css_class(GTK_WIDGET(self->eager_note), "eager-note");
  gtk_widget_set_visible(GTK_WIDGET(self->eager_note), FALSE);
  gtk_widget_insert_after(GTK_WIDGET(self->eager_note),
                          gtk_widget_get_parent(GTK_WIDGET(self->eager_switch)),
                          GTK_WIDGET(self->eager_switch));
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.export", FALSE);
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.save", FALSE);
  refresh_kernels(self);
  show_trace(self, 0);
}

TdWindow *
td_window_new(GtkApplication *app)
{
  return g_object_new(TD_TYPE_WINDOW, "application", app, NULL);
}
