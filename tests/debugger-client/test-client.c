/* test-client.c — the debugger's event source (gui/td-client.c) without a display.
 *
 * Standalone runs: a script or notebook written to a temporary directory runs in-process; the
 * test spins the main loop until FINISHED and checks what was delivered (an empty snapshot
 * first, then the calls, hits, misses and retrace causes, the cells' output). Attach: a real
 * trellis-kernel ($TRELLIS_KERNEL) is started on a connection file with ports 0, its cells are
 * run over a raw shell socket, and the client's snapshot plus live events must equal the
 * kernel's --events file. The kernel list: discovery files of live and dead processes.
 */
#include "td-client.h"
#include "tp-asan.h"

#include <glib/gstdio.h>
#include <jansson.h>
#include <signal.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC(json_t, json_decref)

/* What a client delivered, in order. */
typedef struct {
  GMainLoop *loop;     /* quit on FINISHED/FAILED, or when `until` holds */
  GPtrArray *events;   /* TrEvent*, every events batch concatenated */
  TrState *state;      /* the last snapshot (owned) */
  GString *out;        /* stdout text */
  GString *err;        /* stderr text */
  GArray *statuses;    /* TdClientStatus, in order */
  char *message;       /* the last status message */
  guint n_snapshots;   /* snapshots delivered */
  guint n_batches;     /* events callbacks */
  bool snapshot_first; /* the first delivery was a snapshot */
  bool any_delivery;   /* something was delivered */
  bool after_free;     /* set when the client was freed: no callback may run then */
  bool callback_late;  /* a callback ran after free */
} Seen;

static void
seen_init(Seen *s)
{
  memset(s, 0, sizeof *s);
  s->loop = g_main_loop_new(NULL, FALSE);
  s->events = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  s->out = g_string_new(NULL);
  s->err = g_string_new(NULL);
  s->statuses = g_array_new(FALSE, FALSE, sizeof(TdClientStatus));
}

static void
seen_clear(Seen *s)
{
  g_main_loop_unref(s->loop);
  g_ptr_array_unref(s->events);
  if (s->state)
    tr_state_free(s->state);
  g_string_free(s->out, TRUE);
  g_string_free(s->err, TRUE);
  g_array_unref(s->statuses);
  g_free(s->message);
}

static void
note_delivery(Seen *s, bool is_snapshot)
{
  if (s->after_free)
    s->callback_late = true;
  if (!s->any_delivery)
    s->snapshot_first = is_snapshot;
  s->any_delivery = true;
}

static void
on_snapshot(TrState *state, gpointer data)
{
  Seen *s = data;
  note_delivery(s, true);
  if (s->state)
    tr_state_free(s->state);
  s->state = state;
  s->n_snapshots++;
}

static void
on_events(GPtrArray *events, gpointer data)
{
  Seen *s = data;
  note_delivery(s, false);
  s->n_batches++;
  for (guint i = 0; i < events->len; i++)
    g_ptr_array_add(s->events, tr_event_ref(events->pdata[i]));
  g_ptr_array_unref(events);
}

static void
on_status(TdClientStatus status, const char *message, gpointer data)
{
  Seen *s = data;
  if (s->after_free)
    s->callback_late = true;
  g_array_append_val(s->statuses, status);
  g_free(s->message);
  s->message = g_strdup(message);
  if (status == TD_CLIENT_FINISHED || status == TD_CLIENT_FAILED)
    g_main_loop_quit(s->loop);
}

static void
on_output(const char *text, gsize len, bool is_stderr, gpointer data)
{
  Seen *s = data;
  if (s->after_free)
    s->callback_late = true;
  g_string_append_len(is_stderr ? s->err : s->out, text, (gssize)len);
}

static const TdClientCallbacks callbacks = {on_snapshot, on_events, on_status, on_output};

static gboolean
on_timeout(gpointer data)
{
  g_error("timed out waiting for the client");
  return G_SOURCE_REMOVE;
}

/* Spin the default context until FINISHED/FAILED. */
static void
run_until_finished(Seen *s)
{
  guint timeout = g_timeout_add_seconds(60, on_timeout, NULL);
  g_main_loop_run(s->loop);
  g_source_remove(timeout);
}

