// HMAC-SHA1 for SRTP's AES_CM_128_HMAC_SHA1_80 profile (RFC 3711 section 4.2.1), with no
// allocation per message. OpenSSL 3's HMAC (EVP_MAC, or HMAC_Init_ex to re-key) duplicates
// its digest context on every init, which allocates; this keeps the SHA-1 states after the
// key's inner and outer pads once per session and copies them, by value, for each message.
// The state is opaque here so that Swift never sees OpenSSL's SHA_CTX (or its deprecation).
#ifndef SLUICE_CHMACSHA1_H
#define SLUICE_CHMACSHA1_H

#include <stddef.h>
#include <stdint.h>

typedef struct sluice_hmac_sha1 sluice_hmac_sha1;

enum { SLUICE_SHA1_DIGEST_LENGTH = 20 };

// A keyed state; NULL if the allocation failed. A key longer than SHA-1's block (64 bytes)
// is hashed first, as RFC 2104 says (SRTP's 20-byte keys never are).
sluice_hmac_sha1 *sluice_hmac_sha1_create(const uint8_t *key, size_t key_length);
// Wipes the key-dependent states, then frees.
void sluice_hmac_sha1_destroy(sluice_hmac_sha1 *state);

// HMAC(key, data || suffix) into digest (20 bytes). SRTP authenticates the packet followed by
// the rollover counter, which is not in the packet: the suffix saves a copy.
void sluice_hmac_sha1_compute(const sluice_hmac_sha1 *state, const void *data, size_t length,
                              const void *suffix, size_t suffix_length, uint8_t *digest);

#endif
