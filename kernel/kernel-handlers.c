/* kernel-handlers.c — the message table: every request type the kernel answers, listed once.
 *
 * A row names the request, its reply, the handler, the channels it is accepted on and whether
 * the dispatcher (kernel-engine.c) publishes busy/idle around it. Handlers read the request's
 * content through the field readers below, which accept a missing field (its default) and
 * refuse a field of the wrong type: such a request gets an error reply ("BadRequest") and is
 * not acted on. Handlers reply with tk_reply() and never publish status.
 */
#include "kernel-dap.h"
#include "kernel-private.h"

#include <string.h>

#define SHELL   (1u << TK_CHANNEL_SHELL)
#define CONTROL (1u << TK_CHANNEL_CONTROL)

/* ---- reading content fields --------------------------------------------------------------- */

/* A request's content being read; `bad` names the first field of a wrong type. */
typedef struct {
  json_t *content; /* borrowed */
  const char *bad; /* NULL while every field read was fine */
} Fields;

/* The field's value, or NULL when absent or null (the default applies). */
static json_t *
field(Fields *f, const char *key)
{
  json_t *v = json_object_get(f->content, key);
  return json_is_null(v) ? NULL : v;
}

static void
field_bad(Fields *f, const char *key)
{
  if (!f->bad)
    f->bad = key;
}

static json_t *
field_string(Fields *f, const char *key, bool required)
{
  json_t *v = field(f, key);
  if ((v && !json_is_string(v)) || (!v && required)) {
    field_bad(f, key);
    return NULL;
  }
  return v;
}

static const char *
field_str(Fields *f, const char *key, const char *fallback)
{
  json_t *v = field_string(f, key, false);
  return v ? json_string_value(v) : fallback;
}

static bool
field_bool(Fields *f, const char *key, bool fallback)
{
  json_t *v = field(f, key);
  if (!v)
    return fallback;
  if (!json_is_boolean(v)) {
    field_bad(f, key);
    return fallback;
  }
  return json_is_true(v);
}

static gint64
field_int(Fields *f, const char *key, gint64 fallback)
{
  json_t *v = field(f, key);
  if (!v)
    return fallback;
  double d = json_number_value(v);
  if (!json_is_number(v) || !(d > -1e15 && d < 1e15)) {
    field_bad(f, key);
    return fallback;
  }
  return (gint64)d;
}

static json_t *
field_object(Fields *f, const char *key)
{
  json_t *v = field(f, key);
  if (v && !json_is_object(v)) {
    field_bad(f, key);
    return NULL;
  }
  return v;
}

/* Reply "BadRequest" if a field was wrong; TRUE if so. */
static bool
refuse_bad_fields(TkContext *ctx, const TkMessage *request, const Fields *f)
{
  if (!f->bad)
    return false;
  g_autofree char *why = g_strdup_printf("'%s' is missing or has the wrong type", f->bad);
  g_printerr("trellis-kernel: %s: %s\n", request->msg_type, why);
  tk_reply(ctx, request, tk_error_content("BadRequest", why));
  return true;
}

/* ---- cursors ------------------------------------------------------------------------------ */

size_t
tk_cursor_to_byte(const char *code, gint64 cursor)
{
  size_t len = strlen(code);
  if (cursor < 0)
    return len;
  const char *p = code, *end = code + len;
  for (gint64 i = 0; i < cursor && p < end; i++)
    p = g_utf8_find_next_char(p, end) ? g_utf8_find_next_char(p, end) : end;
  return (size_t)(p - code);
}

gint64
tk_byte_to_cursor(const char *code, size_t byte)
{
  size_t len = strlen(code);
  return g_utf8_pointer_to_offset(code, code + MIN(byte, len));
}

/* ---- handlers ----------------------------------------------------------------------------- */

