/* td-application.c — trellis-debugger's GtkApplication (see td-application.h).
 *
 * One process serves every window: a second `trellis-debugger FILE` opens FILE in the running
 * one. Runs with --screenshot or --perfetto are jobs with a result (a file, an exit status),
 * so they never hand their work to another process (G_APPLICATION_NON_UNIQUE for them).
 *
 * --screenshot: a poll every 100 ms waits for the standalone run to finish, then selects the
 * busiest Function and its newest trace, waits until the window has been idle for a few polls
 * (graph layout done), renders it and quits. Attached to a kernel, it renders once the snapshot
 * is shown; without a file, the welcome page. */
#include "td-application.h"

#include <glib-unix.h>

#include "td-screenshot.h"
#include "td-window.h"

#define POLL_MS               100 /* screenshot job's poll interval */
#define SCREENSHOT_IDLE_POLLS 5   /* idle polls in a row before rendering */
#define SCREENSHOT_TIMEOUT_S  600 /* give up after this long */

struct _TdApplication {
  GtkApplication parent_instance;
  char *screenshot_path;    /* --screenshot FILE.png, or NULL */
  char *perfetto_path;      /* --perfetto FILE.json, or NULL */
  TdWindow *job_window;     /* window of the screenshot/perfetto job (weak), or NULL */
  TdStore *perfetto_store;  /* the job window's store, kept for the export at exit */
  guint poll_id;            /* screenshot job's poll, or 0 */
  gint64 poll_start_us;     /* when the screenshot job started */
  gboolean shown_busiest;   /* the busiest Function was selected */
  guint idle_polls;         /* idle polls in a row */
  int exit_status;          /* what the process exits with */
  GtkCssProvider *dark_css; /* dark colours, added while the dark style is on */
  guint signal_ids[2];      /* SIGTERM, SIGINT sources */
};

G_DEFINE_FINAL_TYPE(TdApplication, td_application, GTK_TYPE_APPLICATION)

static const GOptionEntry option_entries[] = {
    {"attach", 'a', 0, G_OPTION_ARG_FILENAME, NULL, "Attach to the kernel of a connection file",
     "CONNECTION_FILE"},
    {"screenshot", 0, 0, G_OPTION_ARG_FILENAME, NULL,
     "Run FILE, render the window to a PNG file when it finished, and exit", "FILE.png"},
    {"perfetto", 0, 0, G_OPTION_ARG_FILENAME, NULL,
     "Write the session's events as a Perfetto trace when the debugger exits", "FILE.json"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, NULL, "[FILE.ipynb|FILE.py]"},
    {NULL},
};

/* ---- jobs ---- */

static void
fail_job(TdApplication *self, const char *message)
{
  g_printerr("trellis-debugger: %s\n", message);
  self->exit_status = 1;
  g_application_quit(G_APPLICATION(self));
}

static void
take_screenshot(TdApplication *self)
{
  g_autoptr(GError) error = NULL;
  if (!td_screenshot_save(GTK_WIDGET(self->job_window), self->screenshot_path, &error)) {
    fail_job(self, error->message);
    return;
  }
  g_application_quit(G_APPLICATION(self));
}

static gboolean
screenshot_poll(gpointer user_data)
{
  TdApplication *self = TD_APPLICATION(user_data);
  if (self->job_window == NULL) {
    self->poll_id = 0;
    fail_job(self, "the window was closed before the screenshot");
    return G_SOURCE_REMOVE;
  }
  if (g_get_monotonic_time() - self->poll_start_us > SCREENSHOT_TIMEOUT_S * G_USEC_PER_SEC) {
    self->poll_id = 0;
    fail_job(self, "timed out waiting for the run to finish");
    return G_SOURCE_REMOVE;
  }
  const char *message = NULL;
  int status = td_window_get_status(self->job_window, &message);
  if (status == TD_CLIENT_FAILED || status == TD_CLIENT_LOST) {
    self->poll_id = 0;
    g_autofree char *text = g_strdup_printf("the run failed: %s", message ? message : "?");
    fail_job(self, text);
    return G_SOURCE_REMOVE;
  }
  /* Ready: a run finished, a kernel attached, or no session (the welcome page). */
  if (status != TD_CLIENT_FINISHED && status != TD_CLIENT_LIVE && status >= 0)
    return G_SOURCE_CONTINUE;
  if (!self->shown_busiest) {
    self->shown_busiest = TRUE;
    td_window_show_busiest(self->job_window);
    return G_SOURCE_CONTINUE;
  }
  gboolean idle =
      td_window_is_idle(self->job_window) && gtk_widget_get_mapped(GTK_WIDGET(self->job_window));
  self->idle_polls = idle ? self->idle_polls + 1 : 0;
  if (self->idle_polls < SCREENSHOT_IDLE_POLLS)
    return G_SOURCE_CONTINUE;
  self->poll_id = 0;
  take_screenshot(self);
  return G_SOURCE_REMOVE;
}

