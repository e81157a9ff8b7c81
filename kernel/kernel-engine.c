/* kernel-engine.c — the protocol engine: sockets, threads, the dispatcher, cells' output.
 *
 * Three threads, each owning its sockets (see kernel-private.h):
 *   main       shell and stdin ROUTERs; runs every shell request, cells included, one at a time
 *   control    control ROUTER: kernel_info, interrupt and shutdown are answered while a cell runs
 *   heartbeat  echoes pings
 * The iopub XPUB socket (a PUB that also hears subscriptions, so that kernel_info waits for the
 * client's) is shared by main and control: each message goes out whole under a
 * mutex, straight from the thread that publishes it (no forwarding hop, so output reaches the
 * client with one less thread wake-up).
 * One dispatcher (dispatch()) serves shell and control alike: it looks the request up in the
 * message table, publishes status busy with the request as parent, runs the row's handler and
 * publishes idle. Handlers never publish status themselves. A cell's output is published the
 * moment the interpreter reports it, so all of it is on iopub before the idle.
 *
 * Interrupts come as SIGINT (signal mode) or interrupt_request (message mode); both end in
 * tk_kernel_interrupt(), which forwards to the interpreter only while a cell runs.
 *
 * Trace events: the engine owns one event bus for the process (across resets), which every
 * session of the interpreter emits on; kernel-debug.c publishes it to debuggers from a fourth
 * thread, "tk-debug", and answers their requests there.
 *
 * Jupyter's debug protocol (kernel-dap.c) is served on the control thread; a ZeroMQ monitor
 * of the control socket tells it when a client's connection closes, so that a debugger's
 * client that vanished does not leave the kernel paused at a breakpoint. The control thread
 * also reads the monitors of shell and stdin: ZeroMQ refuses a frame over the size limit
 * (ZMQ_MAXMSGSIZE) by closing its connection before reading it, and a closed connection is all
 * it reports, so each one is logged with that possible cause.
 */
#include "kernel-dap.h"
#include "kernel-debug.h"
#include "kernel-private.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

/* inproc endpoints between the threads. */
#define WAKE_ENDPOINT "inproc://trellis-wake"
#define HB_ENDPOINT   "inproc://trellis-heartbeat-stop"
/* The monitors of the request channels: their closed connections ("%s": the channel). */
#define MONITOR_ENDPOINT "inproc://trellis-monitor-%s"
/* How long closing sockets may wait to deliver the last messages. */
#define LINGER_MS 1000
/* How often a wait for input rechecks the interrupt flag (a signal may land just before poll). */
#define INPUT_POLL_MS 50

struct TkKernel {
  TkConnection *conn;      /* owned */
  TkInterp interp;         /* owned: interp.free runs at the end */
  TkHistory *history;      /* owned */
  TkReplayGuard *replay;   /* owned, shared by main and control */
  char *session;           /* this kernel's session id (header.session) */
  atomic_uint msg_counter; /* numbers msg_ids */
  void *zctx;              /* the ZeroMQ context */

  /* main thread */
  void *shell;          /* ROUTER */
  void *stdin_socket;   /* ROUTER */
  void *wake;           /* PAIR with control: "stop", "interrupt" in; "quit" out */
  void *hb_stop;        /* PAIR to the heartbeat thread */
  TkSender main_sender; /* signer and the shared iopub socket */
  int execution_count;  /* In[n] of the last stored cell */
  GQueue aborting;      /* GPtrArray* frames queued when a cell failed: executes get aborted */

  /* control thread */
  void *control;      /* ROUTER */
  void *control_wake; /* PAIR with main */
  TkSender control_sender;
  GThread *control_thread;

  /* control thread: Jupyter's debug protocol */
  TkDap *dap;                    /* owned */
  void *monitors[TK_N_CHANNELS]; /* PAIR: closed connections of shell, control and stdin */

  /* iopub: main and control publish in turn, under the lock */
  void *iopub_pub;          /* PUB to the clients */
  GMutex iopub_lock;        /* one whole message at a time */
  TkIopubState iopub_state; /* subscriptions seen on iopub (under iopub_lock) */

  /* heartbeat thread */
  void *hb;           /* ROUTER echoing pings */
  void *hb_stop_peer; /* PAIR end of hb_stop */
  GThread *hb_thread;

  /* trace events */
  TrEventBus *bus;          /* the process's event bus, owned */
  TkDebug *debug;           /* publisher and request socket (kernel-debug.c), owned */
  char *events_file;        /* --events: every event as a JSON line, or NULL */
  int64_t max_message_size; /* ZMQ_MAXMSGSIZE of the channels */

  atomic_bool cell_running; /* the interpreter is running code: interrupts are forwarded */
  atomic_bool interrupted;  /* an interrupt arrived while it was */
  atomic_bool stopping;     /* a shutdown_request was answered */
};

/* The kernel SIGINT interrupts; set while tk_kernel_run runs. */
static TkKernel *volatile signal_kernel;