static json_t *
language_info(TkInterp *interp)
{
  /* IPython's lexer and CodeMirror mode: frontends highlight `obj?` and magics as in ipykernel. */
  return json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:s, s:i}, s:s}", "name", "python", "version",
                   interp->language_version ? interp->language_version : "3", "mimetype",
                   "text/x-python", "file_extension", ".py", "pygments_lexer", "ipython3",
                   "codemirror_mode", "name", "ipython", "version", 3, "nbconvert_exporter",
                   "python");
}

static void
handle_kernel_info(TkContext *ctx, const TkMessage *request)
{
  TkInterp *interp = tk_kernel_interp(ctx->kernel);
  /* A client asks kernel_info to know the kernel is ready: its iopub must be too. */
  tk_iopub_wait_subscriber(ctx->sender, 1000);
  tk_reply(ctx, request,
           json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:b, s:[]}", "status", "ok",
                     "protocol_version", TK_PROTOCOL_VERSION, "implementation", "trellis",
                     "implementation_version",
                     interp->implementation_version ? interp->implementation_version : "",
                     "language_info", language_info(interp), "banner",
                     interp->banner ? interp->banner : "Trellis", "debugger",
                     tk_dap_available(tk_kernel_dap(ctx->kernel)), "help_links"));
}

static void
handle_execute(TkContext *ctx, const TkMessage *request)
{
  Fields f = {request->content, NULL};
  TkExecRequest exec = {0};
  exec.code = field_string(&f, "code", true);
  exec.cell.code = json_string_value(exec.code);
  exec.cell.silent = field_bool(&f, "silent", false);
  exec.cell.store_history = field_bool(&f, "store_history", true) && !exec.cell.silent;
  exec.cell.allow_stdin = field_bool(&f, "allow_stdin", true);
  exec.stop_on_error = field_bool(&f, "stop_on_error", true);
  exec.user_expressions = field_object(&f, "user_expressions");
  if (refuse_bad_fields(ctx, request, &f))
    return;
  g_autoptr(json_t) no_expressions = json_object();
  if (!exec.user_expressions)
    exec.user_expressions = no_expressions;
  tk_kernel_execute(ctx, request, &exec);
}

void
tk_handler_abort_execute(TkContext *ctx, const TkMessage *request)
{
  tk_reply(ctx, request, json_pack("{s:s}", "status", "aborted"));
}

static void
handle_complete(TkContext *ctx, const TkMessage *request)
{
  Fields f = {request->content, NULL};
  const char *code = json_string_value(field_string(&f, "code", true));
  gint64 cursor = field_int(&f, "cursor_pos", -1);
  if (refuse_bad_fields(ctx, request, &f))
    return;
  TkInterp *interp = tk_kernel_interp(ctx->kernel);
  size_t at = tk_cursor_to_byte(code, cursor);
  TkCompletion out = {g_ptr_array_new_with_free_func(g_free), at, at, NULL};
  interp->complete(interp->self, code, at, &out);
  json_t *matches = json_array();
  for (guint i = 0; i < out.matches->len; i++)
    json_array_append_new(matches, tk_json_string(out.matches->pdata[i], -1));
  g_ptr_array_unref(out.matches);
  /* Jupyter's (provisional) completion types: JupyterLab shows them beside the matches. */
  json_t *metadata = json_object();
  if (out.types)
    json_object_set_new(metadata, "_jupyter_types_experimental", out.types);
  tk_reply(ctx, request,
           json_pack("{s:s, s:o, s:I, s:I, s:o}", "status", "ok", "matches", matches,
                     "cursor_start", (json_int_t)tk_byte_to_cursor(code, MIN(out.start, at)),
                     "cursor_end", (json_int_t)tk_byte_to_cursor(code, MAX(out.end, out.start)),
                     "metadata", metadata));
}

