#include "core/common/sha256.h"

#include "core/common/mapped_file.h"

#include <algorithm>
#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace gapscope {

namespace {

std::string hashInChunks(ByteSpan bytes, const std::atomic<bool>* cancelled, const MappedFile* release) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
    constexpr std::size_t kChunk = 16u << 20;
    bool stopped = false;
    for (std::size_t at = 0; at < bytes.size && !stopped; at += kChunk) {
        const ByteSpan chunk = bytes.subspan(at, std::min(kChunk, bytes.size - at));
        EVP_DigestUpdate(ctx, chunk.data, chunk.size);
        if (release)
            release->release(chunk);
        stopped = cancelled && cancelled->load(std::memory_order_relaxed);
    }
    if (!stopped)
        EVP_DigestFinal_ex(ctx, digest, &length);
    EVP_MD_CTX_free(ctx);
    // Hashing runs on long-lived background threads that outlive OpenSSL's own
    // exit-time cleanup (they are joined by a static destructor after it): free
    // this thread's OpenSSL state now rather than leave it for a thread exit
    // that comes too late to release it.
    OPENSSL_thread_stop();
    if (stopped)
        return {};
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * length);
    for (unsigned int i = 0; i < length; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

} // namespace

std::string sha256Hex(ByteSpan bytes, const std::atomic<bool>* cancelled) {
    return hashInChunks(bytes, cancelled, nullptr);
}

std::string sha256Hex(const MappedFile& file, const std::atomic<bool>* cancelled) {
    return hashInChunks(file.bytes(), cancelled, &file);
}

} // namespace gapscope
