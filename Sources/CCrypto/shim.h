// The SHA-256 low-level API (SHA256_Init/Update/Final over a plain SHA256_CTX) is deprecated in OpenSSL 3 but kept:
// HMACSHA256 copies a precomputed context by value per MAC, which the EVP API can only do with allocations.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
