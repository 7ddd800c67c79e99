// The SHA-256 low-level API (SHA256_Init/Update/Final over a plain SHA256_CTX) is deprecated in OpenSSL 3 but kept:
// HMACSHA256 copies a precomputed context by value per MAC, which the EVP API can only do with allocations.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
// Public keys from their components (OSSL_PARAM_BLD + EVP_PKEY_fromdata), ECDSA signature encoding, error queue.
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/param_build.h>

// EVP_PKEY_PUBLIC_KEY is a macro of macros, which Swift does not import.
static inline int dvp_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }
