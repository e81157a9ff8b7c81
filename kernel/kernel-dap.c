/* kernel-dap.c — Jupyter's debug protocol, with debugpy behind it.
 *
 * Jupyter's debug protocol is the Debug Adapter Protocol (DAP) carried in Jupyter messages: a
 * debug_request's content is a DAP request, its debug_reply a DAP response, and DAP events go
 * out on iopub as debug_event. As ipykernel does, the kernel runs debugpy in its own process
 * (the interpreter's `debug` op "listen" calls debugpy.listen, which spawns debugpy's adapter
 * as a separate process) and this module is the adapter's client over TCP. Most requests are
 * forwarded; these are Jupyter's own or are rewritten:
 *   initialize         the first one starts debugpy and connects to its adapter
 *   attach             gets the adapter's address; the init sequence (wait for "initialized",
 *                      send configurationDone) runs before its response comes back
 *   configurationDone  answered here: attach sent it already
 *   disconnect         forwarded without ever terminating the kernel; the session is forgotten
 *   dumpCell           writes a cell under its dumped path (kernel-cellfile.h)
 *   debugInfo          the session: breakpoints by source, stopped threads, the hash facts
 *   setBreakpoints     remembered per source for debugInfo, forwarded
 *   stackTrace         forwarded; the kernel's own frames below the cell's are cut off
 *   variables          at a stop forwarded, otherwise a global's children (the interpreter)
 *   richInspectVariables  at a stop an evaluate in the frame, otherwise the interpreter
 *   inspectVariables, modules, source (of no file)  the interpreter
 *   copyToGlobals      a setExpression of globals()[dst] in the source frame
 * Variables the notebook machinery defines (In, Out, _i1, get_ipython…) are left out of every
 * variable list.
 *
 * Threads. Requests are served on the control thread one at a time: it sends to the adapter
 * and waits, at most TIMEOUT_S, for the response with the sequence number it gave the request
 * (every request is renumbered, so the client's numbers and ours never collide; the response
 * gets the client's back). The reader thread "tk-dap" reads the adapter: a response wakes the
 * control thread, an event is published from the reader itself, after the bookkeeping of
 * stopped threads. The session ends on disconnect, when the client that initialized it closes
 * its control connection (tk_dap_peer_gone) and at shutdown; debugpy resumes whatever it had
 * stopped, so a vanished client never leaves the kernel paused. debugpy itself keeps listening:
 * a later initialize connects to the same adapter again.
 */
#include "kernel-dap.h"
#include "kernel-cellfile.h"

#include <errno.h>
#include <netdb.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* How long a request waits for debugpy's answer. */
#define TIMEOUT_S 10
/* How long the end of a session waits for its disconnect to be answered. */
#define DISCONNECT_TIMEOUT_S 5
/* The largest DAP message accepted from the adapter, and the longest header block. */
#define MAX_MESSAGE ((gsize)1 << 30)
#define MAX_HEADER  4096

struct TkDap {
  TkInterp *interp; /* borrowed: the engine's */
  TkSender sender;  /* debug_event's: signer owned, the rest borrowed */

  /* control thread only */
  char *host;              /* the adapter's address for clients, once "listen" succeeded */
  int port;                /* … and its port */
  bool started;            /* initialize succeeded: a session is open */
  bool attached;           /* the init sequence ran on this connection */
  int owner_fd;            /* the control connection that initialized the session, or -1 */
  json_int_t reply_seq;    /* numbers the responses made here */
  GHashTable *breakpoints; /* source path (owned) -> its breakpoints (json array, owned) */
  GThread *reader;         /* reads `fd` while connected */

  GMutex write_lock; /* one whole message at a time on `fd` (control and reader write) */

  GMutex lock;             /* guards what follows, shared with the reader */
  GCond changed;           /* a response, "initialized" or the end of the connection */
  int fd;                  /* TCP socket to the adapter, -1 when none; closed on control */
  bool connected;          /* the reader still reads `fd` */
  bool initialized;        /* the adapter sent "initialized" on this connection */
  json_int_t next_seq;     /* our sequence numbers to the adapter */
  GHashTable *waiting;     /* our seq -> its response (json, owned), NULL until it came */
  GHashTable *stop_events; /* seq of our threads request -> the stopped event it completes */
  GHashTable *stopped;     /* thread ids (GINT_TO_POINTER) stopped now */
  GBytes *parent;          /* header of the latest debug_request: debug_event's parent */
};

/* ---- responses ------------------------------------------------------------------------- */

/* A request as the handlers see it; everything borrowed from the debug_request. */
typedef struct {
  json_int_t seq;      /* the client's */
  const char *command; /* the DAP command */
  json_t *content;     /* the whole DAP request */
  json_t *arguments;   /* an object ({} when absent) */
  int peer_fd;         /* the control connection it came over, or -1 */
} Request;

/* A DAP response made here. `body` is stolen (NULL: none). Transfer full. */
static json_t *
response(TkDap *dap, json_int_t request_seq, const char *command, json_t *body)
{
  json_t *r = json_pack("{s:s, s:I, s:I, s:b, s:o}", "type", "response", "seq", ++dap->reply_seq,
                        "request_seq", request_seq, "success", true, "command",
                        tk_json_string(command, -1));
  if (body)
    json_object_set_new(r, "body", body);
  return r;
}