/* Spin until `done` says so (checked after every iteration), at most `seconds`. */
static bool
spin_until(bool (*done)(Seen *, gpointer), Seen *s, gpointer data, double seconds)
{
  gint64 end = g_get_monotonic_time() + (gint64)(seconds * G_USEC_PER_SEC);
  while (!done(s, data)) {
    if (g_get_monotonic_time() > end)
      return false;
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
  return true;
}

static char *
write_temp(const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

static guint
count_kind(GPtrArray *events, TrEventKind kind)
{
  guint n = 0;
  for (guint i = 0; i < events->len; i++)
    n += ((TrEvent *)events->pdata[i])->kind == kind;
  return n;
}

static guint
count_outcome(GPtrArray *events, TrOutcome outcome)
{
  guint n = 0;
  for (guint i = 0; i < events->len; i++) {
    TrEvent *ev = events->pdata[i];
    n += ev->kind == TR_EVENT_CALL && ev->outcome == outcome;
  }
  return n;
}

/* Every retrace cause text, joined by "|". Transfer full. */
static char *
all_causes(GPtrArray *events)
{
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < events->len; i++) {
    TrEvent *ev = events->pdata[i];
    if (ev->kind != TR_EVENT_RETRACE_CAUSE || !ev->causes)
      continue;
    for (guint j = 0; j < ev->causes->len; j++) {
      const TrRetraceCause *c = ev->causes->pdata[j];
      g_string_append_printf(s, "%s|", c->text);
    }
  }
  return g_string_free(s, FALSE);
}

static void
assert_consecutive(GPtrArray *events, guint64 first)
{
  for (guint i = 0; i < events->len; i++)
    g_assert_cmpuint(((TrEvent *)events->pdata[i])->seq, ==, first + i);
}

static const char script[] = "import tensorflow as tf\n"
                             "@tf.function\n"
                             "def f(x):\n"
                             "    return x * 2\n"
                             "print(f(tf.constant([1, 2])).numpy())\n"
                             "f(tf.constant([3, 4]))\n"
                             "f(tf.constant([1, 2, 3]))\n"
                             "f(tf.constant([1.5, 2.5]))\n"
                             "f(3)\n"
                             "f(4)\n";

/* ---- standalone ------------------------------------------------------------------------------ */

static void
test_local_script(void)
{
  g_autofree char *dir = g_dir_make_tmp("td-client-XXXXXX", NULL);
  g_autofree char *path = write_temp(dir, "calls.py", script);
  Seen s;
  seen_init(&s);
  g_autoptr(GError) error = NULL;
  TdClient *client = td_client_new_local(path, &callbacks, &s, NULL, &error);
  g_assert_no_error(error);
  run_until_finished(&s);
  g_assert_cmpstr(s.message, ==, "ok");
  g_assert_true(s.snapshot_first);
  g_assert_cmpuint(s.n_snapshots, ==, 1);
  g_assert_cmpuint(tr_state_last_seq(s.state), ==, 0);
  g_assert_cmpint(g_array_index(s.statuses, TdClientStatus, 0), ==, TD_CLIENT_RUNNING);
  g_assert_cmpint(g_array_index(s.statuses, TdClientStatus, s.statuses->len - 1), ==,
                  TD_CLIENT_FINISHED);
  g_assert_cmpstr(s.out->str, ==, "[2 4]\n");
  /* Standalone runs share the process's Python and its event bus: numbered on from earlier
   * runs in this process, with no gap. */
  g_assert_cmpuint(s.events->len, >, 0);
  assert_consecutive(s.events, ((TrEvent *)s.events->pdata[0])->seq);
  g_assert_cmpuint(count_kind(s.events, TR_EVENT_CELL_START), ==, 1);
  g_assert_cmpuint(count_kind(s.events, TR_EVENT_CELL_END), ==, 1);
  g_assert_cmpuint(count_kind(s.events, TR_EVENT_FUNCTION_CREATED), ==, 1);
  g_assert_cmpuint(count_outcome(s.events, TR_OUTCOME_HIT), ==, 1);
  g_assert_cmpuint(count_outcome(s.events, TR_OUTCOME_MISS), ==, 5);
  g_autofree char *causes = all_causes(s.events);
  g_assert_nonnull(strstr(causes, "first call"));
  g_assert_nonnull(strstr(causes, "shape (3,)"));
  g_assert_nonnull(strstr(causes, "dtype float32"));
  g_assert_nonnull(strstr(causes, "Python value 4"));
  /* Graphs are carried. */
  for (guint i = 0; i < s.events->len; i++) {
    TrEvent *ev = s.events->pdata[i];
    if (ev->kind == TR_EVENT_CONCRETE_ADDED)
      g_assert_nonnull(ev->graph);
    if (ev->kind == TR_EVENT_CALL)
      g_assert_cmpstr(ev->file, ==, path);
  }
  /* The state a GUI builds from the snapshot and the events. */
  for (guint i = 0; i < s.events->len; i++)
    g_assert_true(tr_state_apply(s.state, s.events->pdata[i]));
  TrStateFn *fn = g_ptr_array_index(tr_state_functions(s.state), 0);
  g_assert_cmpstr(fn->name, ==, "f");
  g_assert_cmpuint(fn->misses, ==, 5);
  td_client_free(client);
  seen_clear(&s);
  g_unlink(path);
  g_rmdir(dir);
}

static void
test_local_notebook(void)
{
  g_autofree char *dir = g_dir_make_tmp("td-client-XXXXXX", NULL);
  const char *nb =
      "{\"cells\": ["
      "{\"cell_type\": \"markdown\", \"source\": \"# title\"},"
      "{\"cell_type\": \"code\", \"source\": [\"import tensorflow as tf\\n\", \"@tf.function\\n\","
      " \"def g(x):\\n\", \"    return x + 1\\n\"]},"
      "{\"cell_type\": \"code\", \"source\": \"g(1)\\ng(1)\\n6 * 7\"}"
      "], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}";
  g_autofree char *path = write_temp(dir, "book.ipynb", nb);
  Seen s;
  seen_init(&s);
  TdClient *client = td_client_new_local(path, &callbacks, &s, NULL, NULL);
  g_assert_nonnull(client);
  run_until_finished(&s);
  g_assert_cmpstr(s.message, ==, "ok");
  g_assert_cmpstr(s.out->str, ==, "42\n");
  g_assert_cmpuint(count_kind(s.events, TR_EVENT_CELL_START), ==, 2);
  g_assert_cmpuint(count_outcome(s.events, TR_OUTCOME_MISS), ==, 1);
  g_assert_cmpuint(count_outcome(s.events, TR_OUTCOME_HIT), ==, 1);
  for (guint i = 0; i < s.events->len; i++) {
    TrEvent *ev = s.events->pdata[i];
    if (ev->kind == TR_EVENT_CALL) {
      g_assert_cmpint(ev->cell, ==, 2);
      g_assert_cmpstr(ev->file, ==, "<cell 2>");
    }
  }
  td_client_free(client);
  seen_clear(&s);
  g_unlink(path);
  g_rmdir(dir);
}

/* A cell tagged raises-exception fails as its notebook expects: the run goes on to the later
 * cells (as nbclient's); an untagged failing cell still ends the run there. */
static void
test_local_notebook_expected_error(void)
{
  g_autofree char *dir = g_dir_make_tmp("td-client-XXXXXX", NULL);
  const char *cells = "{\"cell_type\": \"code\", \"source\": \"print('one')\"},"
                      "{\"cell_type\": \"code\", \"source\": \"1 / 0\", \"metadata\": {\"tags\": "
                      "[\"raises-exception\"]}},"
                      "{\"cell_type\": \"code\", \"source\": \"print('three')\"},"
                      "{\"cell_type\": \"code\", \"source\": \"[][1]\"},"
                      "{\"cell_type\": \"code\", \"source\": \"print('five')\"}";
  g_autofree char *nb =
      g_strdup_printf("{\"cells\": [%s], \"metadata\": {}, \"nbformat\": 4}", cells);
  g_autofree char *path = write_temp(dir, "tagged.ipynb", nb);
  Seen s;
  seen_init(&s);
  TdClient *client = td_client_new_local(path, &callbacks, &s, NULL, NULL);
  g_assert_nonnull(client);
  run_until_finished(&s);
  g_assert_cmpstr(s.out->str, ==, "one\nthree\n");
  g_assert_nonnull(strstr(s.err->str, "ZeroDivisionError: division by zero"));
  g_assert_cmpstr(s.message, ==, "IndexError: list index out of range");
  g_assert_cmpuint(count_kind(s.events, TR_EVENT_CELL_START), ==, 4);
  td_client_free(client);
  seen_clear(&s);
  g_unlink(path);
  g_rmdir(dir);
}

static void
test_local_error_and_bad_files(void)
{
  g_autofree char *dir = g_dir_make_tmp("td-client-XXXXXX", NULL);
  g_autofree char *path = write_temp(dir, "boom.py", "print('before')\n1 / 0\nprint('after')\n");
  Seen s;
  seen_init(&s);
  TdClient *client = td_client_new_local(path, &callbacks, &s, NULL, NULL);
  run_until_finished(&s);
  g_assert_cmpstr(s.message, ==, "ZeroDivisionError: division by zero");
  g_assert_cmpstr(s.out->str, ==, "before\n");
  g_assert_nonnull(strstr(s.err->str, "Traceback (most recent call last):"));
  g_assert_true(g_str_has_suffix(s.err->str, "ZeroDivisionError: division by zero\n"));
  td_client_free(client);
  seen_clear(&s);

  g_autoptr(GError) error = NULL;
  g_autofree char *missing = g_build_filename(dir, "missing.py", NULL);
  g_assert_null(td_client_new_local(missing, &callbacks, NULL, NULL, &error));
  g_assert_nonnull(error);
  g_clear_error(&error);
  g_autofree char *bad = write_temp(dir, "bad.ipynb", "{\"cells\": 3");
  g_assert_null(td_client_new_local(bad, &callbacks, NULL, NULL, &error));
  g_assert_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_FILE);
  g_clear_error(&error);
  g_assert_null(td_client_new_attach(missing, &callbacks, NULL, NULL, &error));
  g_assert_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_FILE);
  g_unlink(path);
  g_unlink(bad);
  g_rmdir(dir);
}

