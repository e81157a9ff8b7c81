/* tr-wire.h — the signatures of Jupyter's wire protocol, for the kernel (kernel/) and the
 * debugger (gui/), which both sign what they send and check what they receive.
 *
 * A signature is the hex HMAC of a message's frames under the connection file's key, with the
 * digest its "signature_scheme" names ("hmac-sha256" and the others GLib's GHmac knows). An
 * empty key turns signing off: signatures are "" and every one is accepted. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

G_BEGIN_DECLS

typedef struct TrWireSigner TrWireSigner;

/* A signer for `scheme` and `key` (NULL or "" for none), or NULL when the scheme is not one of
 * "hmac-sha256", "hmac-sha512", "hmac-sha384", "hmac-sha1", "hmac-md5". Transfer full. */
TrWireSigner *tr_wire_signer_new(const char *scheme, const char *key);
TrWireSigner *tr_wire_signer_copy(const TrWireSigner *signer);
void tr_wire_signer_free(TrWireSigner *signer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrWireSigner, tr_wire_signer_free)

/* Whether messages are signed (a key was given). */
bool tr_wire_signer_enabled(const TrWireSigner *signer);

/* The hex HMAC of `n` frames (frame i is `sizes[i]` bytes at `data[i]`), or "" when signing is
 * off. Transfer full. Safe from several threads at once on one signer. */
char *tr_wire_signer_sign(const TrWireSigner *signer, const void *const *data, const size_t *sizes,
                          guint n);

/* Whether `signature` (`len` bytes, not NUL-terminated) is the frames' signature; every byte is
 * compared whatever the earlier ones were, so the time taken says nothing of where a forged
 * signature went wrong. Always true when signing is off. */
bool tr_wire_signer_verify(const TrWireSigner *signer, const void *signature, size_t len,
                           const void *const *data, const size_t *sizes, guint n);

G_END_DECLS
