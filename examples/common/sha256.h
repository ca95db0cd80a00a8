// sha256.h: SHA-256 (FIPS 180-4) for the examples' digests, so they need no
// crypto library. Not for security.
#ifndef LMDBIO_EXAMPLES_SHA256_H
#define LMDBIO_EXAMPLES_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sha256_ctx {
	uint32_t h[8];
	uint64_t length;   // bytes hashed so far
	uint8_t block[64]; // a partial block
	size_t used;       // bytes in block
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t n);
void sha256_final(sha256_ctx *c, uint8_t out[32]);

// record_digest is the digest contract's per-record value: the little-endian
// uint64 of the first 8 bytes of SHA-256(key || value).
uint64_t record_digest(const void *key, size_t klen, const void *value, size_t vlen);

#ifdef __cplusplus
}
#endif

#endif
