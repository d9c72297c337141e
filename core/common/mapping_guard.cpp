#include "core/common/mapping_guard.h"

#include <csignal>
#include <cstdint>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace gapscope {

namespace {

// Fixed slots read by the signal handler without locks (only atomics there).
struct Slot {
    std::atomic<std::uintptr_t> begin{0}, end{0};
    std::atomic<std::atomic<bool>*> changed{nullptr};
};
constexpr int kSlots = 1024;
Slot g_slots[kSlots];
struct sigaction g_previous;

void onSigbus(int signal, siginfo_t* info, void* context) {
    const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (auto& slot : g_slots) {
        const auto begin = slot.begin.load(std::memory_order_acquire);
        if (begin == 0 || address < begin || address >= slot.end.load(std::memory_order_acquire))
            continue;
        // Zeros in place of the vanished page; mmap is async-signal-safe.
        const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
        void* at = reinterpret_cast<void*>(address & ~(page - 1));
        if (::mmap(at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            if (auto* flag = slot.changed.load(std::memory_order_acquire))
                flag->store(true, std::memory_order_relaxed);
            return; // the faulting read runs again and reads zeros
        }
    }
    // Not ours: what was installed before (the default: terminate with SIGBUS).
    if (g_previous.sa_flags & SA_SIGINFO) {
        if (g_previous.sa_sigaction) {
            g_previous.sa_sigaction(signal, info, context);
            return;
        }
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
        g_previous.sa_handler(signal);
        return;
    }
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

std::mutex g_mutex; // serialises guard/unguard (never taken by the handler)

void install() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction action {};
        action.sa_sigaction = onSigbus;
        action.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGBUS, &action, &g_previous);
    });
}

} // namespace

int guardMapping(const void* begin, std::size_t size, std::atomic<bool>* changed) {
    install();
    std::lock_guard<std::mutex> lock(g_mutex);
    for (int i = 0; i < kSlots; ++i) {
        if (g_slots[i].begin.load(std::memory_order_acquire) != 0)
            continue;
        const auto b = reinterpret_cast<std::uintptr_t>(begin);
        g_slots[i].changed.store(changed, std::memory_order_release);
        g_slots[i].end.store(b + size, std::memory_order_release);
        g_slots[i].begin.store(b, std::memory_order_release);
        return i;
    }
    return -1;
}

void unguardMapping(int slot) {
    if (slot < 0 || slot >= kSlots)
        return;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_slots[slot].begin.store(0, std::memory_order_release);
    g_slots[slot].end.store(0, std::memory_order_release);
    g_slots[slot].changed.store(nullptr, std::memory_order_release);
}

} // namespace gapscope
