// SHA1_Init/Update/Final are deprecated in OpenSSL 3 but still exported; they are the only
// SHA-1 interface whose state is a plain struct that can be copied without allocating.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "CHMACSHA1.h"
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

struct sluice_hmac_sha1 {
    SHA_CTX inner;  // after absorbing key ^ ipad
    SHA_CTX outer;  // after absorbing key ^ opad
};

sluice_hmac_sha1 *sluice_hmac_sha1_create(const uint8_t *key, size_t key_length) {
    sluice_hmac_sha1 *state = calloc(1, sizeof(*state));
    if (!state) return NULL;
    uint8_t block[SHA_CBLOCK] = {0};
    if (key_length > SHA_CBLOCK) {
        SHA1(key, key_length, block);
    } else if (key_length > 0) {
        memcpy(block, key, key_length);
    }
    uint8_t pad[SHA_CBLOCK];
    for (size_t i = 0; i < SHA_CBLOCK; i++) pad[i] = block[i] ^ 0x36;
    SHA1_Init(&state->inner);
    SHA1_Update(&state->inner, pad, sizeof(pad));
    for (size_t i = 0; i < SHA_CBLOCK; i++) pad[i] = block[i] ^ 0x5c;
    SHA1_Init(&state->outer);
    SHA1_Update(&state->outer, pad, sizeof(pad));
    OPENSSL_cleanse(block, sizeof(block));
    OPENSSL_cleanse(pad, sizeof(pad));
    return state;
}

void sluice_hmac_sha1_destroy(sluice_hmac_sha1 *state) {
    if (!state) return;
    OPENSSL_cleanse(state, sizeof(*state));
    free(state);
}

void sluice_hmac_sha1_compute(const sluice_hmac_sha1 *state, const void *data, size_t length,
                              const void *suffix, size_t suffix_length, uint8_t *digest) {
    SHA_CTX context = state->inner;
    uint8_t inner[SHA_DIGEST_LENGTH];
    SHA1_Update(&context, data, length);
    if (suffix_length > 0) SHA1_Update(&context, suffix, suffix_length);
    SHA1_Final(inner, &context);
    context = state->outer;
    SHA1_Update(&context, inner, sizeof(inner));
    SHA1_Final(digest, &context);
    OPENSSL_cleanse(&context, sizeof(context));
}