static void
handle_inspect(TkContext *ctx, const TkMessage *request)
{
  Fields f = {request->content, NULL};
  const char *code = json_string_value(field_string(&f, "code", true));
  gint64 cursor = field_int(&f, "cursor_pos", -1);
  gint64 detail = field_int(&f, "detail_level", 0);
  if (refuse_bad_fields(ctx, request, &f))
    return;
  TkInterp *interp = tk_kernel_interp(ctx->kernel);
  json_t *data =
      interp->inspect(interp->self, code, tk_cursor_to_byte(code, cursor), detail > 0 ? 1 : 0);
  bool found = json_is_object(data);
  if (!found) {
    json_decref(data);
    data = json_object();
  }
  tk_reply(
      ctx, request,
      json_pack("{s:s, s:b, s:o, s:{}}", "status", "ok", "found", found, "data", data, "metadata"));
}

static void
handle_is_complete(TkContext *ctx, const TkMessage *request)
{
  static const char *const names[] = {
      [TK_COMPLETE] = "complete",
      [TK_INCOMPLETE] = "incomplete",
      [TK_INVALID] = "invalid",
      [TK_UNKNOWN] = "unknown",
  };
  Fields f = {request->content, NULL};
  const char *code = json_string_value(field_string(&f, "code", true));
  if (refuse_bad_fields(ctx, request, &f))
    return;
  TkInterp *interp = tk_kernel_interp(ctx->kernel);
  g_autofree char *indent = NULL;
  TkCompleteness status = interp->is_complete(interp->self, code, &indent);
  if (status > TK_UNKNOWN)
    status = TK_UNKNOWN;
  json_t *reply = json_pack("{s:s}", "status", names[status]);
  if (status == TK_INCOMPLETE)
    json_object_set_new(reply, "indent", tk_json_string(indent ? indent : "", -1));
  tk_reply(ctx, request, reply);
}

static void
handle_history(TkContext *ctx, const TkMessage *request)
{
  Fields f = {request->content, NULL};
  const char *access = field_str(&f, "hist_access_type", "tail");
  bool output = field_bool(&f, "output", false);
  field_bool(&f, "raw", true); /* stored inputs are raw already */
  gint64 n = field_int(&f, "n", 10);
  gint64 session = field_int(&f, "session", 0);
  gint64 start = field_int(&f, "start", 0);
  gint64 stop = field_int(&f, "stop", 0);
  const char *pattern = field_str(&f, "pattern", "*");
  bool unique = field_bool(&f, "unique", false);
  if (refuse_bad_fields(ctx, request, &f))
    return;
  TkHistory *history = tk_kernel_history(ctx->kernel);
  n = CLAMP(n, -1, G_MAXINT);
  json_t *list;
  if (strcmp(access, "tail") == 0)
    list = tk_history_tail(history, (int)n, output);
  else if (strcmp(access, "range") == 0)
    list = tk_history_range(history, (int)CLAMP(session, -G_MAXINT, G_MAXINT),
                            (int)CLAMP(start, 0, G_MAXINT), (int)CLAMP(stop, 0, G_MAXINT), output);
  else if (strcmp(access, "search") == 0)
    list = tk_history_search(history, pattern, (int)n, unique, output);
  else
    list = json_array();
  tk_reply(ctx, request, json_pack("{s:s, s:o}", "status", "ok", "history", list));
}

static void
handle_comm_info(TkContext *ctx, const TkMessage *request)
{
  Fields f = {request->content, NULL};
  field_str(&f, "target_name", NULL);
  if (refuse_bad_fields(ctx, request, &f))
    return;
  /* No comm targets are registered, so no comm is ever open. */
  tk_reply(ctx, request, json_pack("{s:s, s:{}}", "status", "ok", "comms"));
}

/* comm_open: no target is registered, so the frontend is told the comm is closed. */
static void
handle_comm_open(TkContext *ctx, const TkMessage *request)
{
  Fields f = {request->content, NULL};
  json_t *comm_id = field_string(&f, "comm_id", true);
  const char *target = field_str(&f, "target_name", "");
  if (f.bad) {
    g_printerr("trellis-kernel: comm_open without a comm_id, ignored\n");
    return;
  }
  g_printerr("trellis-kernel: no comm target '%s', closing comm\n", target);
  tk_publish(ctx->sender, "comm_close", request,
             json_pack("{s:O, s:{}}", "comm_id", comm_id, "data"));
}

