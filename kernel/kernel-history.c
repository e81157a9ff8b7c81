/* kernel-history.c — the input history behind history_request, kept across restarts.
 *
 * One JSON object per line in $TRELLIS_HISTORY_FILE, or else
 * $XDG_DATA_HOME/trellis/history.jsonl (~/.local/share/trellis/history.jsonl):
 *   {"session":3,"line":0,"start":"…"}                      a kernel started session 3
 *   {"session":3,"line":1,"source":"1+2","output":"3"}     In[1] of session 3 and its Out
 * Every line starts with `{"session":N`, so a new kernel finds the latest session number by
 * reading the file's tail only; the allocation is done under flock() so that kernels started
 * together get different numbers. tk_history_add only queues an entry; tk_history_flush appends
 * what is queued with one O_APPEND write, and the engine calls it once the request's idle is
 * out, so the file is off the execute round trip. Queries flush first, then
 * (rare: a frontend's history request) read the whole file. The file is opened on first use,
 * not at start-up, so that a kernel answers kernel_info as soon as it can.
 */
#include "kernel-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct TkHistory {
  char *path;       /* the JSON lines file */
  int fd;           /* O_APPEND descriptor, -1 until opened */
  int session;      /* this kernel's session number, 0 until allocated */
  bool failed;      /* the file cannot be used: history is off (logged once) */
  GString *pending; /* lines queued by tk_history_add, each ending in '\n' */
};

/* One stored input. */
typedef struct {
  int session;  /* session number */
  int line;     /* In[line] */
  char *source; /* the cell, owned */
  char *output; /* text/plain of Out[line], owned, or NULL */
} Entry;

TkHistory *
tk_history_new(void)
{
  TkHistory *history = g_new0(TkHistory, 1);
  const char *env = g_getenv("TRELLIS_HISTORY_FILE");
  history->path = env && *env
                      ? g_strdup(env)
                      : g_build_filename(g_get_user_data_dir(), "trellis", "history.jsonl", NULL);
  history->fd = -1;
  history->pending = g_string_new(NULL);
  return history;
}

void
tk_history_free(TkHistory *history)
{
  if (!history)
    return;
  tk_history_flush(history);
  g_string_free(history->pending, TRUE);
  if (history->fd >= 0)
    close(history->fd);
  g_free(history->path);
  g_free(history);
}

/* The session number of the file's last line (0 for an empty file), read from its tail. */
static int
last_session(int fd)
{
  static const char marker[] = "{\"session\":";
  struct stat st;
  if (fstat(fd, &st) < 0 || st.st_size == 0)
    return 0;
  for (off_t chunk = 65536;; chunk *= 4) {
    off_t start = st.st_size > chunk ? st.st_size - chunk : 0;
    size_t len = (size_t)(st.st_size - start);
    g_autofree char *buf = g_malloc(len + 1);
    ssize_t got = pread(fd, buf, len, start);
    if (got <= 0)
      return 0;
    buf[got] = '\0';
    /* The last line start that begins with the marker. */
    for (ssize_t i = got - 1; i >= 0; i--) {
      bool line_start = i == 0 ? start == 0 : buf[i - 1] == '\n';
      if (line_start && strncmp(buf + i, marker, sizeof marker - 1) == 0)
        return (int)strtol(buf + i + sizeof marker - 1, NULL, 10);
    }
    if (start == 0)
      return 0;
  }
}

/* Whether the file ends inside a line: a kernel was killed while it appended. What comes next
 * then starts with a newline, so that the torn record stays a line of its own (queries skip it)
 * instead of gluing itself to the next one. */
static bool
ends_torn(int fd)
{
  struct stat st;
  char last;
  return fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) == 1 &&
         last != '\n';
}

/* Appends `text` (whole lines) with one write(), after a newline when the file ends torn. */
static bool
append_text(TkHistory *history, const char *text, size_t len)
{
  g_autofree char *joined = NULL;
  if (ends_torn(history->fd)) {
    joined = g_strdup_printf("\n%.*s", (int)len, text);
    text = joined;
    len++;
  }
  return write(history->fd, text, len) == (ssize_t)len;
}

static bool
append_line(TkHistory *history, json_t *obj)
{
  char *text = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (!text)
    return false;
  size_t len = strlen(text);
  text[len] = '\n'; /* overwrite the terminator: the whole line at once */
  bool ok = append_text(history, text, len + 1);
  free(text);
  return ok;
}