static bool
is_running(Seen *s, gpointer data)
{
  for (guint i = 0; i < s->statuses->len; i++)
    if (g_array_index(s->statuses, TdClientStatus, i) == TD_CLIENT_RUNNING)
      return s->out->len > 0;
  return false;
}

static void
test_local_eager_and_free_interrupts(void)
{
  g_autofree char *dir = g_dir_make_tmp("td-client-XXXXXX", NULL);
  g_autofree char *path = write_temp(dir, "loop.py",
                                     "import tensorflow as tf\n"
                                     "@tf.function\n"
                                     "def f(x):\n"
                                     "    return x + 1\n"
                                     "print('go')\n"
                                     "while True:\n"
                                     "    f(1)\n");
  Seen s;
  seen_init(&s);
  TdClient *client = td_client_new_local(path, &callbacks, &s, NULL, NULL);
  g_assert_true(spin_until(is_running, &s, NULL, 30));
  td_client_set_eager(client, true);
  g_usleep(100000);
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_assert_cmpuint(count_kind(s.events, TR_EVENT_EAGER_TOGGLED), ==, 1);
  g_assert_cmpuint(count_outcome(s.events, TR_OUTCOME_EAGER), >, 0);
  /* While the main loop slept, the events gathered into a few callbacks, not one each. */
  g_assert_cmpuint(s.n_batches * 20, <, s.events->len);
  gint64 t0 = g_get_monotonic_time();
  s.after_free = true;
  td_client_free(client);
  g_assert_cmpint(g_get_monotonic_time() - t0, <, 5 * G_USEC_PER_SEC);
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_assert_false(s.callback_late);
  seen_clear(&s);
  g_unlink(path);
  g_rmdir(dir);
}

/* ---- running kernels ------------------------------------------------------------------------ */