TkInterp *
tk_kernel_interp(TkKernel *kernel)
{
  return &kernel->interp;
}

TkHistory *
tk_kernel_history(TkKernel *kernel)
{
  return kernel->history;
}

const TkConnection *
tk_kernel_connection(TkKernel *kernel)
{
  return kernel->conn;
}

TkDap *
tk_kernel_dap(TkKernel *kernel)
{
  return kernel->dap;
}

/* ---- interrupts and stopping ------------------------------------------------------------ */

void
tk_kernel_interrupt(TkKernel *kernel)
{
  if (!atomic_load(&kernel->cell_running))
    return; /* between cells: nothing to interrupt, and nothing must leak into the next one */
  atomic_store(&kernel->interrupted, true);
  kernel->interp.interrupt(kernel->interp.self);
}

static void
on_sigint(int signo)
{
  TkKernel *kernel = signal_kernel;
  if (kernel)
    tk_kernel_interrupt(kernel);
}

void
tk_kernel_interrupt_from(TkContext *ctx)
{
  TkKernel *k = ctx->kernel;
  tk_kernel_interrupt(k);
  if (ctx->channel == TK_CHANNEL_CONTROL)
    zmq_send(k->control_wake, "interrupt", 9, ZMQ_DONTWAIT);
}

void
tk_kernel_request_stop(TkContext *ctx)
{
  TkKernel *k = ctx->kernel;
  atomic_store(&k->stopping, true);
  tk_kernel_interrupt(k);
  if (ctx->channel == TK_CHANNEL_CONTROL)
    zmq_send(k->control_wake, "stop", 4, ZMQ_DONTWAIT);
}

/* ---- replies and status ------------------------------------------------------------------ */

json_t *
tk_error_content(const char *ename, const char *evalue)
{
  return json_pack("{s:s, s:o, s:o, s:[]}", "status", "error", "ename", tk_json_string(ename, -1),
                   "evalue", tk_json_string(evalue, -1), "traceback");
}

void
tk_reply(TkContext *ctx, const TkMessage *request, json_t *content)
{
  g_return_if_fail(ctx->row && ctx->row->reply_type);
  tk_send(ctx->sender, ctx->socket, request->identities, ctx->row->reply_type, request, content);
}

static void
publish_status(TkContext *ctx, const TkMessage *parent, const char *state)
{
  tk_publish(ctx->sender, "status", parent, json_pack("{s:s}", "execution_state", state));
}

/* The one place busy/idle are published: around every request the table says gets them. */
static void
dispatch(TkContext *ctx, const TkMessage *msg, bool aborting)
{
  const TkHandlerRow *row = tk_handler_find(msg->msg_type);
  bool accepted = row && (row->channels & (1u << ctx->channel));
  bool status = accepted ? row->busy_idle : true;
  if (status)
    publish_status(ctx, msg, "busy");
  if (!accepted) {
    g_printerr("trellis-kernel: %s message '%s' on %s, ignored\n", row ? "misrouted" : "unknown",
               msg->msg_type, tk_channel_name(ctx->channel));
  } else {
    ctx->row = row;
    if (aborting && strcmp(msg->msg_type, "execute_request") == 0)
      tk_handler_abort_execute(ctx, msg);
    else
      row->handler(ctx, msg);
    ctx->row = NULL;
  }
  if (status)
    publish_status(ctx, msg, "idle");
}

/* Check and dispatch one received message. */
static void
serve_frames(TkContext *ctx, GPtrArray *frames, bool aborting)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TkMessage) msg =
      tk_message_parse(frames, ctx->sender->signer, ctx->kernel->replay, &error);
  if (!msg) {
    tk_log_dropped(tk_channel_name(ctx->channel), error);
    return;
  }
  dispatch(ctx, msg, aborting);
}

/* Receive and serve one message from `ctx->socket`, if one is waiting. FALSE when none was. */
static bool
serve_one(TkContext *ctx)
{
  g_autoptr(GPtrArray) frames = tk_recv_frames_fd(ctx->socket, ZMQ_DONTWAIT, &ctx->peer_fd);
  if (!frames)
    return false;
  serve_frames(ctx, frames, false);
  ctx->peer_fd = -1;
  return true;
}

/* ---- a running cell ---------------------------------------------------------------------- */

/* What the TkCellIO callbacks of one execute_request share. */
typedef struct {
  TkContext *ctx;           /* main thread's context */
  const TkMessage *request; /* the execute_request: parent of everything published */
  const TkExecRequest *exec;
  json_t *payload;      /* execute_reply payloads ("page"), owned */
  char *ename, *evalue; /* the error that ended the cell, owned */
  json_t *traceback;    /* its lines, owned */
  char *result_text;    /* text/plain of Out[n], for the history, owned */
  bool exit;            /* exit() or quit(): stop the kernel after the reply */
} Cell;

