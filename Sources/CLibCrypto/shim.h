// SHA-256's own functions (SHA256_Init, SHA256_Update, SHA256_Final): the same assembly as EVP's
// SHA-256, SHA extensions included, without EVP's first call loading OpenSSL's configuration and
// its default provider (about 2 MiB more resident in every process that hashes). OpenSSL 3 marks
// them deprecated in favour of EVP; they are in every 3.x release.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