static void
write_discovery(const char *dir, const char *id, gint64 pid, const char *started)
{
  g_autofree char *name = g_strdup_printf("trellis-debug-%s.json", id);
  g_autofree char *text = g_strdup_printf(
      "{\"version\": 1, \"pid\": %" G_GINT64_FORMAT ", \"connection_file\": \"%s/kernel-%s.json\","
      " \"events\": \"tcp://127.0.0.1:1\", \"requests\": \"tcp://127.0.0.1:2\","
      " \"session\": \"s\", \"started\": \"%s\"}",
      pid, dir, id, started);
  g_autofree char *path = write_temp(dir, name, text);
}

static void
test_kernel_list(void)
{
  g_autofree char *dir = g_dir_make_tmp("td-runtime-XXXXXX", NULL);
  pid_t dead = fork();
  if (dead == 0)
    _exit(0);
  waitpid(dead, NULL, 0);
  write_discovery(dir, "old", getpid(), "2026-01-01T00:00:00Z");
  write_discovery(dir, "new", getppid(), "2026-06-01T00:00:00Z");
  write_discovery(dir, "dead", dead, "2026-09-01T00:00:00Z");
  g_autofree char *junk = write_temp(dir, "trellis-debug-junk.json", "{\"pid\": ");
  g_autofree char *other = write_temp(dir, "kernel-x.json", "{}");
  g_autoptr(GPtrArray) list = td_kernel_list(dir);
  g_assert_cmpuint(list->len, ==, 2);
  TdKernelInfo *first = list->pdata[0], *second = list->pdata[1];
  g_assert_cmpint(first->pid, ==, getppid());
  g_assert_cmpstr(first->started, ==, "2026-06-01T00:00:00Z");
  g_assert_true(g_str_has_suffix(first->connection_file, "/kernel-new.json"));
  g_assert_true(g_str_has_suffix(first->discovery_file, "/trellis-debug-new.json"));
  g_assert_cmpint(second->pid, ==, getpid());

  g_autoptr(GPtrArray) none = td_kernel_list("/nonexistent/trellis");
  g_assert_cmpuint(none->len, ==, 0);

  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(d))) {
    g_autofree char *p = g_build_filename(dir, name, NULL);
    g_unlink(p);
  }
  g_rmdir(dir);
}

static void
test_discovery_path(void)
{
  g_autofree char *a = td_discovery_path("/run/jupyter/kernel-1234-ab.json");
  g_autofree char *b = td_discovery_path("/tmp/conn.json");
  g_autofree char *c = td_discovery_path("relative");
  g_assert_cmpstr(a, ==, "/run/jupyter/trellis-debug-1234-ab.json");
  g_assert_cmpstr(b, ==, "/tmp/trellis-debug-conn.json");
  g_assert_cmpstr(c, ==, "./trellis-debug-relative.json");
}

/* ---- attach to a real kernel ------------------------------------------------------------------
 */

typedef struct {
  GPid pid;      /* the kernel */
  char *dir;     /* its temporary directory */
  char *conn;    /* connection file */
  char *events;  /* its --events file */
  char *key;     /* HMAC key */
  void *zctx;    /* our ZeroMQ context */
  void *shell;   /* DEALER on its shell */
  guint counter; /* numbers our msg_ids */
} Kernel;

static char *
hmac_hex(const char *key, const char *const *parts, guint n)
{
  GHmac *h = g_hmac_new(G_CHECKSUM_SHA256, (const guchar *)key, strlen(key));
  for (guint i = 0; i < n; i++)
    g_hmac_update(h, (const guchar *)parts[i], strlen(parts[i]));
  char *hex = g_strdup(g_hmac_get_string(h));
  g_hmac_unref(h);
  return hex;
}

static json_t *
load_json(const char *path)
{
  return json_load_file(path, 0, NULL);
}

static bool
kernel_start(Kernel *k)
{
  const char *binary = g_getenv("TRELLIS_KERNEL");
  if (!binary)
    return false;
  memset(k, 0, sizeof *k);
  k->dir = g_dir_make_tmp("td-attach-XXXXXX", NULL);
  k->conn = g_build_filename(k->dir, "kernel-test.json", NULL);
  k->events = g_build_filename(k->dir, "events.jsonl", NULL);
  k->key = g_uuid_string_random();
  g_autofree char *conn_text = g_strdup_printf(
      "{\"ip\": \"127.0.0.1\", \"transport\": \"tcp\", \"key\": \"%s\", \"signature_scheme\":"
      " \"hmac-sha256\", \"shell_port\": 0, \"iopub_port\": 0, \"stdin_port\": 0,"
      " \"control_port\": 0, \"hb_port\": 0}",
      k->key);
  g_assert_true(g_file_set_contents(k->conn, conn_text, -1, NULL));
  g_autofree char *history = g_build_filename(k->dir, "history.jsonl", NULL);
  g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "TRELLIS_HISTORY_FILE", history, TRUE);
  const char *argv[] = {binary, "-f", k->conn, "--events", k->events, NULL};
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_async(NULL, (char **)argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                              &k->pid, &error));
  g_autofree char *disc = td_discovery_path(k->conn);
  for (int i = 0; i < 1000 && !g_file_test(disc, G_FILE_TEST_EXISTS); i++)
    g_usleep(10000);
  g_assert_true(g_file_test(disc, G_FILE_TEST_EXISTS));
  g_autoptr(json_t) conn = load_json(k->conn);
  g_autofree char *shell = g_strdup_printf(
      "tcp://127.0.0.1:%d", (int)json_integer_value(json_object_get(conn, "shell_port")));
  k->zctx = zmq_ctx_new();
  k->shell = zmq_socket(k->zctx, ZMQ_DEALER);
  int zero = 0;
  zmq_setsockopt(k->shell, ZMQ_LINGER, &zero, sizeof zero);
  g_assert_cmpint(zmq_connect(k->shell, shell), ==, 0);
  return true;
}