static void
cell_publish(Cell *cell, const char *msg_type, json_t *content)
{
  if (cell->exec->cell.silent) {
    json_decref(content);
    return;
  }
  tk_publish(cell->ctx->sender, msg_type, cell->request, content);
}

static void
cell_stream(void *data, TkStream stream, const char *text, size_t len)
{
  Cell *cell = data;
  if (len == 0)
    return;
  cell_publish(cell, "stream",
               json_pack("{s:s, s:o}", "name", stream == TK_STREAM_STDERR ? "stderr" : "stdout",
                         "text", tk_json_string(text, len)));
}

static json_t *
metadata_or_empty(json_t *metadata)
{
  return json_is_object(metadata) ? json_incref(metadata) : json_object();
}

static void
cell_display(void *data, json_t *bundle, json_t *metadata, json_t *transient, bool update)
{
  Cell *cell = data;
  g_return_if_fail(json_is_object(bundle));
  cell_publish(cell, update ? "update_display_data" : "display_data",
               json_pack("{s:O, s:o, s:o}", "data", bundle, "metadata", metadata_or_empty(metadata),
                         "transient", metadata_or_empty(transient)));
}

static void
cell_result(void *data, json_t *bundle, json_t *metadata)
{
  Cell *cell = data;
  g_return_if_fail(json_is_object(bundle));
  const char *text = json_string_value(json_object_get(bundle, "text/plain"));
  if (text) {
    g_free(cell->result_text);
    cell->result_text = g_strdup(text);
  }
  cell_publish(cell, "execute_result",
               json_pack("{s:i, s:O, s:o}", "execution_count", cell->exec->cell.execution_count,
                         "data", bundle, "metadata", metadata_or_empty(metadata)));
}

static void
cell_clear_output(void *data, bool wait)
{
  cell_publish(data, "clear_output", json_pack("{s:b}", "wait", wait));
}

static void
cell_error(void *data, const char *ename, const char *evalue, const char *const *traceback,
           size_t n_traceback)
{
  Cell *cell = data;
  g_free(cell->ename);
  g_free(cell->evalue);
  json_decref(cell->traceback);
  cell->ename = g_strdup(ename ? ename : "Error");
  cell->evalue = g_strdup(evalue ? evalue : "");
  cell->traceback = json_array();
  for (size_t i = 0; i < n_traceback; i++)
    json_array_append_new(cell->traceback, tk_json_string(traceback[i], -1));
  cell_publish(cell, "error",
               json_pack("{s:o, s:o, s:O}", "ename", tk_json_string(cell->ename, -1), "evalue",
                         tk_json_string(cell->evalue, -1), "traceback", cell->traceback));
}

static void
cell_payload(void *data, json_t *payload)
{
  Cell *cell = data;
  g_return_if_fail(json_is_object(payload));
  json_array_append(cell->payload, payload);
  if (g_strcmp0(json_string_value(json_object_get(payload, "source")), "ask_exit") == 0 &&
      !json_is_true(json_object_get(payload, "keepkernel")))
    cell->exit = true;
}

/* Drop whatever waits on stdin: a stale input_reply must not answer a new prompt. */
static void
drain_socket(void *socket)
{
  GPtrArray *frames;
  while ((frames = tk_recv_frames(socket, ZMQ_DONTWAIT)))
    g_ptr_array_unref(frames);
}

/* The input_reply to our input_request, or NULL when none came: then `interrupted` says why. */
static char *
wait_input_reply(TkKernel *k)
{
  while (!atomic_load(&k->interrupted) && !atomic_load(&k->stopping)) {
    zmq_pollitem_t items[] = {{k->stdin_socket, 0, ZMQ_POLLIN, 0}, {k->wake, 0, ZMQ_POLLIN, 0}};
    if (zmq_poll(items, 2, INPUT_POLL_MS) < 0 && errno != EINTR)
      return NULL;
    if (items[1].revents & ZMQ_POLLIN)
      drain_socket(k->wake); /* "interrupt"/"stop": the flags say what to do */
    if (!(items[0].revents & ZMQ_POLLIN))
      continue;
    g_autoptr(GPtrArray) frames = tk_recv_frames(k->stdin_socket, ZMQ_DONTWAIT);
    if (!frames)
      continue;
    g_autoptr(GError) error = NULL;
    g_autoptr(TkMessage) msg = tk_message_parse(frames, k->main_sender.signer, k->replay, &error);
    if (!msg) {
      tk_log_dropped("stdin", error);
      continue;
    }
    const char *value = json_string_value(json_object_get(msg->content, "value"));
    if (strcmp(msg->msg_type, "input_reply") != 0 || !value) {
      g_printerr("trellis-kernel: expected an input_reply with a value on stdin, got %s\n",
                 msg->msg_type);
      continue;
    }
    return g_strdup(value);
  }
  return NULL;
}

