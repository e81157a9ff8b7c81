/* kernel-connection.c — the connection file a Jupyter client writes for the kernel.
 *
 * It names the transport, the address, one port per channel, the HMAC key and the signature
 * scheme. A port of 0 means "pick one": the kernel binds a random port and writes the chosen
 * numbers back into the file, keeping every other field as it was.
 */
#include "kernel-private.h"

#include <errno.h>
#include <string.h>

G_DEFINE_QUARK(tk-error-quark, tk_error);

/* The connection file's key of each channel's port, in TkChannel order. */
static const struct {
  const char *name;     /* channel name for logs */
  const char *port_key; /* field in the connection file */
} channel_info[] = {
    [TK_CHANNEL_SHELL] = {"shell", "shell_port"},
    [TK_CHANNEL_CONTROL] = {"control", "control_port"},
    [TK_CHANNEL_STDIN] = {"stdin", "stdin_port"},
    [TK_CHANNEL_IOPUB] = {"iopub", "iopub_port"},
    [TK_CHANNEL_HB] = {"heartbeat", "hb_port"},
};
G_STATIC_ASSERT(G_N_ELEMENTS(channel_info) == TK_N_CHANNELS);

const char *
tk_channel_name(TkChannel channel)
{
  g_return_val_if_fail(channel < TK_N_CHANNELS, "?");
  return channel_info[channel].name;
}

void
tk_connection_free(TkConnection *conn)
{
  if (!conn)
    return;
  g_free(conn->path);
  g_free(conn->transport);
  g_free(conn->ip);
  g_free(conn->key);
  g_free(conn->signature_scheme);
  json_decref(conn->json);
  g_free(conn);
}

/* A string field, or `fallback` when absent; FALSE with `error` when it has another type. */
static gboolean
get_string(json_t *obj, const char *key, const char *fallback, char **out, GError **error)
{
  json_t *v = json_object_get(obj, key);
  if (!v) {
    *out = g_strdup(fallback);
    return TRUE;
  }
  if (!json_is_string(v)) {
    g_set_error(error, TK_ERROR, TK_ERROR_CONNECTION, "connection file: '%s' is not a string", key);
    return FALSE;
  }
  *out = g_strndup(json_string_value(v), json_string_length(v));
  return TRUE;
}

static gboolean
get_port(json_t *obj, const char *key, int *out, GError **error)
{
  json_t *v = json_object_get(obj, key);
  if (!v) {
    *out = 0;
    return TRUE;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 65535) {
    g_set_error(error, TK_ERROR, TK_ERROR_CONNECTION, "connection file: '%s' is not a port number",
                key);
    return FALSE;
  }
  *out = (int)json_integer_value(v);
  return TRUE;
}

TkConnection *
tk_connection_load(const char *path, GError **error)
{
  json_error_t jerr;
  json_t *json = json_load_file(path, 0, &jerr);
  if (!json) {
    g_set_error(error, TK_ERROR, TK_ERROR_CONNECTION, "cannot read connection file %s: %s", path,
                jerr.text);
    return NULL;
  }
  g_autoptr(TkConnection) conn = g_new0(TkConnection, 1);
  conn->json = json;
  conn->path = g_strdup(path);
  if (!json_is_object(json)) {
    g_set_error(error, TK_ERROR, TK_ERROR_CONNECTION, "connection file %s is not an object", path);
    return NULL;
  }
  if (!get_string(json, "transport", "tcp", &conn->transport, error) ||
      !get_string(json, "ip", "127.0.0.1", &conn->ip, error) ||
      !get_string(json, "key", "", &conn->key, error) ||
      !get_string(json, "signature_scheme", "hmac-sha256", &conn->signature_scheme, error))
    return NULL;
  if (strcmp(conn->transport, "tcp") != 0 && strcmp(conn->transport, "ipc") != 0) {
    g_set_error(error, TK_ERROR, TK_ERROR_CONNECTION,
                "connection file: transport '%s' is neither tcp nor ipc", conn->transport);
    return NULL;
  }
  for (int c = 0; c < TK_N_CHANNELS; c++)
    if (!get_port(json, channel_info[c].port_key, &conn->ports[c], error))
      return NULL;
  return g_steal_pointer(&conn);
}

char *
tk_connection_endpoint(const TkConnection *conn, TkChannel channel)
{
  int port = conn->ports[channel];
  if (strcmp(conn->transport, "ipc") == 0)
    return g_strdup_printf("ipc://%s-%d", conn->ip, port ? port : (int)channel + 1);
  if (port == 0)
    return g_strdup_printf("tcp://%s:*", conn->ip);
  return g_strdup_printf("tcp://%s:%d", conn->ip, port);
}

gboolean
tk_connection_save(TkConnection *conn, GError **error)
{
  for (int c = 0; c < TK_N_CHANNELS; c++)
    json_object_set_new(conn->json, channel_info[c].port_key, json_integer(conn->ports[c]));
  g_autofree char *text = json_dumps(conn->json, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
  if (!text) {
    g_set_error(error, TK_ERROR, TK_ERROR_CONNECTION, "cannot serialise the connection file");
    return FALSE;
  }
  /* The file holds the key: only its owner may read it, whatever the umask (a new file beside
   * it, then renamed over it, so that no reader ever sees half a file). */
  return g_file_set_contents_full(conn->path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600,
                                  error);
}