/* Send a signed request on shell and wait for its reply; returns the reply's content status. */
static char *
kernel_request(Kernel *k, const char *msg_type, json_t *content)
{
  g_autofree char *msg_id = g_strdup_printf("test-%u", ++k->counter);
  g_autoptr(json_t) header =
      json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "msg_id", msg_id, "session", "test", "username",
                "test", "date", "2026-01-01T00:00:00Z", "msg_type", msg_type, "version", "5.3");
  g_autofree char *h = json_dumps(header, JSON_COMPACT);
  g_autofree char *c = json_dumps(content, JSON_COMPACT);
  json_decref(content);
  const char *parts[] = {h, "{}", "{}", c};
  g_autofree char *sig = hmac_hex(k->key, parts, 4);
  zmq_send(k->shell, "<IDS|MSG>", 9, ZMQ_SNDMORE);
  zmq_send(k->shell, sig, strlen(sig), ZMQ_SNDMORE);
  for (int i = 0; i < 4; i++)
    zmq_send(k->shell, parts[i], strlen(parts[i]), i < 3 ? ZMQ_SNDMORE : 0);
  for (;;) {
    zmq_pollitem_t item = {k->shell, 0, ZMQ_POLLIN, 0};
    g_assert_cmpint(zmq_poll(&item, 1, 30000), ==, 1);
    GPtrArray *frames = g_ptr_array_new_with_free_func(g_free);
    int more = 1;
    while (more) {
      zmq_msg_t m;
      zmq_msg_init(&m);
      zmq_msg_recv(&m, k->shell, 0);
      g_ptr_array_add(frames, g_strndup(zmq_msg_data(&m), zmq_msg_size(&m)));
      more = zmq_msg_more(&m);
      zmq_msg_close(&m);
    }
    g_assert_cmpuint(frames->len, >=, 6);
    g_autoptr(json_t) parent = json_loads(frames->pdata[3], 0, NULL);
    g_autoptr(json_t) reply = json_loads(frames->pdata[5], 0, NULL);
    bool ours = g_strcmp0(json_string_value(json_object_get(parent, "msg_id")), msg_id) == 0;
    char *status = g_strdup(json_string_value(json_object_get(reply, "status")));
    g_ptr_array_unref(frames);
    if (ours)
      return status;
    g_free(status);
  }
}

static void
kernel_execute(Kernel *k, const char *code)
{
  g_autofree char *status = kernel_request(
      k, "execute_request",
      json_pack("{s:s, s:b, s:b, s:{}, s:b, s:b}", "code", code, "silent", 0, "store_history", 1,
                "user_expressions", "allow_stdin", 0, "stop_on_error", 1));
  g_assert_cmpstr(status, ==, "ok");
}

static void
kernel_stop(Kernel *k)
{
  g_autofree char *status = kernel_request(k, "shutdown_request", json_pack("{s:b}", "restart", 0));
  int wstatus = 0;
  for (int i = 0; i < 2000 && waitpid(k->pid, &wstatus, WNOHANG) == 0; i++)
    g_usleep(10000);
  g_assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
  g_spawn_close_pid(k->pid);
  zmq_close(k->shell);
  zmq_ctx_term(k->zctx);
}

static void
kernel_clear(Kernel *k)
{
  g_autoptr(GDir) d = g_dir_open(k->dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name(d))) {
    g_autofree char *p = g_build_filename(k->dir, name, NULL);
    g_unlink(p);
  }
  g_rmdir(k->dir);
  g_free(k->dir);
  g_free(k->conn);
  g_free(k->events);
  g_free(k->key);
}

static bool
is_live(Seen *s, gpointer data)
{
  return s->statuses->len > 0 &&
         g_array_index(s->statuses, TdClientStatus, s->statuses->len - 1) == TD_CLIENT_LIVE;
}

/* The eager switch went over: its eager_mode event reached the client. */
static bool
eager_toggled(Seen *s, gpointer data)
{
  return count_kind(s->events, TR_EVENT_EAGER_TOGGLED) >= 1;
}

static bool
has_seq(Seen *s, gpointer data)
{
  guint64 want = *(guint64 *)data;
  guint64 last = s->events->len ? ((TrEvent *)g_ptr_array_index(s->events, s->events->len - 1))->seq
                                : tr_state_last_seq(s->state);
  return last >= want;
}

static bool
is_lost(Seen *s, gpointer data)
{
  return s->statuses->len > 0 &&
         g_array_index(s->statuses, TdClientStatus, s->statuses->len - 1) == TD_CLIENT_LOST;
}

static GPtrArray *
read_events_file(const char *path)
{
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  GPtrArray *events = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  for (char **l = lines; *l; l++) {
    if (!**l)
      continue;
    g_autoptr(json_t) obj = json_loads(*l, 0, NULL);
    g_ptr_array_add(events, tr_event_from_json(obj, NULL));
  }
  return events;
}