static char *
cell_input(void *data, const char *prompt, bool password, char **ename, char **evalue)
{
  Cell *cell = data;
  TkKernel *k = cell->ctx->kernel;
  if (!cell->exec->cell.allow_stdin) {
    *ename = g_strdup("StdinNotImplementedError");
    *evalue = g_strdup("input was called, but this frontend does not support input requests.");
    return NULL;
  }
  drain_socket(k->stdin_socket);
  tk_send(&k->main_sender, k->stdin_socket, cell->request->identities, "input_request",
          cell->request,
          json_pack("{s:o, s:b}", "prompt", tk_json_string(prompt ? prompt : "", -1), "password",
                    password));
  char *line = wait_input_reply(k);
  if (!line) {
    *ename = g_strdup("KeyboardInterrupt");
    *evalue = g_strdup("");
  }
  return line;
}

/* user_expressions, evaluated after a successful cell. Transfer full. */
static json_t *
evaluate_expressions(TkKernel *k, json_t *expressions)
{
  json_t *results = json_object();
  const char *name;
  json_t *expr;
  json_object_foreach(expressions, name, expr)
  {
    g_autofree char *ename = NULL, *evalue = NULL;
    json_t *bundle = NULL;
    if (!json_is_string(expr)) {
      ename = g_strdup("TypeError");
      evalue = g_strdup("user expression is not a string");
    } else {
      atomic_store(&k->cell_running, true);
      bundle = k->interp.evaluate(k->interp.self, json_string_value(expr), &ename, &evalue);
      atomic_store(&k->cell_running, false);
      atomic_store(&k->interrupted, false);
    }
    json_t *entry = bundle
                        ? json_pack("{s:s, s:o, s:{}}", "status", "ok", "data", bundle, "metadata")
                        : tk_error_content(ename ? ename : "Error", evalue ? evalue : "");
    json_object_set_new(results, name, entry);
  }
  return results;
}

void
tk_kernel_execute(TkContext *ctx, const TkMessage *request, const TkExecRequest *exec)
{
  TkKernel *k = ctx->kernel;
  TkExecRequest run = *exec;
  if (run.cell.store_history)
    k->execution_count++;
  run.cell.execution_count = k->execution_count;

  Cell cell = {.ctx = ctx, .request = request, .exec = &run, .payload = json_array()};
  cell_publish(
      &cell, "execute_input",
      json_pack("{s:O, s:i}", "code", run.code, "execution_count", run.cell.execution_count));
  const TkCellIO io = {
      .ctx = &cell,
      .stream = cell_stream,
      .display = cell_display,
      .result = cell_result,
      .clear_output = cell_clear_output,
      .error = cell_error,
      .payload = cell_payload,
      .input = cell_input,
  };
  atomic_store(&k->interrupted, false);
  atomic_store(&k->cell_running, true);
  TkExecStatus status = k->interp.execute(k->interp.self, &run.cell, &io);
  atomic_store(&k->cell_running, false);
  atomic_store(&k->interrupted, false);

  json_t *reply;
  if (status == TK_EXEC_OK) {
    reply = json_pack("{s:s, s:i, s:o, s:o}", "status", "ok", "execution_count",
                      run.cell.execution_count, "user_expressions",
                      evaluate_expressions(k, run.user_expressions), "payload", cell.payload);
  } else if (status == TK_EXEC_ERROR) {
    reply = tk_error_content(cell.ename ? cell.ename : "Error", cell.evalue ? cell.evalue : "");
    if (cell.traceback)
      json_object_set(reply, "traceback", cell.traceback);
    json_object_set_new(reply, "execution_count", json_integer(run.cell.execution_count));
    json_object_set_new(reply, "user_expressions", json_object());
    json_object_set_new(reply, "payload", cell.payload);
  } else {
    reply =
        json_pack("{s:s, s:i}", "status", "aborted", "execution_count", run.cell.execution_count);
    json_decref(cell.payload);
  }
  /* stop_on_error: the requests queued now, before the client can
   * know of the failure, are served after this one with their executes aborted. */
  if (status != TK_EXEC_OK && run.stop_on_error) {
    GPtrArray *frames;
    while ((frames = tk_recv_frames(k->shell, ZMQ_DONTWAIT)))
      g_queue_push_tail(&k->aborting, frames);
  }
  tk_reply(ctx, request, reply);

  if (run.cell.store_history)
    tk_history_add(k->history, run.cell.execution_count, run.cell.code, cell.result_text);
  if (cell.exit)
    tk_kernel_request_stop(ctx); /* exit(): as a shutdown_request, after its reply */
  g_free(cell.ename);
  g_free(cell.evalue);
  json_decref(cell.traceback);
  g_free(cell.result_text);
}

/* ---- threads ------------------------------------------------------------------------------ */

/* The channels whose closed connections are watched. */
static const TkChannel monitored[] = {TK_CHANNEL_SHELL, TK_CHANNEL_CONTROL, TK_CHANNEL_STDIN};