/* A failed response saying why (printf-style). Transfer full. */
G_GNUC_PRINTF(4, 5)
static json_t *
failure(TkDap *dap, json_int_t request_seq, const char *command, const char *format, ...)
{
  va_list ap;
  va_start(ap, format);
  g_autofree char *message = g_strdup_vprintf(format, ap);
  va_end(ap);
  json_t *r = response(dap, request_seq, command, json_object());
  json_object_set_new(r, "success", json_false());
  json_object_set_new(r, "message", tk_json_string(message, -1));
  return r;
}

static json_t *
fail(TkDap *dap, const Request *req, const char *message)
{
  return failure(dap, req->seq, req->command, "%s", message);
}

/* ---- what the notebook machinery defines --------------------------------------------- */

/* Names a notebook user did not define: IPython's history variables, its helpers, dunders. */
static bool
hidden_variable(const char *name)
{
  static const char *const names[] = {
      "In",  "Out", "get_ipython", "exit", "quit", "debugpy", "_",   "__",
      "___", "_i",  "_ii",         "_iii", "_ih",  "_oh",     "_dh",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    if (strcmp(name, names[i]) == 0)
      return true;
  size_t len = strlen(name);
  if (len > 4 && g_str_has_prefix(name, "__") && g_str_has_suffix(name, "__"))
    return true;
  /* _1, _i1: outputs and inputs by number */
  const char *digits = g_str_has_prefix(name, "_i") ? name + 2 : name + 1;
  if (name[0] == '_' && *digits) {
    while (g_ascii_isdigit(*digits))
      digits++;
    return *digits == '\0';
  }
  return false;
}

/* A Python identifier (what richInspectVariables and copyToGlobals put into code). */
static bool
is_identifier(const char *name)
{
  return g_regex_match_simple("^[_\\p{L}][_\\p{L}\\p{N}]*$", name, 0, 0);
}

/* Drops hidden variables from a response's body.variables, in place. */
static void
filter_variables(json_t *resp)
{
  json_t *vars = json_object_get(json_object_get(resp, "body"), "variables");
  if (!json_is_array(vars))
    return;
  for (size_t i = json_array_size(vars); i-- > 0;) {
    const char *name = json_string_value(json_object_get(json_array_get(vars, i), "name"));
    if (name && hidden_variable(name))
      json_array_remove(vars, i);
  }
}

/* ---- the connection to the adapter ------------------------------------------------------ */

static bool
send_all(int fd, const char *data, size_t len)
{
  while (len > 0) {
    ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    len -= (size_t)n;
  }
  return true;
}

/* Writes one DAP message (borrowed), Content-Length framed. */
static bool
write_message(TkDap *dap, int fd, json_t *message)
{
  g_autofree char *text = json_dumps(message, JSON_COMPACT);
  if (!text)
    return false;
  g_autofree char *header = g_strdup_printf("Content-Length: %zu\r\n\r\n", strlen(text));
  g_mutex_lock(&dap->write_lock);
  bool ok = send_all(fd, header, strlen(header)) && send_all(fd, text, strlen(text));
  g_mutex_unlock(&dap->write_lock);
  return ok;
}

/* Sends a copy of `request` (borrowed) numbered with our next seq, which is returned; the
 * response will be kept for wait_response. -1 when the connection is gone. */
static json_int_t
send_request(TkDap *dap, json_t *request)
{
  g_autoptr(json_t) copy = json_deep_copy(request);
  g_mutex_lock(&dap->lock);
  int fd = dap->connected ? dap->fd : -1;
  json_int_t seq = ++dap->next_seq;
  if (fd >= 0)
    g_hash_table_insert(dap->waiting, GINT_TO_POINTER((int)seq), NULL);
  g_mutex_unlock(&dap->lock);
  if (fd < 0)
    return -1;
  json_object_set_new(copy, "seq", json_integer(seq));
  json_object_set_new(copy, "type", json_string("request"));
  if (!write_message(dap, fd, copy)) {
    g_mutex_lock(&dap->lock);
    g_hash_table_remove(dap->waiting, GINT_TO_POINTER((int)seq));
    g_mutex_unlock(&dap->lock);
    return -1;
  }
  return seq;
}

/* The response to our request `seq`, waiting until `deadline` (monotonic µs). NULL when it did
 * not come (then `*why` says so, transfer full). Transfer full. */
static json_t *
wait_response(TkDap *dap, json_int_t seq, gint64 deadline, char **why)
{
  gpointer key = GINT_TO_POINTER((int)seq);
  json_t *resp = NULL;
  g_mutex_lock(&dap->lock);
  while (!(resp = g_hash_table_lookup(dap->waiting, key)) && dap->connected)
    if (!g_cond_wait_until(&dap->changed, &dap->lock, deadline))
      break;
  resp = g_hash_table_lookup(dap->waiting, key);
  bool connected = dap->connected;
  g_hash_table_steal(dap->waiting, key);
  g_mutex_unlock(&dap->lock);
  if (!resp)
    *why = g_strdup(connected ? "debugpy did not answer in time"
                              : "the connection to debugpy is closed");
  return resp;
}

static gint64
deadline_in(int seconds)
{
  return g_get_monotonic_time() + (gint64)seconds * G_USEC_PER_SEC;
}

/* Forwards the client's request and returns debugpy's response with the client's request_seq.
 * Never NULL. Transfer full. */
static json_t *
forward(TkDap *dap, const Request *req, json_t *request, int timeout_s)
{
  json_int_t seq = send_request(dap, request);
  if (seq < 0)
    return fail(dap, req, "the connection to debugpy is closed");
  g_autofree char *why = NULL;
  json_t *resp = wait_response(dap, seq, deadline_in(timeout_s), &why);
  if (!resp)
    return failure(dap, req->seq, req->command, "%s: %s", req->command, why);
  json_object_set_new(resp, "request_seq", json_integer(req->seq));
  json_object_set_new(resp, "command", tk_json_string(req->command, -1)); /* copyToGlobals' */
  return resp;
}

/* A TCP connection to host:port, or -1. */
static int
connect_tcp(const char *host, int port)
{
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *found = NULL;
  char service[16];
  g_snprintf(service, sizeof service, "%d", port);
  if (getaddrinfo(host, service, &hints, &found) != 0)
    return -1;
  int fd = -1;
  for (struct addrinfo *a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

/* ---- events --------------------------------------------------------------------------------- */

static void
publish_event(TkDap *dap, json_t *event)
{
  g_mutex_lock(&dap->lock);
  GBytes *parent = dap->parent ? g_bytes_ref(dap->parent) : NULL;
  g_mutex_unlock(&dap->lock);
  TkMessage parent_msg = {.header_raw = parent};
  tk_publish(&dap->sender, "debug_event", parent ? &parent_msg : NULL, json_incref(event));
  if (parent)
    g_bytes_unref(parent);
}

/* Tells the interpreter's tf module what the debugger does (kernel-py-interp.c: tf_stopped,
 * tf_continued, tf_breakpoints; tf.h says why): the trace events then show a pause, and a
 * cached call that cannot stop at a breakpoint. `arguments` is stolen. Never with dap->lock
 * held (the interpreter takes the GIL). */
static void
tell_tf(TkDap *dap, const char *command, json_t *arguments)
{
  g_autoptr(json_t) args = arguments ? arguments : json_object();
  if (!dap->interp->debug)
    return;
  g_autofree char *message = NULL;
  json_t *r = dap->interp->debug(dap->interp->self, command, args, &message);
  if (!r)
    g_printerr("trellis-kernel: debugger: %s: %s\n", command, message ? message : "failed");
  json_decref(r);
}

/* A stop's trace event: where the main thread stopped, read by the interpreter. */
static void
tell_tf_stopped(TkDap *dap, json_t *event)
{
  json_t *body = json_object_get(event, "body");
  json_t *reason = json_object_get(body, "reason");
  json_t *description = json_object_get(body, "description");
  json_t *args = json_object();
  if (json_is_string(reason))
    json_object_set(args, "reason", reason);
  if (json_is_string(description))
    json_object_set(args, "description", description);
  tell_tf(dap, "tf_stopped", args);
}

static int
thread_id(json_t *body)
{
  return (int)json_integer_value(json_object_get(body, "threadId"));
}

/* A stopped event with every thread stopped is published once a threads request says which
 * threads those are (debugInfo lists them). Runs on the reader. */
static void
ask_stopped_threads(TkDap *dap, json_t *event)
{
  g_autoptr(json_t) request = json_pack("{s:s, s:s}", "type", "request", "command", "threads");
  g_mutex_lock(&dap->lock);
  int fd = dap->fd;
  json_int_t seq = ++dap->next_seq;
  g_hash_table_insert(dap->stop_events, GINT_TO_POINTER((int)seq), json_incref(event));
  g_mutex_unlock(&dap->lock);
  json_object_set_new(request, "seq", json_integer(seq));
  if (!write_message(dap, fd, request)) {
    g_mutex_lock(&dap->lock);
    g_hash_table_remove(dap->stop_events, GINT_TO_POINTER((int)seq));
    g_hash_table_add(dap->stopped, GINT_TO_POINTER(thread_id(json_object_get(event, "body"))));
    g_mutex_unlock(&dap->lock);
    tell_tf_stopped(dap, event);
    publish_event(dap, event);
  }
}

static void
on_event(TkDap *dap, json_t *event)
{
  const char *name = json_string_value(json_object_get(event, "event"));
  json_t *body = json_object_get(event, "body");
  if (g_strcmp0(name, "stopped") == 0 && json_is_true(json_object_get(body, "allThreadsStopped"))) {
    ask_stopped_threads(dap, event);
    return;
  }
  g_mutex_lock(&dap->lock);
  if (g_strcmp0(name, "initialized") == 0) {
    dap->initialized = true;
    g_cond_broadcast(&dap->changed);
  } else if (g_strcmp0(name, "stopped") == 0) {
    g_hash_table_add(dap->stopped, GINT_TO_POINTER(thread_id(body)));
  } else if (g_strcmp0(name, "continued") == 0) {
    if (json_is_true(json_object_get(body, "allThreadsContinued")))
      g_hash_table_remove_all(dap->stopped);
    else
      g_hash_table_remove(dap->stopped, GINT_TO_POINTER(thread_id(body)));
  }
  g_mutex_unlock(&dap->lock);
  if (g_strcmp0(name, "stopped") == 0)
    tell_tf_stopped(dap, event);
  else if (g_strcmp0(name, "continued") == 0)
    tell_tf(dap, "tf_continued", NULL);
  publish_event(dap, event);
}

/* The threads that a stop with every thread stopped stopped: all but IPython's history
 * writer, which pydevd suspends too but which runs no user code. */
static void
on_stopped_threads(TkDap *dap, json_t *event, json_t *threads_response)
{
  json_t *threads = json_object_get(json_object_get(threads_response, "body"), "threads");
  size_t i;
  json_t *thread;
  g_mutex_lock(&dap->lock);
  g_hash_table_add(dap->stopped, GINT_TO_POINTER(thread_id(json_object_get(event, "body"))));
  json_array_foreach(threads, i, thread)
  {
    const char *name = json_string_value(json_object_get(thread, "name"));
    if (g_strcmp0(name, "IPythonHistorySavingThread") != 0)
      g_hash_table_add(dap->stopped,
                       GINT_TO_POINTER((int)json_integer_value(json_object_get(thread, "id"))));
  }
  g_mutex_unlock(&dap->lock);
  tell_tf_stopped(dap, event);
  publish_event(dap, event);
}

/* Requests that resume stopped threads once they succeed. */
static bool
resumes(json_t *resp)
{
  static const char *const commands[] = {"continue", "next", "stepIn", "stepOut"};
  const char *command = json_string_value(json_object_get(resp, "command"));
  if (!command || !json_is_true(json_object_get(resp, "success")))
    return false;
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
    if (strcmp(command, commands[i]) == 0)
      return true;
  return false;
}

static void
on_response(TkDap *dap, json_t *resp)
{
  gpointer key = GINT_TO_POINTER((int)json_integer_value(json_object_get(resp, "request_seq")));
  /* Here, in the order debugpy sent them, rather than when the control thread gets the
   * response: the next stop's event may already follow it. debugpy resumes every thread on
   * each of these (its "continued" events come later and say so too; tf's event is emitted
   * once). */
  if (resumes(resp))
    tell_tf(dap, "tf_continued", NULL);
  g_mutex_lock(&dap->lock);
  if (resumes(resp))
    g_hash_table_remove_all(dap->stopped);
  json_t *event = NULL;
  if (g_hash_table_steal_extended(dap->stop_events, key, NULL, (gpointer *)&event)) {
    g_mutex_unlock(&dap->lock);
    on_stopped_threads(dap, event, resp);
    json_decref(event);
    json_decref(resp);
    return;
  }
  /* A response nobody waits for any more (it came too late) is dropped. */
  if (g_hash_table_contains(dap->waiting, key) && !g_hash_table_lookup(dap->waiting, key)) {
    g_hash_table_insert(dap->waiting, key, resp);
    resp = NULL;
    g_cond_broadcast(&dap->changed);
  }
  g_mutex_unlock(&dap->lock);
  json_decref(resp);
}

/* ---- the reader ----------------------------------------------------------------------------- */

/* The Content-Length of a header block (`len` bytes, without its blank line), or -1. */
static gssize
content_length(const char *headers, gsize len)
{
  g_autofree char *text = g_strndup(headers, len);
  g_auto(GStrv) lines = g_strsplit(text, "\r\n", -1);
  for (char **line = lines; *line; line++) {
    char *colon = strchr(*line, ':');
    if (!colon || g_ascii_strncasecmp(*line, "Content-Length", (gsize)(colon - *line)) != 0 ||
        colon - *line != (gssize)strlen("Content-Length"))
      continue;
    char *end;
    guint64 n = g_ascii_strtoull(colon + 1, &end, 10);
    if (end == colon + 1 || n > MAX_MESSAGE)
      return -1;
    return (gssize)n;
  }
  return -1;
}

/* Takes one whole message off the front of `buf`: 1 and `*message` (NULL if its JSON was not
 * an object: skipped), 0 when more bytes are needed, -1 when the stream is not DAP. */
static int
take_message(GByteArray *buf, json_t **message)
{
  *message = NULL;
  const char *data = (const char *)buf->data;
  const char *sep = g_strstr_len(data, (gssize)MIN(buf->len, MAX_HEADER + 4), "\r\n\r\n");
  if (!sep)
    return buf->len > MAX_HEADER ? -1 : 0;
  gssize length = content_length(data, (gsize)(sep - data));
  if (length < 0)
    return -1;
  gsize start = (gsize)(sep - data) + 4;
  if (buf->len - start < (gsize)length)
    return 0;
  json_t *value = json_loadb(data + start, (size_t)length, 0, NULL);
  if (json_is_object(value))
    *message = value;
  else
    json_decref(value);
  g_byte_array_remove_range(buf, 0, (guint)(start + (gsize)length));
  return 1;
}

static gpointer
reader_main(gpointer data)
{
  TkDap *dap = data;
  g_mutex_lock(&dap->lock);
  int fd = dap->fd;
  g_mutex_unlock(&dap->lock);
  g_autoptr(GByteArray) buf = g_byte_array_new();
  char chunk[65536];
  bool ok = true;
  while (ok) {
    ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    g_byte_array_append(buf, (const guint8 *)chunk, (guint)n);
    json_t *message;
    int got;
    while ((got = take_message(buf, &message)) > 0) {
      if (!message)
        continue;
      const char *type = json_string_value(json_object_get(message, "type"));
      if (g_strcmp0(type, "event") == 0)
        on_event(dap, message);
      if (g_strcmp0(type, "response") == 0)
        on_response(dap, json_incref(message));
      json_decref(message);
    }
    if (got < 0) {
      g_printerr("trellis-kernel: debugpy sent something that is not DAP; disconnected\n");
      ok = false;
    }
  }
  g_mutex_lock(&dap->lock);
  dap->connected = false;
  g_cond_broadcast(&dap->changed);
  g_mutex_unlock(&dap->lock);
  return NULL;
}

/* Connects to the adapter and starts the reader. FALSE when the adapter is not there. */
static bool
open_connection(TkDap *dap)
{
  int fd = connect_tcp(dap->host, dap->port);
  if (fd < 0)
    return false;
  g_mutex_lock(&dap->lock);
  dap->fd = fd;
  dap->connected = true;
  dap->initialized = false;
  g_mutex_unlock(&dap->lock);
  dap->attached = false;
  dap->reader = g_thread_new("tk-dap", reader_main, dap);
  return true;
}

/* Closes the connection, joins the reader and forgets what was pending. */
static void
close_connection(TkDap *dap)
{
  if (!dap->reader)
    return;
  shutdown(dap->fd, SHUT_RDWR); /* the reader sees the end and exits */
  g_thread_join(g_steal_pointer(&dap->reader));
  g_mutex_lock(&dap->lock);
  close(dap->fd);
  dap->fd = -1;
  dap->connected = false;
  dap->initialized = false;
  g_hash_table_remove_all(dap->waiting);
  g_hash_table_remove_all(dap->stop_events);
  g_hash_table_remove_all(dap->stopped);
  g_mutex_unlock(&dap->lock);
}

static bool
is_connected(TkDap *dap)
{
  g_mutex_lock(&dap->lock);
  bool connected = dap->connected;
  g_mutex_unlock(&dap->lock);
  return connected;
}

static bool
any_stopped(TkDap *dap)
{
  g_mutex_lock(&dap->lock);
  bool stopped = g_hash_table_size(dap->stopped) > 0;
  g_mutex_unlock(&dap->lock);
  return stopped;
}

/* Tells debugpy the client is gone (it resumes every stopped thread and forgets the
 * breakpoints; never ends the kernel) and forgets the session. Returns the disconnect's
 * response (transfer full) or NULL if it did not come. */
static json_t *
end_session(TkDap *dap, json_t *disconnect)
{
  json_t *resp = NULL;
  g_autoptr(json_t) own = NULL;
  if (!disconnect)
    disconnect = own =
        json_pack("{s:s, s:s, s:{s:b, s:b}}", "type", "request", "command", "disconnect",
                  "arguments", "restart", false, "terminateDebuggee", false);
  json_int_t seq = send_request(dap, disconnect);
  if (seq >= 0) {
    g_autofree char *why = NULL;
    resp = wait_response(dap, seq, deadline_in(DISCONNECT_TIMEOUT_S), &why);
  }
  close_connection(dap);
  g_hash_table_remove_all(dap->breakpoints);
  tell_tf(dap, "tf_breakpoints", NULL); /* every file's are gone */
  tell_tf(dap, "tf_continued", NULL);
  dap->started = false;
  dap->attached = false;
  dap->owner_fd = -1;
  return resp;
}

/* ---- the interpreter's side ----------------------------------------------------------------- */

/* The interpreter's answer to `command` (arguments borrowed) as the body of a response to
 * `req`, or a failed response. Transfer full. */
static json_t *
ask_interp(TkDap *dap, const Request *req, const char *command, json_t *arguments)
{
  if (!dap->interp->debug)
    return fail(dap, req, "this kernel's interpreter has no debugger");
  g_autofree char *message = NULL;
  json_t *body = dap->interp->debug(dap->interp->self, command, arguments, &message);
  if (!body)
    return failure(dap, req->seq, req->command, "%s", message ? message : "failed");
  return response(dap, req->seq, req->command, body);
}

/* ---- the requests --------------------------------------------------------------------------- */

static json_t *
dap_initialize(TkDap *dap, const Request *req)
{
  if (dap->started && !is_connected(dap)) {
    g_autoptr(json_t) gone = end_session(dap, NULL); /* the adapter went away: start over */
  }
  if (!dap->started) {
    if (!dap->host) {
      g_autoptr(json_t) no_args = json_object();
      g_autoptr(json_t) where = ask_interp(dap, req, "listen", no_args);
      if (!json_is_true(json_object_get(where, "success")))
        return g_steal_pointer(&where);
      json_t *body = json_object_get(where, "body");
      const char *host = json_string_value(json_object_get(body, "host"));
      json_int_t port = json_integer_value(json_object_get(body, "port"));
      if (!host || port <= 0 || port > 65535)
        return fail(dap, req, "debugpy did not say where it listens");
      dap->host = g_strdup(host);
      dap->port = (int)port;
    }
    if (!open_connection(dap))
      return failure(dap, req->seq, req->command, "cannot connect to debugpy at %s:%d: %s",
                     dap->host, dap->port, g_strerror(errno));
  }
  json_t *resp = forward(dap, req, req->content, TIMEOUT_S);
  if (!dap->started && json_is_true(json_object_get(resp, "success"))) {
    dap->started = true;
    dap->owner_fd = req->peer_fd;
  } else if (!dap->started) {
    close_connection(dap);
  }
  return resp;
}

/* attach with the adapter's address; the first one on a connection runs the init sequence:
 * debugpy answers attach only after configurationDone, which it wants after "initialized". */
static json_t *
dap_attach(TkDap *dap, const Request *req)
{
  g_autoptr(json_t) request = json_deep_copy(req->content);
  json_t *args = json_pack("{s:{s:s, s:i}}", "connect", "host", dap->host, "port", dap->port);
  json_object_update_missing(args, req->arguments);
  json_object_set_new(request, "arguments", args);
  if (dap->attached)
    return forward(dap, req, request, TIMEOUT_S);

  json_int_t attach_seq = send_request(dap, request);
  if (attach_seq < 0)
    return fail(dap, req, "the connection to debugpy is closed");
  gint64 deadline = deadline_in(TIMEOUT_S);
  g_mutex_lock(&dap->lock);
  while (!dap->initialized && dap->connected)
    if (!g_cond_wait_until(&dap->changed, &dap->lock, deadline))
      break;
  bool initialized = dap->initialized;
  if (!initialized)
    g_hash_table_remove(dap->waiting, GINT_TO_POINTER((int)attach_seq));
  g_mutex_unlock(&dap->lock);
  if (!initialized)
    return fail(dap, req, "debugpy did not initialize the session in time");

  g_autoptr(json_t) done =
      json_pack("{s:s, s:s, s:{}}", "type", "request", "command", "configurationDone", "arguments");
  json_int_t done_seq = send_request(dap, done);
  g_autofree char *done_why = NULL;
  g_autoptr(json_t) done_resp =
      done_seq >= 0 ? wait_response(dap, done_seq, deadline_in(TIMEOUT_S), &done_why) : NULL;
  g_autofree char *why = NULL;
  json_t *resp = wait_response(dap, attach_seq, deadline_in(TIMEOUT_S), &why);
  if (!resp)
    return failure(dap, req->seq, req->command, "attach: %s", why);
  dap->attached = json_is_true(json_object_get(resp, "success"));
  json_object_set_new(resp, "request_seq", json_integer(req->seq));
  return resp;
}

static json_t *
dap_configuration_done(TkDap *dap, const Request *req)
{
  return response(dap, req->seq, req->command, NULL);
}

static json_t *
dap_disconnect(TkDap *dap, const Request *req)
{
  /* The kernel outlives its debugger: shutdown_request is how a client ends it. */
  g_autoptr(json_t) request = json_deep_copy(req->content);
  json_t *args = json_deep_copy(req->arguments);
  json_object_set_new(args, "terminateDebuggee", json_false());
  json_object_set_new(request, "arguments", args);
  json_t *resp = end_session(dap, request);
  if (!resp)
    return response(dap, req->seq, req->command, NULL); /* forgotten all the same */
  json_object_set_new(resp, "request_seq", json_integer(req->seq));
  return resp;
}

static json_t *
dap_dump_cell(TkDap *dap, const Request *req)
{
  const char *code = json_string_value(json_object_get(req->arguments, "code"));
  if (!code)
    return fail(dap, req, "dumpCell needs arguments.code, a string");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = tk_cell_dump(code, &error);
  if (!path)
    return fail(dap, req, error->message);
  return response(dap, req->seq, req->command,
                  json_pack("{s:o}", "sourcePath", tk_json_string(path, -1)));
}

static json_t *
dap_debug_info(TkDap *dap, const Request *req)
{
  json_t *breakpoints = json_array();
  GHashTableIter iter;
  gpointer path, list;
  g_hash_table_iter_init(&iter, dap->breakpoints);
  while (g_hash_table_iter_next(&iter, &path, &list))
    json_array_append_new(breakpoints, json_pack("{s:o, s:O}", "source", tk_json_string(path, -1),
                                                 "breakpoints", list));
  json_t *stopped = json_array();
  g_mutex_lock(&dap->lock);
  g_hash_table_iter_init(&iter, dap->stopped);
  gpointer id;
  while (g_hash_table_iter_next(&iter, &id, NULL))
    json_array_append_new(stopped, json_integer(GPOINTER_TO_INT(id)));
  g_mutex_unlock(&dap->lock);
  return response(dap, req->seq, req->command,
                  json_pack("{s:b, s:s, s:I, s:s, s:s, s:o, s:o, s:b, s:[s], s:b}", "isStarted",
                            dap->started, "hashMethod", "Murmur2", "hashSeed",
                            (json_int_t)TK_CELL_HASH_SEED, "tmpFilePrefix", tk_cell_dir(),
                            "tmpFileSuffix", ".py", "breakpoints", breakpoints, "stoppedThreads",
                            stopped, "richRendering", true, "exceptionPaths", "Python Exceptions",
                            "copyToGlobals", true));
}

static json_t *
dap_set_breakpoints(TkDap *dap, const Request *req)
{
  const char *path =
      json_string_value(json_object_get(json_object_get(req->arguments, "source"), "path"));
  if (!path)
    return fail(dap, req, "setBreakpoints needs arguments.source.path, a string");
  json_t *list = json_object_get(req->arguments, "breakpoints");
  if (list && !json_is_array(list))
    return fail(dap, req, "setBreakpoints: arguments.breakpoints must be an array");
  json_t *resp = forward(dap, req, req->content, TIMEOUT_S);
  if (json_is_true(json_object_get(resp, "success"))) {
    if (json_array_size(list) > 0)
      g_hash_table_insert(dap->breakpoints, g_strdup(path), json_deep_copy(list));
    else
      g_hash_table_remove(dap->breakpoints, path);
    json_t *lines = json_array();
    size_t i;
    json_t *bp;
    json_array_foreach(list, i, bp)
    {
      json_t *line = json_object_get(bp, "line");
      if (json_is_integer(line))
        json_array_append(lines, line);
    }
    tell_tf(dap, "tf_breakpoints", json_pack("{s:s, s:o}", "path", path, "lines", lines));
  }
  return resp;
}

/* Whether `frame` is the top level of a cell: its code, not the kernel's, ran from there. */
static bool
is_cell_module(json_t *frame)
{
  const char *name = json_string_value(json_object_get(frame, "name"));
  const char *path = json_string_value(json_object_get(json_object_get(frame, "source"), "path"));
  return g_strcmp0(name, "<module>") == 0 && path &&
         (g_str_has_prefix(path, tk_cell_dir()) || g_str_has_prefix(path, "<cell"));
}

static json_t *
dap_stack_trace(TkDap *dap, const Request *req)
{
  json_t *resp = forward(dap, req, req->content, TIMEOUT_S);
  json_t *body = json_object_get(resp, "body");
  json_t *frames = json_object_get(body, "stackFrames");
  size_t n = json_array_size(frames);
  for (size_t i = n; i-- > 0;) {
    if (!is_cell_module(json_array_get(frames, i)))
      continue;
    /* Below the cell's own top level: the kernel running the cell. */
    while (json_array_size(frames) > i + 1)
      json_array_remove(frames, i + 1);
    if (json_object_get(body, "totalFrames"))
      json_object_set_new(body, "totalFrames", json_integer((json_int_t)i + 1));
    break;
  }
  return resp;
}

static json_t *
dap_variables(TkDap *dap, const Request *req)
{
  if (!json_is_integer(json_object_get(req->arguments, "variablesReference")))
    return fail(dap, req, "variables needs arguments.variablesReference, an integer");
  json_t *resp = any_stopped(dap) ? forward(dap, req, req->content, TIMEOUT_S)
                                  : ask_interp(dap, req, "variables", req->arguments);
  filter_variables(resp);
  return resp;
}

static json_t *
dap_inspect_variables(TkDap *dap, const Request *req)
{
  json_t *resp = ask_interp(dap, req, "inspectVariables", req->arguments);
  filter_variables(resp);
  return resp;
}

/* The rich representation of a variable where execution stopped: evaluated in the frame, as a
 * Python literal the interpreter reads back. */
static json_t *
rich_at_stop(TkDap *dap, const Request *req, const char *name)
{
  json_t *frame = json_object_get(req->arguments, "frameId");
  if (!json_is_integer(frame))
    return fail(dap, req, "richInspectVariables at a stop needs arguments.frameId, an integer");
  g_autofree char *expression =
      g_strdup_printf("__import__('_trellis_debugger').rich_format(%s)", name);
  g_autoptr(json_t) evaluate =
      json_pack("{s:s, s:s, s:{s:s, s:O, s:s}}", "type", "request", "command", "evaluate",
                "arguments", "expression", expression, "frameId", frame, "context", "clipboard");
  g_autoptr(json_t) resp = forward(dap, req, evaluate, TIMEOUT_S);
  if (!json_is_true(json_object_get(resp, "success")))
    return failure(dap, req->seq, req->command, "%s",
                   json_string_value(json_object_get(resp, "message"))
                       ? json_string_value(json_object_get(resp, "message"))
                       : "the evaluation failed");
  json_t *result = json_object_get(json_object_get(resp, "body"), "result");
  if (!json_is_string(result))
    return fail(dap, req, "debugpy's evaluate gave no result");
  g_autoptr(json_t) args = json_pack("{s:O}", "text", result);
  return ask_interp(dap, req, "richFromText", args);
}

static json_t *
dap_rich_inspect_variables(TkDap *dap, const Request *req)
{
  const char *name = json_string_value(json_object_get(req->arguments, "variableName"));
  if (!name)
    return fail(dap, req, "richInspectVariables needs arguments.variableName, a string");
  if (!is_identifier(name)) {
    /* debugpy's groups of variables have nothing to show; other names are not variables */
    bool group = strcmp(name, "special variables") == 0 || strcmp(name, "function variables") == 0;
    json_t *r =
        response(dap, req->seq, req->command, json_pack("{s:{}, s:{}}", "data", "metadata"));
    if (!group) {
      json_object_set_new(r, "success", json_false());
      json_object_set_new(r, "message", json_string("not a variable name"));
    }
    return r;
  }
  if (any_stopped(dap))
    return rich_at_stop(dap, req, name);
  return ask_interp(dap, req, "richInspectVariables", req->arguments);
}

static json_t *
dap_copy_to_globals(TkDap *dap, const Request *req)
{
  const char *src = json_string_value(json_object_get(req->arguments, "srcVariableName"));
  const char *dst = json_string_value(json_object_get(req->arguments, "dstVariableName"));
  json_t *frame = json_object_get(req->arguments, "srcFrameId");
  if (!src || !dst || !json_is_integer(frame))
    return fail(dap, req,
                "copyToGlobals needs arguments.srcVariableName, dstVariableName (strings) and "
                "srcFrameId (an integer)");
  if (!is_identifier(dst))
    return fail(dap, req, "copyToGlobals: dstVariableName is not a variable name");
  g_autofree char *target = g_strdup_printf("globals()['%s']", dst);
  g_autoptr(json_t) set =
      json_pack("{s:s, s:s, s:{s:s, s:s, s:O}}", "type", "request", "command", "setExpression",
                "arguments", "expression", target, "value", src, "frameId", frame);
  return forward(dap, req, set, TIMEOUT_S);
}

static json_t *
dap_source(TkDap *dap, const Request *req)
{
  const char *path =
      json_string_value(json_object_get(json_object_get(req->arguments, "source"), "path"));
  if (!path)
    return forward(dap, req, req->content, TIMEOUT_S); /* by sourceReference: debugpy's */
  g_autofree char *text = NULL;
  gsize len;
  if (g_file_test(path, G_FILE_TEST_IS_REGULAR) && g_file_get_contents(path, &text, &len, NULL))
    return response(dap, req->seq, req->command,
                    json_pack("{s:o}", "content", tk_json_string(text, (gssize)len)));
  return ask_interp(dap, req, "source", req->arguments);
}

static json_t *
dap_modules(TkDap *dap, const Request *req)
{
  return ask_interp(dap, req, "modules", req->arguments);
}

typedef json_t *(*DapHandler)(TkDap *dap, const Request *req);

typedef struct {
  const char *command;
  DapHandler handler; /* NULL: forwarded to debugpy as it is */
  bool needs_session; /* refused before initialize */
} DapRow;

/* Every command not listed here is forwarded, once a session is open. */
static const DapRow dap_table[] = {
    {"initialize", dap_initialize, false},
    {"debugInfo", dap_debug_info, false},
    {"inspectVariables", dap_inspect_variables, false},
    {"richInspectVariables", dap_rich_inspect_variables, false},
    {"modules", dap_modules, false},
    {"attach", dap_attach, true},
    {"configurationDone", dap_configuration_done, true},
    {"disconnect", dap_disconnect, true},
    {"dumpCell", dap_dump_cell, true},
    {"setBreakpoints", dap_set_breakpoints, true},
    {"stackTrace", dap_stack_trace, true},
    {"variables", dap_variables, false},
    {"copyToGlobals", dap_copy_to_globals, true},
    {"source", dap_source, true},
};

static const DapRow *
find_row(const char *command)
{
  for (size_t i = 0; i < G_N_ELEMENTS(dap_table); i++)
    if (strcmp(dap_table[i].command, command) == 0)
      return &dap_table[i];
  return NULL;
}

/* ---- the engine's side ---------------------------------------------------------------------- */

json_t *
tk_dap_request(TkDap *dap, const TkMessage *request, int peer_fd)
{
  json_t *content = request->content;
  json_t *seq = json_object_get(content, "seq");
  Request req = {
      .seq = json_is_integer(seq) ? json_integer_value(seq) : 0,
      .command = json_string_value(json_object_get(content, "command")),
      .content = content,
      .arguments = json_object_get(content, "arguments"),
      .peer_fd = peer_fd,
  };
  if (!json_is_object(content))
    return failure(dap, 0, "", "a debug_request's content is a DAP request (a JSON object)");
  if (!req.command || !*req.command)
    return failure(dap, req.seq, "", "the debug request has no command");
  if (req.arguments && !json_is_null(req.arguments) && !json_is_object(req.arguments))
    return fail(dap, &req, "the debug request's arguments are not an object");
  g_autoptr(json_t) no_args = json_object();
  if (!json_is_object(req.arguments))
    req.arguments = no_args;

  g_mutex_lock(&dap->lock);
  if (dap->parent)
    g_bytes_unref(dap->parent);
  dap->parent = g_bytes_ref(request->header_raw);
  g_mutex_unlock(&dap->lock);

  const DapRow *row = find_row(req.command);
  if ((!row || row->needs_session) && !dap->started)
    return failure(dap, req.seq, req.command,
                   "the debugger is not started: '%s' needs an initialize first", req.command);
  if (row)
    return row->handler(dap, &req);
  return forward(dap, &req, content, TIMEOUT_S);
}

void
tk_dap_peer_gone(TkDap *dap, int fd)
{
  if (!dap->started || fd < 0 || fd != dap->owner_fd)
    return;
  g_printerr("trellis-kernel: the debugger's client went away: the debug session ends\n");
  g_autoptr(json_t) resp = end_session(dap, NULL);
}

void
tk_dap_close(TkDap *dap)
{
  if (dap->started) {
    g_autoptr(json_t) resp = end_session(dap, NULL);
  }
  close_connection(dap);
  if (dap->host && dap->interp->debug) {
    /* debugpy's threads end before the interpreter does */
    g_autoptr(json_t) none = json_object();
    g_autofree char *message = NULL;
    g_autoptr(json_t) done = dap->interp->debug(dap->interp->self, "shutdown", none, &message);
  }
}

bool
tk_dap_available(const TkDap *dap)
{
  return dap->interp->debug != NULL;
}

TkDap *
tk_dap_new(TkInterp *interp, const TkSender *sender)
{
  TkDap *dap = g_new0(TkDap, 1);
  dap->interp = interp;
  dap->sender = *sender;
  dap->sender.signer = tr_wire_signer_copy(sender->signer);
  dap->owner_fd = -1;
  dap->fd = -1;
  dap->breakpoints =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)json_decref);
  g_mutex_init(&dap->write_lock);
  g_mutex_init(&dap->lock);
  g_cond_init(&dap->changed);
  dap->waiting = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)json_decref);
  dap->stop_events = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)json_decref);
  dap->stopped = g_hash_table_new(NULL, NULL);
  return dap;
}

void
tk_dap_free(TkDap *dap)
{
  if (!dap)
    return;
  g_assert(!dap->reader);
  tr_wire_signer_free(dap->sender.signer);
  g_hash_table_unref(dap->breakpoints);
  g_hash_table_unref(dap->waiting);
  g_hash_table_unref(dap->stop_events);
  g_hash_table_unref(dap->stopped);
  if (dap->parent)
    g_bytes_unref(dap->parent);
  g_mutex_clear(&dap->write_lock);
  g_mutex_clear(&dap->lock);
  g_cond_clear(&dap->changed);
  g_free(dap->host);
  g_free(dap);
}
