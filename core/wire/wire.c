/* The wire protocol's signatures (tr-wire.h). */
#include "tr-wire.h"

#include <string.h>

struct TrWireSigner {
  GHmac *keyed;       /* HMAC state after the key, copied for each message; NULL: no signing */
  GChecksumType type; /* digest of the scheme */
};

/* Signature schemes, "hmac-" + a digest GLib's GHmac knows. */
static const struct {
  const char *scheme;
  GChecksumType type;
} schemes[] = {
    {"hmac-sha256", G_CHECKSUM_SHA256}, {"hmac-sha512", G_CHECKSUM_SHA512},
    {"hmac-sha384", G_CHECKSUM_SHA384}, {"hmac-sha1", G_CHECKSUM_SHA1},
    {"hmac-md5", G_CHECKSUM_MD5},
};

TrWireSigner *
tr_wire_signer_new(const char *scheme, const char *key)
{
  g_return_val_if_fail(scheme != NULL, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(schemes); i++) {
    if (strcmp(scheme, schemes[i].scheme) != 0)
      continue;
    TrWireSigner *signer = g_new0(TrWireSigner, 1);
    signer->type = schemes[i].type;
    if (key && *key)
      signer->keyed = g_hmac_new(signer->type, (const guchar *)key, strlen(key));
    return signer;
  }
  return NULL;
}

TrWireSigner *
tr_wire_signer_copy(const TrWireSigner *signer)
{
  TrWireSigner *copy = g_new0(TrWireSigner, 1);
  copy->type = signer->type;
  copy->keyed = signer->keyed ? g_hmac_copy(signer->keyed) : NULL;
  return copy;
}

void
tr_wire_signer_free(TrWireSigner *signer)
{
  if (!signer)
    return;
  if (signer->keyed)
    g_hmac_unref(signer->keyed);
  g_free(signer);
}

bool
tr_wire_signer_enabled(const TrWireSigner *signer)
{
  return signer->keyed != NULL;
}

char *
tr_wire_signer_sign(const TrWireSigner *signer, const void *const *data, const size_t *sizes,
                    guint n)
{
  if (!signer->keyed)
    return g_strdup("");
  GHmac *hmac = g_hmac_copy(signer->keyed); /* reads the keyed state only */
  for (guint i = 0; i < n; i++)
    g_hmac_update(hmac, data[i], (gssize)sizes[i]);
  char *hex = g_strdup(g_hmac_get_string(hmac));
  g_hmac_unref(hmac);
  return hex;
}

bool
tr_wire_signer_verify(const TrWireSigner *signer, const void *signature, size_t len,
                      const void *const *data, const size_t *sizes, guint n)
{
  if (!signer->keyed)
    return true;
  g_autofree char *expected = tr_wire_signer_sign(signer, data, sizes, n);
  if (len != strlen(expected))
    return false;
  const unsigned char *got = signature;
  unsigned char diff = 0;
  for (size_t i = 0; i < len; i++)
    diff |= got[i] ^ (unsigned char)expected[i];
  return diff == 0;
}