/* One event of a channel's monitor: a connection closed. It is logged (ZeroMQ closes a
 * connection that sends a frame over the limit, and says nothing else), and on control the
 * debug session of its client ends. A monitor event is two frames: event number and value (the
 * fd), then the endpoint. */
static void
read_monitor(TkKernel *k, TkChannel channel)
{
  g_autoptr(GPtrArray) frames = tk_recv_frames(k->monitors[channel], ZMQ_DONTWAIT);
  if (!frames || frames->len < 1)
    return;
  gsize size;
  const guint8 *head = g_bytes_get_data(frames->pdata[0], &size);
  if (size < 6)
    return;
  uint16_t event;
  uint32_t value;
  memcpy(&event, head, sizeof event);
  memcpy(&value, head + 2, sizeof value);
  if (event != ZMQ_EVENT_DISCONNECTED)
    return;
  g_printerr("trellis-kernel: %s: a client's connection closed (by the client, or by the kernel "
             "for a frame over the %" G_GINT64_FORMAT "-byte limit: --max-message-size)\n",
             tk_channel_name(channel), (gint64)k->max_message_size);
  if (channel == TK_CHANNEL_CONTROL)
    tk_dap_peer_gone(k->dap, (int)value);
}

static gpointer
control_main(gpointer data)
{
  TkKernel *k = data;
  TkContext ctx = {k, TK_CHANNEL_CONTROL, k->control, &k->control_sender, NULL, -1};
  bool quit = false;
  while (!quit && !atomic_load(&k->stopping)) {
    zmq_pollitem_t items[2 + G_N_ELEMENTS(monitored)] = {{k->control, 0, ZMQ_POLLIN, 0},
                                                         {k->control_wake, 0, ZMQ_POLLIN, 0}};
    for (size_t i = 0; i < G_N_ELEMENTS(monitored); i++)
      items[2 + i] = (zmq_pollitem_t){k->monitors[monitored[i]], 0, ZMQ_POLLIN, 0};
    if (zmq_poll(items, G_N_ELEMENTS(items), -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    while (items[0].revents & ZMQ_POLLIN && !atomic_load(&k->stopping) && serve_one(&ctx))
      ;
    if (items[1].revents & ZMQ_POLLIN) {
      char word[16];
      quit = zmq_recv(k->control_wake, word, sizeof word, ZMQ_DONTWAIT) == 4 &&
             memcmp(word, "quit", 4) == 0;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(monitored); i++)
      if (items[2 + i].revents & ZMQ_POLLIN)
        read_monitor(k, monitored[i]);
  }
  /* A debugger stopped at a breakpoint lets the cell finish; its events stop before iopub. */
  tk_dap_close(k->dap);
  zmq_socket_monitor(k->control, NULL, 0);
  for (size_t i = 0; i < G_N_ELEMENTS(monitored); i++)
    g_clear_pointer(&k->monitors[monitored[i]], zmq_close);
  zmq_close(k->control);
  zmq_close(k->control_wake);
  return NULL;
}

/* Echo every ping (ROUTER: [id, …, payload] goes back to id) until told to stop. */
/* ---- the parent ---------------------------------------------------------------------------- */

/* A kernel whose client died must not run on (an orphan stuck in a graph loop burns a core for
 * good). The parent at start-up, and JPY_PARENT_PID when the client set it (Jupyter's launchers
 * do, and ipykernel watches it): the parent is gone when the kernel was handed to another
 * process (init or a subreaper) or that pid no longer exists. */
static pid_t start_parent;
static pid_t jpy_parent;

static void
remember_parent(void)
{
  start_parent = getppid();
  const char *jpy = g_getenv("JPY_PARENT_PID");
  gint64 pid = jpy ? g_ascii_strtoll(jpy, NULL, 10) : 0;
  jpy_parent = pid > 1 && pid <= G_MAXINT ? (pid_t)pid : 0;
}

static bool
parent_gone(void)
{
  if (start_parent > 1 && getppid() != start_parent)
    return true;
  return jpy_parent > 0 && kill(jpy_parent, 0) < 0 && errno == ESRCH;
}

/* Ends the kernel as SIGTERM does (the discovery file goes, kernel-debug.c): whatever the main
 * thread runs, even a graph that never polls. */
static void
exit_orphaned(void)
{
  g_printerr("trellis-kernel: the process that started it is gone; exiting\n");
  raise(SIGTERM);
}

/* How often the heartbeat thread looks at the parent. */
#define PARENT_POLL_MS 500

static gpointer
heartbeat_main(gpointer data)
{
  TkKernel *k = data;
  for (;;) {
    zmq_pollitem_t items[] = {{k->hb, 0, ZMQ_POLLIN, 0}, {k->hb_stop_peer, 0, ZMQ_POLLIN, 0}};
    if (zmq_poll(items, 2, PARENT_POLL_MS) < 0 && errno != EINTR)
      break;
    if (parent_gone())
      exit_orphaned();
    if (items[1].revents & ZMQ_POLLIN)
      break;
    if (!(items[0].revents & ZMQ_POLLIN))
      continue;
    for (bool more = true; more;) {
      zmq_msg_t part;
      zmq_msg_init(&part);
      if (zmq_msg_recv(&part, k->hb, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&part);
        break;
      }
      more = zmq_msg_more(&part);
      zmq_msg_send(&part, k->hb, more ? ZMQ_SNDMORE : 0);
      zmq_msg_close(&part);
    }
  }
  zmq_close(k->hb);
  zmq_close(k->hb_stop_peer);
  return NULL;
}

/* ---- sockets ------------------------------------------------------------------------------ */

static void *
new_socket(TkKernel *k, int type, GError **error)
{
  void *socket = zmq_socket(k->zctx, type);
  if (!socket) {
    g_set_error(error, TK_ERROR, TK_ERROR_SOCKET, "zmq_socket: %s", zmq_strerror(errno));
    return NULL;
  }
  int linger = LINGER_MS;
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
  return socket;
}

/* A socket of `type` bound to the channel's endpoint; a port of 0 becomes the bound one. */
static void *
bind_channel(TkKernel *k, TkChannel channel, int type, GError **error)
{
  void *socket = new_socket(k, type, error);
  if (!socket)
    return NULL;
  /* iopub takes only subscriptions and heartbeat only pings, both small and never signed. */
  bool small = type == ZMQ_XPUB || channel == TK_CHANNEL_HB;
  int64_t max_size = small ? TK_MAX_SUBSCRIPTION_SIZE : k->max_message_size;
  zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size);
  if (type == ZMQ_ROUTER) {
    int on = 1;
    zmq_setsockopt(socket, ZMQ_ROUTER_HANDOVER, &on, sizeof on);
  }
  if (type == ZMQ_XPUB) {
    /* Every print is a message at once; a subscriber slow to read must not lose them. */
    int hwm = 1000000;
    zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
  }
  if (k->conn->ports[channel] == 0 && strcmp(k->conn->transport, "ipc") == 0)
    k->conn->ports[channel] = (int)channel + 1;
  g_autofree char *endpoint = tk_connection_endpoint(k->conn, channel);
  if (zmq_bind(socket, endpoint) < 0) {
    g_set_error(error, TK_ERROR, TK_ERROR_SOCKET, "cannot bind %s to %s: %s",
                tk_channel_name(channel), endpoint, zmq_strerror(errno));
    zmq_close(socket);
    return NULL;
  }
  if (k->conn->ports[channel] == 0) {
    char bound[256];
    size_t len = sizeof bound;
    if (zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, bound, &len) == 0) {
      const char *colon = strrchr(bound, ':');
      k->conn->ports[channel] = colon ? atoi(colon + 1) : 0;
    }
  }
  return socket;
}