static void
test_attach(void)
{
  Kernel k;
  if (!kernel_start(&k)) {
    g_test_skip("TRELLIS_KERNEL is not set");
    return;
  }
  /* Before the debugger: a Function, traces and hits. */
  kernel_execute(&k, "import tensorflow as tf\n@tf.function\ndef f(x):\n    return x * 2\n"
                     "f(tf.constant([1, 2]))\nf(tf.constant([3, 4]))\nf(tf.constant([1, 2, 3]))\n");
  Seen s;
  seen_init(&s);
  g_autoptr(GError) error = NULL;
  TdClient *client = td_client_new_attach(k.conn, &callbacks, &s, NULL, &error);
  g_assert_no_error(error);
  g_assert_true(spin_until(is_live, &s, NULL, 10));
  g_assert_true(s.snapshot_first);
  guint64 snap_seq = tr_state_last_seq(s.state);
  g_assert_cmpuint(snap_seq, >, 0);
  TrStateFn *fn = g_ptr_array_index(tr_state_functions(s.state), 0);
  g_assert_cmpuint(fn->misses, ==, 2);
  g_assert_cmpuint(fn->hits, ==, 1);

  /* After: live events, and the eager switch through the client. */
  kernel_execute(&k, "for i in range(200):\n    f(i % 4)\n");
  td_client_set_eager(client, true);
  /* The switch is a request to the kernel's debug thread, which may still be publishing the
   * loop's events (slowly under the sanitizers): the next cell runs once it is on. */
  g_assert_true(spin_until(eager_toggled, &s, NULL, 30));
  kernel_execute(&k, "f(1)\ntf.config.run_functions_eagerly(False)\n");

  g_autoptr(GPtrArray) ref = read_events_file(k.events);
  guint64 last = ((TrEvent *)g_ptr_array_index(ref, ref->len - 1))->seq;
  g_assert_true(spin_until(has_seq, &s, &last, 10));
  /* The snapshot plus the live events are the kernel's stream, no gap, no duplicate. */
  g_assert_cmpuint(s.events->len, ==, ref->len - snap_seq);
  for (guint i = 0; i < s.events->len; i++) {
    g_autofree char *a = tr_event_to_json_line(s.events->pdata[i]);
    g_autofree char *b = tr_event_to_json_line(ref->pdata[snap_seq + i]);
    g_assert_cmpstr(a, ==, b);
  }
  g_assert_cmpuint(count_kind(s.events, TR_EVENT_EAGER_TOGGLED), ==, 2);
  g_assert_cmpuint(count_outcome(s.events, TR_OUTCOME_EAGER), ==, 1);
  g_assert_cmpuint(s.n_batches * 4, <, s.events->len);

  /* The kernel goes away: LOST. */
  kernel_stop(&k);
  g_assert_true(spin_until(is_lost, &s, NULL, 15));
  s.after_free = true;
  td_client_free(client);
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_assert_false(s.callback_late);
  seen_clear(&s);
  kernel_clear(&k);
}

/* ---- attach to a scripted kernel: gaps, bad signatures, a restart ------------------------------
 */

/* A kernel's debug sockets, driven by the test: an XPUB the test thread publishes on, and a
 * ROUTER a thread answers from a fixed list of events (1..N). */
typedef struct {
  char *dir;         /* temporary directory */
  char *conn;        /* connection file */
  char *key;         /* HMAC key */
  void *zctx;        /* ZeroMQ context */
  void *pub;         /* XPUB (test thread) */
  void *router;      /* ROUTER (server thread) */
  GThread *thread;   /* answers requests */
  atomic_bool stop;  /* ends the thread */
  GMutex lock;       /* guards what follows */
  GPtrArray *events; /* TrEvent*: the stream so far (seq 1..len) */
  char *session;     /* current session id */
  guint snap_seq;    /* the snapshot holds events 1..snap_seq */
  guint n_snapshots; /* snapshot requests answered */
  guint n_since;     /* events_since requests answered */
} Fake;

static TrEvent *
fake_event(guint64 seq)
{
  TrEvent *ev = tr_event_new(TR_EVENT_TF_PRINT);
  ev->seq = seq;
  ev->ts_ns = (gint64)seq * 1000;
  ev->text = g_strdup_printf("event %" G_GUINT64_FORMAT, seq);
  return ev;
}

static char *
fake_sign(Fake *f, const char *a, gsize a_len, const char *b, gsize b_len)
{
  GHmac *h = g_hmac_new(G_CHECKSUM_SHA256, (const guchar *)f->key, strlen(f->key));
  g_hmac_update(h, (const guchar *)a, a_len);
  if (b)
    g_hmac_update(h, (const guchar *)b, b_len);
  char *hex = g_strdup(g_hmac_get_string(h));
  g_hmac_unref(h);
  return hex;
}

static json_t *
fake_events_json(Fake *f, guint from, guint to)
{
  json_t *array = json_array();
  for (guint i = from; i < to && i < f->events->len; i++)
    json_array_append_new(array, tr_event_to_json(f->events->pdata[i]));
  return array;
}

static json_t *
fake_answer(Fake *f, json_t *request)
{
  const char *type = json_string_value(json_object_get(request, "type"));
  g_autofree char *reply_type = g_strconcat(type ? type : "error", "_reply", NULL);
  json_t *reply = json_pack("{s:O, s:s, s:s, s:s}", "id", json_object_get(request, "id"), "type",
                            reply_type, "status", "ok", "session", f->session);
  if (g_strcmp0(type, "snapshot") == 0) {
    g_autoptr(TrState) state = tr_state_new(1000);
    for (guint i = 0; i < f->snap_seq; i++)
      tr_state_apply(state, f->events->pdata[i]);
    json_object_set_new(reply, "snapshot", tr_state_to_json(state, 1000));
    f->n_snapshots++;
  } else if (g_strcmp0(type, "events_since") == 0) {
    guint since = (guint)json_integer_value(json_object_get(request, "seq"));
    json_object_set_new(reply, "events", fake_events_json(f, since, f->events->len));
    f->n_since++;
  }
  return reply;
}