/* comm_msg and comm_close can only name comms that do not exist. */
static void
handle_comm_ignore(TkContext *ctx, const TkMessage *request)
{
}

static void
handle_shutdown(TkContext *ctx, const TkMessage *request)
{
  Fields f = {request->content, NULL};
  bool restart = field_bool(&f, "restart", false);
  /* A shutdown is never refused: a wrong type only means "no restart". */
  json_t *content = json_pack("{s:s, s:b}", "status", "ok", "restart", restart);
  tk_publish(ctx->sender, "shutdown_reply", request, json_incref(content));
  tk_reply(ctx, request, content);
  tk_kernel_request_stop(ctx);
}

static void
handle_interrupt(TkContext *ctx, const TkMessage *request)
{
  tk_kernel_interrupt_from(ctx);
  tk_reply(ctx, request, json_pack("{s:s}", "status", "ok"));
}

/* Jupyter's debug protocol: a DAP request in, a DAP response out, even for a malformed one. */
static void
handle_debug(TkContext *ctx, const TkMessage *request)
{
  tk_reply(ctx, request, tk_dap_request(tk_kernel_dap(ctx->kernel), request, ctx->peer_fd));
}

static void
handle_connect(TkContext *ctx, const TkMessage *request)
{
  const TkConnection *conn = tk_kernel_connection(ctx->kernel);
  tk_reply(ctx, request,
           json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "status", "ok", "shell_port",
                     conn->ports[TK_CHANNEL_SHELL], "iopub_port", conn->ports[TK_CHANNEL_IOPUB],
                     "stdin_port", conn->ports[TK_CHANNEL_STDIN], "control_port",
                     conn->ports[TK_CHANNEL_CONTROL], "hb_port", conn->ports[TK_CHANNEL_HB]));
}

/* ---- the table ---------------------------------------------------------------------------- */

/* interrupt_request gets no busy/idle: it is answered while a cell runs, and an idle for it
 * would tell frontends the kernel is idle while the interrupted cell is still unwinding. */
static const TkHandlerRow handler_table[] = {
    /* request               reply                 handler             channels       status */
    {"kernel_info_request", "kernel_info_reply", handle_kernel_info, SHELL | CONTROL, true},
    {"execute_request", "execute_reply", handle_execute, SHELL, true},
    {"complete_request", "complete_reply", handle_complete, SHELL, true},
    {"inspect_request", "inspect_reply", handle_inspect, SHELL, true},
    {"is_complete_request", "is_complete_reply", handle_is_complete, SHELL, true},
    {"history_request", "history_reply", handle_history, SHELL, true},
    {"comm_info_request", "comm_info_reply", handle_comm_info, SHELL | CONTROL, true},
    {"comm_open", NULL, handle_comm_open, SHELL, true},
    {"comm_msg", NULL, handle_comm_ignore, SHELL, true},
    {"comm_close", NULL, handle_comm_ignore, SHELL, true},
    {"connect_request", "connect_reply", handle_connect, SHELL | CONTROL, true},
    {"shutdown_request", "shutdown_reply", handle_shutdown, SHELL | CONTROL, true},
    {"interrupt_request", "interrupt_reply", handle_interrupt, CONTROL, false},
    {"debug_request", "debug_reply", handle_debug, CONTROL, true},
};

const TkHandlerRow *
tk_handler_find(const char *msg_type)
{
  for (size_t i = 0; i < G_N_ELEMENTS(handler_table); i++)
    if (strcmp(handler_table[i].msg_type, msg_type) == 0)
      return &handler_table[i];
  return NULL;
}
