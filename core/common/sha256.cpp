#include "core/common/sha256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace gapscope {

std::string sha256Hex(ByteSpan bytes) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_Digest(bytes.data, bytes.size, digest, &length, EVP_sha256(), nullptr);
    // Hashing runs on long-lived background threads that outlive OpenSSL's own
    // exit-time cleanup (they are joined by a static destructor after it): free
    // this thread's OpenSSL state now rather than leave it for a thread exit
    // that comes too late to release it.
    OPENSSL_thread_stop();
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * length);
    for (unsigned int i = 0; i < length; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

} // namespace gapscope
