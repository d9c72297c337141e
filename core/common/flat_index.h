#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

namespace gapscope {

// The key of a FlatIndex whose values tell their keys apart themselves (an
// index into the caller's list of keyed items): its slots hold the value alone.
struct NoKey {};

template <typename Key> struct FlatSlot {
    Key key;
    std::size_t value;
};
template <> struct FlatSlot<NoKey> { std::size_t value; };

// Keys to indices (into the caller's own vectors) by open addressing over one
// array, for the lookups on the opening's path: std::unordered_map allocated a
// node per key and freed each again, a third of merging 50,000 runtime entries
// and most of indexing 50,000 capture tensors by name.
//
// Sized once for at most `keys` keys, at most half full: it never grows, and
// adding more keys than it was sized for is the caller's bug. A key is cheap to
// copy (a handle, a pointer, a view into what outlives the index); `same(slot)`
// tells whether a slot is the one sought. Lookups on a const index may run on
// several threads.
template <typename Key> class FlatIndex {
public:
    using Slot = FlatSlot<Key>;
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

    explicit FlatIndex(std::size_t keys) {
        std::size_t size = 16;
        while (size < 2 * keys)
            size *= 2;
        m_slots.assign(size, emptySlot());
    }

    // The value slot of `key` (kNone where the key is new: assign it to add
    // the key, or it stays absent).
    template <typename Same> std::size_t& at(const Key& key, std::size_t hash, Same same) {
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t i = start(hash, mask);; i = (i + 1) & mask) {
            Slot& slot = m_slots[i];
            if (slot.value == kNone) {
                if constexpr (!std::is_same_v<Key, NoKey>)
                    slot.key = key;
                return slot.value;
            }
            if (same(slot))
                return slot.value;
        }
    }

    // The value of the slot `same` recognises, or kNone.
    template <typename Same> std::size_t find(std::size_t hash, Same same) const {
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t i = start(hash, mask);; i = (i + 1) & mask) {
            const Slot& slot = m_slots[i];
            if (slot.value == kNone)
                return kNone;
            if (same(slot))
                return slot.value;
        }
    }

private:
    // The hash's own low bits, high bits folded in: consecutive handles (the
    // usual keys) take consecutive slots, which keeps a walk over 50,000 of them
    // in cache; keys apart by a power of two still spread. (Fibonacci hashing
    // spread consecutive handles over the whole table: a merge took 15% longer.)
    static std::size_t start(std::size_t hash, std::size_t mask) {
        return (hash ^ (hash >> 13) ^ (hash >> 29)) & mask;
    }
    static Slot emptySlot() {
        Slot s{};
        s.value = kNone;
        return s;
    }

    std::vector<Slot> m_slots;
};

} // namespace gapscope