/* Open the file and allocate this kernel's session number, once. */
static bool
ensure_open(TkHistory *history)
{
  if (history->fd >= 0)
    return true;
  if (history->failed)
    return false;
  g_autofree char *dir = g_path_get_dirname(history->path);
  g_mkdir_with_parents(dir, 0700);
  history->fd = open(history->path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (history->fd < 0) {
    g_printerr("trellis-kernel: history is off, cannot open %s: %s\n", history->path,
               g_strerror(errno));
    history->failed = true;
    return false;
  }
  flock(history->fd, LOCK_EX);
  history->session = last_session(history->fd) + 1;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc();
  g_autofree char *date = g_date_time_format_iso8601(now);
  json_t *mark =
      json_pack("{s:i, s:i, s:s}", "session", history->session, "line", 0, "start", date);
  append_line(history, mark);
  json_decref(mark);
  flock(history->fd, LOCK_UN);
  return true;
}

int
tk_history_session(TkHistory *history)
{
  ensure_open(history);
  return history->session;
}

void
tk_history_add(TkHistory *history, int line, const char *source, const char *output)
{
  if (!ensure_open(history))
    return;
  json_t *entry = json_pack("{s:i, s:i, s:o, s:o}", "session", history->session, "line", line,
                            "source", tk_json_string(source, -1), "output",
                            output ? tk_json_string(output, -1) : json_null());
  char *text = json_dumps(entry, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(entry);
  if (!text)
    return;
  g_string_append(history->pending, text);
  g_string_append_c(history->pending, '\n');
  free(text);
}

void
tk_history_flush(TkHistory *history)
{
  if (history->pending->len == 0 || history->fd < 0)
    return;
  if (!append_text(history, history->pending->str, history->pending->len))
    g_printerr("trellis-kernel: cannot append to %s: %s\n", history->path, g_strerror(errno));
  g_string_truncate(history->pending, 0);
}

/* ---- queries ------------------------------------------------------------------------------ */

static void
entry_clear(Entry *e)
{
  g_free(e->source);
  g_free(e->output);
}

static int
entry_compare(gconstpointer a, gconstpointer b)
{
  const Entry *x = a, *y = b;
  if (x->session != y->session)
    return x->session < y->session ? -1 : 1;
  return (x->line > y->line) - (x->line < y->line);
}

/* Every stored input, ordered by session then line. Lines that do not parse are skipped. */
static GArray *
load_entries(TkHistory *history)
{
  GArray *entries = g_array_new(FALSE, FALSE, sizeof(Entry));
  g_array_set_clear_func(entries, (GDestroyNotify)entry_clear);
  ensure_open(history);
  tk_history_flush(history);
  g_autofree char *text = NULL;
  gsize len;
  if (!g_file_get_contents(history->path, &text, &len, NULL))
    return entries;
  for (char *line = text, *next; line < text + len; line = next) {
    char *nl = memchr(line, '\n', text + len - line);
    next = nl ? nl + 1 : text + len;
    json_t *obj = json_loadb(line, next - line, 0, NULL);
    json_int_t session, number;
    const char *source = NULL;
    json_t *output = NULL;
    if (obj &&
        json_unpack(obj, "{s:I, s:I, s:s, s?o}", "session", &session, "line", &number, "source",
                    &source, "output", &output) == 0 &&
        number > 0 && session > 0 && session <= G_MAXINT && number <= G_MAXINT) {
      Entry e = {(int)session, (int)number, g_strdup(source), g_strdup(json_string_value(output))};
      g_array_append_val(entries, e);
    }
    json_decref(obj);
  }
  g_array_sort(entries, entry_compare);
  return entries;
}

static json_t *
entry_json(const Entry *e, bool output)
{
  json_t *input = tk_json_string(e->source, -1);
  if (output)
    input = json_pack("[o, o]", input, e->output ? tk_json_string(e->output, -1) : json_null());
  return json_pack("[i, i, o]", e->session, e->line, input);
}

json_t *
tk_history_tail(TkHistory *history, int n, bool output)
{
  g_autoptr(GArray) entries = load_entries(history);
  json_t *list = json_array();
  guint first = n >= 0 && (guint)n < entries->len ? entries->len - n : 0;
  for (guint i = first; i < entries->len; i++)
    json_array_append_new(list, entry_json(&g_array_index(entries, Entry, i), output));
  return list;
}

json_t *
tk_history_range(TkHistory *history, int session, int start, int stop, bool output)
{
  g_autoptr(GArray) entries = load_entries(history);
  if (session <= 0)
    session += tk_history_session(history);
  json_t *list = json_array();
  for (guint i = 0; i < entries->len; i++) {
    const Entry *e = &g_array_index(entries, Entry, i);
    if (e->session == session && e->line >= start && (stop <= 0 || e->line < stop))
      json_array_append_new(list, entry_json(e, output));
  }
  return list;
}

json_t *
tk_history_search(TkHistory *history, const char *pattern, int n, bool unique, bool output)
{
  g_autoptr(GArray) entries = load_entries(history);
  g_autoptr(GPatternSpec) spec = g_pattern_spec_new(pattern);
  g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) hits = g_ptr_array_new();
  /* Newest first, so that `n` and `unique` keep the latest ones. */
  for (guint i = entries->len; i-- > 0 && (n <= 0 || hits->len < (guint)n);) {
    Entry *e = &g_array_index(entries, Entry, i);
    if (!g_pattern_spec_match_string(spec, e->source))
      continue;
    if (unique && !g_hash_table_add(seen, e->source))
      continue;
    g_ptr_array_add(hits, e);
  }
  json_t *list = json_array();
  for (guint i = hits->len; i-- > 0;)
    json_array_append_new(list, entry_json(hits->pdata[i], output));
  return list;
}