static void *
inproc(TkKernel *k, int type, const char *endpoint, bool bind, GError **error)
{
  void *socket = new_socket(k, type, error);
  if (!socket)
    return NULL;
  if ((bind ? zmq_bind : zmq_connect)(socket, endpoint) < 0) {
    g_set_error(error, TK_ERROR, TK_ERROR_SOCKET, "%s: %s", endpoint, zmq_strerror(errno));
    zmq_close(socket);
    return NULL;
  }
  return socket;
}

/* The debug thread's eager switch (kernel-debug.c). */
static void
set_eager(bool enabled, gpointer data)
{
  TkKernel *k = data;
  if (k->interp.set_eager)
    k->interp.set_eager(k->interp.self, enabled);
}

static gboolean
open_sockets(TkKernel *k, GError **error)
{
  bool any_port_zero = false;
  for (int c = 0; c < TK_N_CHANNELS; c++)
    any_port_zero |= k->conn->ports[c] == 0;
  if (!(k->shell = bind_channel(k, TK_CHANNEL_SHELL, ZMQ_ROUTER, error)) ||
      !(k->control = bind_channel(k, TK_CHANNEL_CONTROL, ZMQ_ROUTER, error)) ||
      !(k->stdin_socket = bind_channel(k, TK_CHANNEL_STDIN, ZMQ_ROUTER, error)) ||
      !(k->iopub_pub = bind_channel(k, TK_CHANNEL_IOPUB, ZMQ_XPUB, error)) ||
      !(k->hb = bind_channel(k, TK_CHANNEL_HB, ZMQ_ROUTER, error)))
    return FALSE;
  k->main_sender.iopub = k->control_sender.iopub = k->iopub_pub;
  if (!(k->wake = inproc(k, ZMQ_PAIR, WAKE_ENDPOINT, true, error)) ||
      !(k->control_wake = inproc(k, ZMQ_PAIR, WAKE_ENDPOINT, false, error)) ||
      !(k->hb_stop_peer = inproc(k, ZMQ_PAIR, HB_ENDPOINT, true, error)) ||
      !(k->hb_stop = inproc(k, ZMQ_PAIR, HB_ENDPOINT, false, error)))
    return FALSE;
  void *channel_sockets[] = {[TK_CHANNEL_SHELL] = k->shell,
                             [TK_CHANNEL_CONTROL] = k->control,
                             [TK_CHANNEL_STDIN] = k->stdin_socket};
  for (size_t i = 0; i < G_N_ELEMENTS(monitored); i++) {
    TkChannel c = monitored[i];
    g_autofree char *endpoint = g_strdup_printf(MONITOR_ENDPOINT, tk_channel_name(c));
    if (zmq_socket_monitor(channel_sockets[c], endpoint, ZMQ_EVENT_DISCONNECTED) < 0) {
      g_set_error(error, TK_ERROR, TK_ERROR_SOCKET, "monitor of %s: %s", tk_channel_name(c),
                  zmq_strerror(errno));
      return FALSE;
    }
    if (!(k->monitors[c] = inproc(k, ZMQ_PAIR, endpoint, false, error)))
      return FALSE;
  }
  if (any_port_zero && !tk_connection_save(k->conn, error))
    return FALSE;
  /* After the connection file has its ports: the discovery file names it. */
  k->debug = tk_debug_new(k->zctx, k->conn, k->main_sender.signer, k->session, k->bus,
                          k->events_file, set_eager, k, error);
  return k->debug != NULL;
}