static void
on_job_status(TdWindow *window, int status, const char *message, gpointer user_data)
{
  TdApplication *self = TD_APPLICATION(user_data);
  TdStore *store = td_window_get_store(window);
  if (self->perfetto_path && store && self->perfetto_store != store)
    g_set_object(&self->perfetto_store, store);
}

static void
write_perfetto(TdApplication *self)
{
  if (self->perfetto_path == NULL)
    return;
  if (self->perfetto_store == NULL) {
    g_printerr("trellis-debugger: no session, %s not written\n", self->perfetto_path);
    self->exit_status = 1;
    return;
  }
  g_autoptr(GError) error = NULL;
  if (!td_store_export_perfetto(self->perfetto_store, self->perfetto_path, &error)) {
    g_printerr("trellis-debugger: %s\n", error->message);
    self->exit_status = 1;
    return;
  }
  g_debug("wrote %s", self->perfetto_path);
}

static gboolean
on_quit_signal(gpointer user_data)
{
  g_application_quit(G_APPLICATION(user_data));
  return G_SOURCE_CONTINUE;
}

/* ---- windows ---- */

/* A window without a session: the active one if it has none, else a new one. */
static TdWindow *
free_window(TdApplication *self)
{
  GtkWindow *active = gtk_application_get_active_window(GTK_APPLICATION(self));
  if (TD_IS_WINDOW(active) && !td_window_has_session(TD_WINDOW(active)))
    return TD_WINDOW(active);
  return td_window_new(GTK_APPLICATION(self));
}

static TdWindow *
open_in_window(TdApplication *self, GFile *file, gboolean attach)
{
  TdWindow *win = free_window(self);
  g_autofree char *path = g_file_get_path(file);
  g_autoptr(GError) error = NULL;
  gboolean ok = path && (attach ? td_window_attach(win, path, &error)
                                : td_window_open_file(win, path, &error));
  if (!ok) {
    const char *text = error ? error->message : "not a local file";
    if (self->screenshot_path)
      fail_job(self, text);
    td_window_show_error(win, text);
  }
  gtk_window_present(GTK_WINDOW(win));
  return win;
}

static void
start_job(TdApplication *self, TdWindow *win)
{
  self->job_window = win;
  g_object_add_weak_pointer(G_OBJECT(win), (gpointer *)&self->job_window);
  g_signal_connect_object(win, "status-changed", G_CALLBACK(on_job_status), self, 0);
  on_job_status(win, -1, NULL, self);
  if (self->screenshot_path && self->exit_status == 0) {
    self->poll_start_us = g_get_monotonic_time();
    self->poll_id = g_timeout_add(POLL_MS, screenshot_poll, self);
  }
}

static int
td_application_command_line(GApplication *app, GApplicationCommandLine *cmdline)
{
  TdApplication *self = TD_APPLICATION(app);
  GVariantDict *options = g_application_command_line_get_options_dict(cmdline);
  g_autofree char *attach = NULL;
  g_autofree char **files = NULL;
  g_variant_dict_lookup(options, "attach", "^ay", &attach);
  g_variant_dict_lookup(options, G_OPTION_REMAINING, "^a&ay", &files);

  TdWindow *win = NULL;
  if (attach) {
    g_autoptr(GFile) file = g_application_command_line_create_file_for_arg(cmdline, attach);
    win = open_in_window(self, file, TRUE);
  }
  for (guint i = 0; files && files[i]; i++) {
    g_autoptr(GFile) file = g_application_command_line_create_file_for_arg(cmdline, files[i]);
    TdWindow *opened = open_in_window(self, file, FALSE);
    win = win ? win : opened;
  }
  if (win == NULL) {
    win = free_window(self);
    gtk_window_present(GTK_WINDOW(win));
  }
  if ((self->screenshot_path || self->perfetto_path) && self->job_window == NULL)
    start_job(self, win);
  return self->exit_status;
}

