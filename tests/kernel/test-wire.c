/* test-wire.c — the kernel's wire helpers without a socket: the replay guard's memory. */
#include "kernel-private.h"

static GBytes *
digest(const char *text)
{
  return g_bytes_new(text, strlen(text));
}

static bool
check(TkReplayGuard *guard, const char *text)
{
  g_autoptr(GBytes) d = digest(text);
  return tk_replay_guard_check(guard, d);
}

#define HEX64(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c "0123456789abcdef"

static void
test_replay_guard_refuses_a_digest_seen_before(void)
{
  TkReplayGuard *guard = tk_replay_guard_new(8);
  g_assert_true(check(guard, HEX64("ab")));
  g_assert_false(check(guard, HEX64("ab")));
  g_assert_true(check(guard, HEX64("cd")));
  g_assert_false(check(guard, HEX64("cd")));
  g_assert_false(check(guard, HEX64("ab")));
  tk_replay_guard_free(guard);
}

static void
test_replay_guard_forgets_the_oldest_first(void)
{
  TkReplayGuard *guard = tk_replay_guard_new(3);
  const char *d[] = {HEX64("a1"), HEX64("b2"), HEX64("c3"), HEX64("d4")};
  for (int i = 0; i < 3; i++)
    g_assert_true(check(guard, d[i]));
  g_assert_true(check(guard, d[3])); /* d[0] is forgotten */
  g_assert_false(check(guard, d[1]));
  g_assert_false(check(guard, d[2]));
  g_assert_false(check(guard, d[3]));
  g_assert_true(check(guard, d[0])); /* remembered again; d[1] forgotten */
  g_assert_true(check(guard, d[1]));
  tk_replay_guard_free(guard);
}

static void
test_replay_guard_keeps_short_digests_apart(void)
{
  /* Digests shorter than the remembered prefix are compared whole (zero-padded). */
  TkReplayGuard *guard = tk_replay_guard_new(4);
  g_assert_true(check(guard, "abc"));
  g_assert_true(check(guard, "abcd"));
  g_assert_false(check(guard, "abc"));
  tk_replay_guard_free(guard);
}

static void
mark_freed(gpointer data)
{
  *(bool *)data = true;
}

static void
test_replay_guard_holds_no_reference_to_the_digest(void)
{
  /* A digest usually views a received frame; holding it would pin the socket's buffer. */
  static const char text[] = HEX64("ef");
  bool freed = false;
  TkReplayGuard *guard = tk_replay_guard_new(4);
  GBytes *d = g_bytes_new_with_free_func(text, sizeof text - 1, mark_freed, &freed);
  g_assert_true(tk_replay_guard_check(guard, d));
  g_bytes_unref(d);
  g_assert_true(freed);
  g_autoptr(GBytes) again = digest(text);
  g_assert_false(tk_replay_guard_check(guard, again));
  tk_replay_guard_free(guard);
}

/* core/wire's signer, which the kernel and the debugger share: RFC 4231's HMAC-SHA256 test
 * case 2, however the message is cut into frames; a forged or truncated signature refused; no
 * key, no signing; an unknown scheme refused. */
static void
test_signer(void)
{
  g_autoptr(TrWireSigner) signer = tr_wire_signer_new("hmac-sha256", "Jefe");
  g_assert_nonnull(signer);
  g_assert_true(tr_wire_signer_enabled(signer));
  const char *want = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
  const void *whole[] = {"what do ya want for nothing?"};
  const size_t whole_size[] = {28};
  const void *cut[] = {"what do ya ", "want for nothing?"};
  const size_t cut_size[] = {11, 17};
  g_autofree char *one = tr_wire_signer_sign(signer, whole, whole_size, 1);
  g_autofree char *two = tr_wire_signer_sign(signer, cut, cut_size, 2);
  g_assert_cmpstr(one, ==, want);
  g_assert_cmpstr(two, ==, want);
  g_assert_true(tr_wire_signer_verify(signer, want, 64, cut, cut_size, 2));
  g_autofree char *forged = g_strdup(want);
  forged[63] = forged[63] == '3' ? '4' : '3';
  g_assert_false(tr_wire_signer_verify(signer, forged, 64, cut, cut_size, 2));
  g_assert_false(tr_wire_signer_verify(signer, want, 63, cut, cut_size, 2));
  g_assert_false(tr_wire_signer_verify(signer, "", 0, cut, cut_size, 2));
  g_autoptr(TrWireSigner) copy = tr_wire_signer_copy(signer);
  g_autofree char *again = tr_wire_signer_sign(copy, whole, whole_size, 1);
  g_assert_cmpstr(again, ==, want);

  g_autoptr(TrWireSigner) open = tr_wire_signer_new("hmac-sha512", "");
  g_assert_false(tr_wire_signer_enabled(open));
  g_autofree char *none = tr_wire_signer_sign(open, whole, whole_size, 1);
  g_assert_cmpstr(none, ==, "");
  g_assert_true(tr_wire_signer_verify(open, "anything", 8, whole, whole_size, 1));
  g_assert_null(tr_wire_signer_new("hmac-sha3", "k"));
  g_autoptr(GError) error = NULL;
  g_assert_null(tk_signer_new("rot13", "k", &error));
  g_assert_error(error, TK_ERROR, TK_ERROR_CONNECTION);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/wire/signer/rfc4231-frames-forgeries-no-key", test_signer);
  g_test_add_func("/kernel/replay-guard/refuses-a-digest-seen-before",
                  test_replay_guard_refuses_a_digest_seen_before);
  g_test_add_func("/kernel/replay-guard/forgets-the-oldest-first",
                  test_replay_guard_forgets_the_oldest_first);
  g_test_add_func("/kernel/replay-guard/keeps-short-digests-apart",
                  test_replay_guard_keeps_short_digests_apart);
  g_test_add_func("/kernel/replay-guard/holds-no-reference-to-the-digest",
                  test_replay_guard_holds_no_reference_to_the_digest);
  return g_test_run();
}