static gpointer
fake_main(gpointer data)
{
  Fake *f = data;
  while (!atomic_load(&f->stop)) {
    zmq_pollitem_t item = {f->router, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, 20) <= 0)
      continue;
    zmq_msg_t parts[3];
    guint n = 0;
    for (int more = 1; more && n < 3; n++) {
      zmq_msg_init(&parts[n]);
      zmq_msg_recv(&parts[n], f->router, 0);
      more = zmq_msg_more(&parts[n]);
    }
    g_assert_cmpuint(n, ==, 3);
    g_autofree char *sig = fake_sign(f, zmq_msg_data(&parts[2]), zmq_msg_size(&parts[2]), NULL, 0);
    g_assert_cmpmem(sig, strlen(sig), zmq_msg_data(&parts[1]), zmq_msg_size(&parts[1]));
    g_autoptr(json_t) request =
        json_loadb(zmq_msg_data(&parts[2]), zmq_msg_size(&parts[2]), 0, NULL);
    g_mutex_lock(&f->lock);
    g_autoptr(json_t) reply = fake_answer(f, request);
    g_mutex_unlock(&f->lock);
    g_autofree char *text = json_dumps(reply, JSON_COMPACT);
    g_autofree char *reply_sig = fake_sign(f, text, strlen(text), NULL, 0);
    zmq_send(f->router, zmq_msg_data(&parts[0]), zmq_msg_size(&parts[0]), ZMQ_SNDMORE);
    zmq_send(f->router, reply_sig, strlen(reply_sig), ZMQ_SNDMORE);
    zmq_send(f->router, text, strlen(text), 0);
    for (guint i = 0; i < n; i++)
      zmq_msg_close(&parts[i]);
  }
  return NULL;
}

static char *
bound_endpoint(void *socket)
{
  char buf[256];
  size_t len = sizeof buf;
  g_assert_cmpint(zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, buf, &len), ==, 0);
  return g_strndup(buf, len);
}

static void
fake_start(Fake *f)
{
  memset(f, 0, sizeof *f);
  f->dir = g_dir_make_tmp("td-fake-XXXXXX", NULL);
  f->conn = g_build_filename(f->dir, "fake.json", NULL);
  f->key = g_uuid_string_random();
  f->session = g_strdup("session-1");
  f->events = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  g_mutex_init(&f->lock);
  f->zctx = zmq_ctx_new();
  f->pub = zmq_socket(f->zctx, ZMQ_XPUB);
  f->router = zmq_socket(f->zctx, ZMQ_ROUTER);
  int zero = 0;
  zmq_setsockopt(f->pub, ZMQ_LINGER, &zero, sizeof zero);
  zmq_setsockopt(f->router, ZMQ_LINGER, &zero, sizeof zero);
  g_assert_cmpint(zmq_bind(f->pub, "tcp://127.0.0.1:*"), ==, 0);
  g_assert_cmpint(zmq_bind(f->router, "tcp://127.0.0.1:*"), ==, 0);
  g_autofree char *events = bound_endpoint(f->pub);
  g_autofree char *requests = bound_endpoint(f->router);
  g_autofree char *conn =
      g_strdup_printf("{\"key\": \"%s\", \"signature_scheme\": \"hmac-sha256\"}", f->key);
  g_assert_true(g_file_set_contents(f->conn, conn, -1, NULL));
  g_autofree char *disc_path = td_discovery_path(f->conn);
  g_autofree char *disc = g_strdup_printf(
      "{\"version\": 1, \"pid\": %d, \"connection_file\": \"%s\", \"events\": \"%s\","
      " \"requests\": \"%s\", \"session\": \"session-1\", \"started\": \"2026-01-01T00:00:00Z\"}",
      (int)getpid(), f->conn, events, requests);
  g_assert_true(g_file_set_contents(disc_path, disc, -1, NULL));
  for (guint64 seq = 1; seq <= 3; seq++)
    g_ptr_array_add(f->events, fake_event(seq));
  f->snap_seq = 3;
  f->thread = g_thread_new("fake-kernel", fake_main, f);
}

/* Publish events [from, to] (1-based seqs, already in f->events) in one message. */
static void
fake_publish(Fake *f, const char *session, guint from, guint to, bool bad_signature)
{
  g_mutex_lock(&f->lock);
  g_autoptr(json_t) body =
      json_pack("{s:s, s:o}", "session", session, "events", fake_events_json(f, from - 1, to));
  g_mutex_unlock(&f->lock);
  g_autofree char *text = json_dumps(body, JSON_COMPACT);
  g_autofree char *sig = fake_sign(f, "trellis.events", 14, text, strlen(text));
  if (bad_signature)
    sig[0] = sig[0] == '0' ? '1' : '0';
  zmq_send(f->pub, "trellis.events", 14, ZMQ_SNDMORE);
  zmq_send(f->pub, sig, strlen(sig), ZMQ_SNDMORE);
  zmq_send(f->pub, text, strlen(text), 0);
}

static void
fake_add(Fake *f, guint64 up_to)
{
  g_mutex_lock(&f->lock);
  while (f->events->len < up_to)
    g_ptr_array_add(f->events, fake_event(f->events->len + 1));
  g_mutex_unlock(&f->lock);
}

static void
fake_stop(Fake *f)
{
  atomic_store(&f->stop, true);
  g_thread_join(f->thread);
  zmq_close(f->pub);
  zmq_close(f->router);
  zmq_ctx_term(f->zctx);
  g_autofree char *disc_path = td_discovery_path(f->conn);
  g_unlink(disc_path);
  g_unlink(f->conn);
  g_rmdir(f->dir);
  g_ptr_array_unref(f->events);
  g_mutex_clear(&f->lock);
  g_free(f->dir);
  g_free(f->conn);
  g_free(f->key);
  g_free(f->session);
}