/* Close what open_sockets made and no thread took over (start-up failed half way). */
static void
close_unowned_sockets(TkKernel *k)
{
  void **all[] = {&k->shell, &k->control,      &k->stdin_socket, &k->iopub_pub, &k->hb,
                  &k->wake,  &k->control_wake, &k->hb_stop_peer, &k->hb_stop};
  for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
    if (*all[i]) {
      zmq_close(*all[i]);
      *all[i] = NULL;
    }
  for (size_t i = 0; i < G_N_ELEMENTS(monitored); i++)
    g_clear_pointer(&k->monitors[monitored[i]], zmq_close);
}

/* Start control and heartbeat with SIGINT blocked, so that it lands on main. */
static void
start_threads(TkKernel *k)
{
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  k->hb_thread = g_thread_new("tk-heartbeat", heartbeat_main, k);
  k->control_thread = g_thread_new("tk-control", control_main, k);
  tk_debug_start(k->debug);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void
install_sigint(TkKernel *k, struct sigaction *old)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: a wait for input wakes up with EINTR */
  signal_kernel = k;
  sigaction(SIGINT, &sa, old);
}

/* ---- the run loop ------------------------------------------------------------------------- */

/* After a failed cell with stop_on_error: the execute_requests that were queued when it failed
 * are answered "aborted"; other requests among them are served as usual. */
static void
serve_aborting(TkContext *ctx)
{
  GPtrArray *frames;
  while ((frames = g_queue_pop_head(&ctx->kernel->aborting))) {
    serve_frames(ctx, frames, true);
    g_ptr_array_unref(frames);
  }
}

/* Requests in a burst — a client that sends the next request as soon as the last one's idle
 * is in: nbclient running a notebook, a test suite — arrive within a millisecond or so of the
 * last idle. While they do, the shell loop keeps polling for a little longer than the recent
 * gap before it sleeps: a thread woken from poll() puts a scheduler wake-up on the round trip,
 * tens of microseconds on a virtual machine. Sparse requests (a person typing) never spin. */
#define SPIN_MAX_US 1000

typedef struct {
  gint64 idle_at; /* when the last request was answered (monotonic µs), 0 before one */
  double gap_us;  /* moving average of the gaps from an idle to the next request */
} Burst;

/* How long to poll before sleeping: twice the recent gap, while requests come in bursts. */
static gint64
burst_spin_us(const Burst *b)
{
  return b->idle_at && b->gap_us < SPIN_MAX_US ? (gint64)MIN(2 * b->gap_us, SPIN_MAX_US) : 0;
}

static void
burst_request_arrived(Burst *b)
{
  if (!b->idle_at)
    return;
  double gap = (double)MIN(g_get_monotonic_time() - b->idle_at, 10 * SPIN_MAX_US);
  b->gap_us = 0.75 * b->gap_us + 0.25 * gap;
}

/* Wait for the shell or the wake socket: poll without sleeping for the burst's spin, then
 * block. Returns zmq_poll's result. */
static int
wait_shell(TkKernel *k, zmq_pollitem_t items[2], Burst *burst)
{
  gint64 spin = burst_spin_us(burst);
  if (spin > 0) {
    gint64 until = burst->idle_at + spin;
    int n;
    while ((n = zmq_poll(items, 2, 0)) == 0 && !atomic_load(&k->stopping) &&
           g_get_monotonic_time() < until)
      ;
    if (n != 0)
      return n;
  }
  return zmq_poll(items, 2, -1);
}