/* Options that make this run a job are taken here, before the application registers. */
static int
td_application_handle_local_options(GApplication *app, GVariantDict *options)
{
  TdApplication *self = TD_APPLICATION(app);
  g_variant_dict_lookup(options, "screenshot", "^ay", &self->screenshot_path);
  g_variant_dict_lookup(options, "perfetto", "^ay", &self->perfetto_path);
  if (self->screenshot_path == NULL && self->perfetto_path == NULL)
    return -1;
  g_autofree char **files = NULL;
  g_variant_dict_lookup(options, G_OPTION_REMAINING, "^a&ay", &files);
  /* The job's files and exit status belong to this process, not to a running debugger. */
  g_application_set_flags(app, g_application_get_flags(app) | G_APPLICATION_NON_UNIQUE);
  return -1;
}

/* ---- app actions and styles ---- */

static void
set_dark(TdApplication *self, gboolean dark)
{
  g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", dark, NULL);
  GdkDisplay *display = gdk_display_get_default();
  if (dark)
    gtk_style_context_add_provider_for_display(display, GTK_STYLE_PROVIDER(self->dark_css),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 1);
  else
    gtk_style_context_remove_provider_for_display(display, GTK_STYLE_PROVIDER(self->dark_css));
}

static void
action_dark(GSimpleAction *action, GVariant *state, gpointer user_data)
{
  g_simple_action_set_state(action, state);
  set_dark(TD_APPLICATION(user_data), g_variant_get_boolean(state));
}

static void
action_quit(GSimpleAction *action, GVariant *param, gpointer user_data)
{
  g_application_quit(G_APPLICATION(user_data));
}

static void
action_new_window(GSimpleAction *action, GVariant *param, gpointer user_data)
{
  gtk_window_present(GTK_WINDOW(td_window_new(GTK_APPLICATION(user_data))));
}

static void
action_about(GSimpleAction *action, GVariant *param, gpointer user_data)
{
  static const char *const authors[] = {"The Trellis authors", NULL};
  gtk_show_about_dialog(gtk_application_get_active_window(GTK_APPLICATION(user_data)),
                        "program-name", "Trellis Debugger", "logo-icon-name", TD_APPLICATION_ID,
                        "version", "0.1.0", "comments",
                        "What tf.function does: calls, cache hits, retraces and their causes, "
                        "and the traced graphs, live.",
                        "license-type", GTK_LICENSE_MIT_X11, "authors", authors, NULL);
}

/* The desktop's preference: GNOME's color-scheme when its schema is installed, GTK's own
 * setting, or a dark GTK_THEME. */