static bool
has_n_events(Seen *s, gpointer data)
{
  return s->events->len >= GPOINTER_TO_UINT(data);
}

static bool
has_n_snapshots(Seen *s, gpointer data)
{
  return s->n_snapshots >= GPOINTER_TO_UINT(data);
}

/* Warnings the client logs for what it drops; counted instead of aborting the test. */
static guint n_warnings;

static GLogWriterOutput
count_warnings(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  if (level & G_LOG_LEVEL_WARNING) {
    g_atomic_int_inc(&n_warnings);
    return G_LOG_WRITER_HANDLED;
  }
  return g_log_writer_default(level, fields, n_fields, data);
}

static void
test_attach_gaps_signatures_restart(void)
{
  Fake f;
  fake_start(&f);
  Seen s;
  seen_init(&s);
  TdClient *client = td_client_new_attach(f.conn, &callbacks, &s, NULL, NULL);
  g_assert_nonnull(client);
  g_assert_true(spin_until(is_live, &s, NULL, 10));
  g_assert_cmpuint(tr_state_last_seq(s.state), ==, 3);
  /* Wait for the subscription, then publish 4..5, then 8: 6 and 7 are a gap. */
  char sub[64];
  g_assert_cmpint(zmq_recv(f.pub, sub, sizeof sub, 0), >, 0);
  g_assert_cmpint(sub[0], ==, 1);
  fake_add(&f, 8);
  fake_publish(&f, "session-1", 4, 5, false);
  fake_publish(&f, "session-1", 8, 8, false);
  g_assert_true(spin_until(has_n_events, &s, GUINT_TO_POINTER(5), 10));
  assert_consecutive(s.events, 4);
  g_assert_cmpuint(f.n_since, >=, 1);
  /* A forged message is dropped; the real one after it is delivered once. */
  fake_add(&f, 10);
  guint warnings = g_atomic_int_get(&n_warnings);
  fake_publish(&f, "session-1", 9, 10, true);
  fake_publish(&f, "session-1", 9, 10, false);
  fake_publish(&f, "session-1", 7, 10, false); /* a repeat: nothing new */
  g_assert_true(spin_until(has_n_events, &s, GUINT_TO_POINTER(7), 10));
  g_usleep(200000);
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_assert_cmpuint(s.events->len, ==, 7);
  assert_consecutive(s.events, 4);
  g_assert_cmpuint(g_atomic_int_get(&n_warnings), ==, warnings + 1);
  /* The kernel restarted (new session): a new snapshot replaces everything. */
  g_mutex_lock(&f.lock);
  g_free(f.session);
  f.session = g_strdup("session-2");
  g_ptr_array_set_size(f.events, 0);
  for (guint64 seq = 1; seq <= 2; seq++)
    g_ptr_array_add(f.events, fake_event(seq));
  f.snap_seq = 2;
  g_mutex_unlock(&f.lock);
  fake_publish(&f, "session-2", 2, 2, false);
  g_assert_true(spin_until(has_n_snapshots, &s, GUINT_TO_POINTER(2), 10));
  g_assert_cmpuint(tr_state_last_seq(s.state), ==, 2);
  td_client_free(client);
  seen_clear(&s);
  fake_stop(&f);
}

static void
test_attach_unreachable_endpoint_fails(void)
{
  g_autofree char *dir = g_dir_make_tmp("td-client-XXXXXX", NULL);
  g_autofree char *conn = write_temp(dir, "kernel-x.json", "{\"key\": \"k\"}");
  g_autofree char *disc = write_temp(dir, "trellis-debug-x.json",
                                     "{\"events\": \"nonsense\", \"requests\": \"nonsense\"}");
  Seen s;
  seen_init(&s);
  TdClient *client = td_client_new_attach(conn, &callbacks, &s, NULL, NULL);
  g_assert_nonnull(client);
  run_until_finished(&s);
  g_assert_cmpint(g_array_index(s.statuses, TdClientStatus, s.statuses->len - 1), ==,
                  TD_CLIENT_FAILED);
  g_assert_nonnull(strstr(s.message, "cannot connect"));
  td_client_free(client);
  seen_clear(&s);
  g_unlink(conn);
  g_unlink(disc);
  g_rmdir(dir);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_log_set_writer_func(count_warnings, NULL, NULL);
  g_test_add_func("/debugger-client/local/script-events-and-output", test_local_script);
  g_test_add_func("/debugger-client/local/notebook-cells", test_local_notebook);
  g_test_add_func("/debugger-client/local/notebook-goes-on-past-raises-exception",
                  test_local_notebook_expected_error);
  g_test_add_func("/debugger-client/local/error-and-unreadable-files",
                  test_local_error_and_bad_files);
  g_test_add_func("/debugger-client/local/eager-switch-and-free-interrupts",
                  test_local_eager_and_free_interrupts);
  g_test_add_func("/debugger-client/kernel-list/live-newest-first", test_kernel_list);
  g_test_add_func("/debugger-client/discovery-path", test_discovery_path);
  g_test_add_func("/debugger-client/attach/snapshot-live-eager-lost", test_attach);
  g_test_add_func("/debugger-client/attach/unreachable-endpoint-fails",
                  test_attach_unreachable_endpoint_fails);
  g_test_add_func("/debugger-client/attach/gaps-signatures-restart",
                  test_attach_gaps_signatures_restart);
  return g_test_run();
}