static void
main_loop(TkKernel *k)
{
  TkContext ctx = {k, TK_CHANNEL_SHELL, k->shell, &k->main_sender, NULL, -1};
  Burst burst = {0, 10.0 * SPIN_MAX_US};
  while (!atomic_load(&k->stopping)) {
    zmq_pollitem_t items[] = {{k->shell, 0, ZMQ_POLLIN, 0}, {k->wake, 0, ZMQ_POLLIN, 0}};
    if (wait_shell(k, items, &burst) < 0) {
      if (errno == EINTR)
        continue;
      g_printerr("trellis-kernel: zmq_poll: %s\n", zmq_strerror(errno));
      break;
    }
    if (items[1].revents & ZMQ_POLLIN)
      drain_socket(k->wake);
    if (items[0].revents & ZMQ_POLLIN)
      burst_request_arrived(&burst);
    while (items[0].revents & ZMQ_POLLIN && !atomic_load(&k->stopping) && serve_one(&ctx)) {
      tk_history_flush(k->history); /* the request's idle is out */
      burst.idle_at = g_get_monotonic_time();
      serve_aborting(&ctx);
    }
  }
}

static void
stop_threads(TkKernel *k)
{
  if (k->control_thread) {
    zmq_send(k->wake, "quit", 4, ZMQ_DONTWAIT);
    g_thread_join(g_steal_pointer(&k->control_thread));
  }
  if (k->hb_thread) {
    zmq_send(k->hb_stop, "", 0, 0);
    g_thread_join(g_steal_pointer(&k->hb_thread));
  }
  tk_debug_stop(k->debug);
  zmq_close(k->shell);
  zmq_close(k->stdin_socket);
  zmq_close(k->wake);
  zmq_close(k->hb_stop);
  zmq_close(k->iopub_pub);
}

static void
kernel_free(TkKernel *k)
{
  tk_debug_stop(k->debug); /* the debug thread may call the interpreter: gone first */
  if (k->interp.free)
    k->interp.free(k->interp.self);
  tk_debug_free(k->debug);
  tk_dap_free(k->dap);
  if (k->bus)
    tr_event_bus_unref(k->bus);
  g_free(k->events_file);
  tk_history_free(k->history);
  tk_replay_guard_free(k->replay);
  tr_wire_signer_free(k->main_sender.signer);
  tr_wire_signer_free(k->control_sender.signer);
  tk_connection_free(k->conn);
  g_queue_clear_full(&k->aborting, (GDestroyNotify)g_ptr_array_unref);
  g_mutex_clear(&k->iopub_lock);
  g_free(k->session);
  g_free(k);
}

gboolean
tk_kernel_run(const char *connection_file, const TkKernelOptions *options, TkInterp *interp,
              GError **error)
{
  remember_parent();
  TkKernel *k = g_new0(TkKernel, 1);
  k->interp = *interp;
  k->events_file = g_strdup(options->events_file);
  k->max_message_size =
      options->max_message_size > 0 ? options->max_message_size : TK_MAX_FRAME_SIZE;
  k->bus = tr_event_bus_new();
  /* The debug module's state keeps what debuggers need; the bus itself keeps nothing. */
  tr_event_bus_set_history_limit(k->bus, 0);
  tr_event_bus_set_carry_graphs(k->bus, true);
  if (k->interp.use_events)
    k->interp.use_events(k->interp.self, k->bus);
  if (options->eager && k->interp.set_eager)
    k->interp.set_eager(k->interp.self, true); /* on the session's registry, made just now */
  k->session = g_uuid_string_random();
  k->history = tk_history_new();
  k->replay = tk_replay_guard_new(TK_REPLAY_HISTORY);
  k->main_sender.session = k->control_sender.session = k->session;
  k->main_sender.counter = k->control_sender.counter = &k->msg_counter;
  g_mutex_init(&k->iopub_lock);
  k->main_sender.iopub_lock = k->control_sender.iopub_lock = &k->iopub_lock;
  k->main_sender.iopub_state = k->control_sender.iopub_state = &k->iopub_state;

  gboolean ok = FALSE;
  if (!(k->conn = tk_connection_load(connection_file, error)) ||
      !(k->main_sender.signer = tk_signer_new(k->conn->signature_scheme, k->conn->key, error))) {
    kernel_free(k);
    return FALSE;
  }
  k->control_sender.signer = tr_wire_signer_copy(k->main_sender.signer);
  if (!tr_wire_signer_enabled(k->main_sender.signer))
    g_printerr("trellis-kernel: the connection file has no key: messages are not signed\n");

  k->zctx = zmq_ctx_new();
  if (open_sockets(k, error)) {
    k->dap = tk_dap_new(&k->interp, &k->control_sender);
    struct sigaction old_sigint;
    install_sigint(k, &old_sigint);
    start_threads(k);
    main_loop(k);
    stop_threads(k);
    signal_kernel = NULL;
    sigaction(SIGINT, &old_sigint, NULL);
    ok = TRUE;
  } else {
    close_unowned_sockets(k);
  }
  zmq_ctx_term(k->zctx);
  kernel_free(k);
  return ok;
}