static gboolean
system_prefers_dark(void)
{
  gboolean gtk_dark = FALSE;
  g_object_get(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", &gtk_dark, NULL);
  const char *theme = g_getenv("GTK_THEME");
  if (gtk_dark || (theme && g_str_has_suffix(theme, ":dark")))
    return TRUE;
  GSettingsSchemaSource *source = g_settings_schema_source_get_default();
  g_autoptr(GSettingsSchema) schema =
      source ? g_settings_schema_source_lookup(source, "org.gnome.desktop.interface", TRUE) : NULL;
  if (schema == NULL || !g_settings_schema_has_key(schema, "color-scheme"))
    return FALSE;
  g_autoptr(GSettings) settings = g_settings_new("org.gnome.desktop.interface");
  g_autofree char *scheme = g_settings_get_string(settings, "color-scheme");
  return g_strcmp0(scheme, "prefer-dark") == 0;
}

static void
load_styles(TdApplication *self)
{
  GdkDisplay *display = gdk_display_get_default();
  g_autoptr(GtkCssProvider) css = gtk_css_provider_new();
  gtk_css_provider_load_from_resource(css, "/org/trellis/Debugger/style.css");
  gtk_style_context_add_provider_for_display(display, GTK_STYLE_PROVIDER(css),
                                             GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  self->dark_css = gtk_css_provider_new();
  gtk_css_provider_load_from_resource(self->dark_css, "/org/trellis/Debugger/style-dark.css");
}

static const GActionEntry app_actions[] = {
    {"quit", action_quit, NULL, NULL, NULL, {0}},
    {"new-window", action_new_window, NULL, NULL, NULL, {0}},
    {"about", action_about, NULL, NULL, NULL, {0}},
    {"dark", NULL, NULL, "false", action_dark, {0}},
};

/* Keyboard shortcuts: action, accelerators. */
static const struct {
  const char *action;
  const char *accels[3];
} shortcuts[] = {
    {"app.quit", {"<Control>q", NULL}},
    {"app.new-window", {"<Control>n", NULL}},
    {"win.open", {"<Control>o", NULL}},
    {"win.export", {"<Control>e", NULL}},
    {"win.save", {"<Control>s", NULL}},
    {"win.search", {"<Control>f", NULL}},
    {"win.toggle-eager", {"<Control><Shift>e", NULL}},
    {"win.zoom-fit", {"<Control>0", NULL}},
    {"win.zoom-in", {"<Control>plus", "<Control>equal", NULL}},
    {"win.zoom-out", {"<Control>minus", NULL}},
};

static void
td_application_startup(GApplication *app)
{
  TdApplication *self = TD_APPLICATION(app);
  G_APPLICATION_CLASS(td_application_parent_class)->startup(app);
  g_action_map_add_action_entries(G_ACTION_MAP(app), app_actions, G_N_ELEMENTS(app_actions), app);
  for (guint i = 0; i < G_N_ELEMENTS(shortcuts); i++)
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), shortcuts[i].action,
                                          shortcuts[i].accels);
  gtk_window_set_default_icon_name(TD_APPLICATION_ID);
  load_styles(self);
  if (system_prefers_dark())
    g_action_group_change_action_state(G_ACTION_GROUP(app), "dark", g_variant_new_boolean(TRUE));
  self->signal_ids[0] = g_unix_signal_add(SIGTERM, on_quit_signal, app);
  self->signal_ids[1] = g_unix_signal_add(SIGINT, on_quit_signal, app);
}

static void
td_application_shutdown(GApplication *app)
{
  TdApplication *self = TD_APPLICATION(app);
  write_perfetto(self);
  g_clear_handle_id(&self->poll_id, g_source_remove);
  for (guint i = 0; i < G_N_ELEMENTS(self->signal_ids); i++)
    g_clear_handle_id(&self->signal_ids[i], g_source_remove);
  G_APPLICATION_CLASS(td_application_parent_class)->shutdown(app);
}

static void
td_application_finalize(GObject *object)
{
  TdApplication *self = TD_APPLICATION(object);
  if (self->job_window)
    g_object_remove_weak_pointer(G_OBJECT(self->job_window), (gpointer *)&self->job_window);
  g_clear_object(&self->perfetto_store);
  g_clear_object(&self->dark_css);
  g_free(self->screenshot_path);
  g_free(self->perfetto_path);
  G_OBJECT_CLASS(td_application_parent_class)->finalize(object);
}

static void
td_application_class_init(TdApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS(klass);
  app_class->command_line = td_application_command_line;
  app_class->handle_local_options = td_application_handle_local_options;
  app_class->startup = td_application_startup;
  app_class->shutdown = td_application_shutdown;
  G_OBJECT_CLASS(klass)->finalize = td_application_finalize;
}

static void
td_application_init(TdApplication *self)
{
  g_application_add_main_option_entries(G_APPLICATION(self), option_entries);
  g_application_set_option_context_parameter_string(G_APPLICATION(self), "[FILE.ipynb | FILE.py]");
  g_application_set_option_context_summary(
      G_APPLICATION(self),
      "Watch tf.function calls, retraces and graphs: attach to a running Trellis kernel, or run "
      "a notebook or script here.");
}

TdApplication *
td_application_new(void)
{
  return g_object_new(TD_TYPE_APPLICATION, "application-id", TD_APPLICATION_ID, "flags",
                      G_APPLICATION_HANDLES_COMMAND_LINE, "resource-base-path",
                      "/org/trellis/Debugger", NULL);
}

int
td_application_get_exit_status(TdApplication *self)
{
  g_return_val_if_fail(TD_IS_APPLICATION(self), 1);
  return self->exit_status;
}
