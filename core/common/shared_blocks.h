#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gapscope {

// A vector whose elements live in blocks that copies share by pointer, copied
// only when one of them is written (copy on write, per block). A comparison's
// rows are held so (issue 57): a staged load publishes a snapshot after every
// batch it measures, and each snapshot copied every row before; now it copies
// a pointer per block, and the loader's next batch copies the few blocks it
// writes. A snapshot is never written after it is published, so the blocks it
// shares stay as they were.
//
// Not thread-safe for writing: one owner writes its copy (the loader's own),
// others read theirs; a block is copied before a write whenever anyone else
// holds it (a count seen as shared that a reader then drops costs one copy).
template <typename T> class SharedBlocks {
public:
    static constexpr std::size_t kBlock = 256;

    template <bool Const> class Iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = std::conditional_t<Const, const T*, T*>;
        using reference = std::conditional_t<Const, const T&, T&>;
        using Owner = std::conditional_t<Const, const SharedBlocks, SharedBlocks>;

        Iterator() = default;
        Iterator(Owner* owner, std::size_t at) : m_owner(owner), m_at(at) {}
        operator Iterator<true>() const { return {m_owner, m_at}; }

        reference operator*() const { return (*m_owner)[m_at]; }
        pointer operator->() const { return &(*m_owner)[m_at]; }
        reference operator[](difference_type n) const { return (*m_owner)[m_at + n]; }
        Iterator& operator++() { return ++m_at, *this; }
        Iterator operator++(int) { return {m_owner, m_at++}; }
        Iterator& operator--() { return --m_at, *this; }
        Iterator operator--(int) { return {m_owner, m_at--}; }
        Iterator& operator+=(difference_type n) { return m_at += n, *this; }
        Iterator& operator-=(difference_type n) { return m_at -= n, *this; }
        friend Iterator operator+(Iterator i, difference_type n) { return i += n; }
        friend Iterator operator+(difference_type n, Iterator i) { return i += n; }
        friend Iterator operator-(Iterator i, difference_type n) { return i -= n; }
        friend difference_type operator-(const Iterator& a, const Iterator& b) {
            return static_cast<difference_type>(a.m_at) - static_cast<difference_type>(b.m_at);
        }
        friend bool operator==(const Iterator& a, const Iterator& b) { return a.m_at == b.m_at; }
        friend bool operator!=(const Iterator& a, const Iterator& b) { return a.m_at != b.m_at; }
        friend bool operator<(const Iterator& a, const Iterator& b) { return a.m_at < b.m_at; }
        friend bool operator>(const Iterator& a, const Iterator& b) { return a.m_at > b.m_at; }
        friend bool operator<=(const Iterator& a, const Iterator& b) { return a.m_at <= b.m_at; }
        friend bool operator>=(const Iterator& a, const Iterator& b) { return a.m_at >= b.m_at; }

    private:
        Owner* m_owner = nullptr;
        std::size_t m_at = 0;
    };
    using iterator = Iterator<false>;
    using const_iterator = Iterator<true>;
    using value_type = T;
    using size_type = std::size_t;

    SharedBlocks() = default;
    SharedBlocks(std::initializer_list<T> values) {
        for (const auto& v : values)
            push_back(v);
    }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

    const T& operator[](std::size_t i) const { return (*m_blocks[i / kBlock])[i % kBlock]; }
    T& operator[](std::size_t i) { return (*own(i / kBlock))[i % kBlock]; }
    const T& at(std::size_t i) const { return i < m_size ? (*this)[i] : outOfRange(); }
    T& at(std::size_t i) {
        if (i >= m_size)
            outOfRange();
        return (*this)[i];
    }
    const T& front() const { return (*this)[0]; }
    T& front() { return (*this)[0]; }
    const T& back() const { return (*this)[m_size - 1]; }
    T& back() { return (*this)[m_size - 1]; }

    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, m_size}; }
    // Writable iteration owns every block first.
    iterator begin() {
        for (std::size_t b = 0; b < m_blocks.size(); ++b)
            own(b);
        return {this, 0};
    }
    iterator end() { return {this, m_size}; }

    void push_back(T value) {
        if (m_size % kBlock == 0) {
            m_blocks.push_back(std::make_shared<std::vector<T>>());
            m_blocks.back()->reserve(kBlock);
        }
        own(m_blocks.size() - 1)->push_back(std::move(value));
        ++m_size;
    }
    void reserve(std::size_t n) { m_blocks.reserve((n + kBlock - 1) / kBlock); }
    void clear() {
        m_blocks.clear();
        m_size = 0;
    }
    void resize(std::size_t n) {
        while (m_size > n) {
            auto& last = *own(m_blocks.size() - 1);
            last.pop_back();
            if (last.empty())
                m_blocks.pop_back();
            --m_size;
        }
        while (m_size < n)
            push_back(T());
    }

private:
    // The block, copied first when another copy shares it.
    const std::shared_ptr<std::vector<T>>& own(std::size_t block) {
        auto& b = m_blocks[block];
        if (b.use_count() > 1)
            b = std::make_shared<std::vector<T>>(*b);
        return b;
    }
    [[noreturn]] static const T& outOfRange() { throw std::out_of_range("SharedBlocks::at"); }

    std::vector<std::shared_ptr<std::vector<T>>> m_blocks;
    std::size_t m_size = 0;
};

} // namespace gapscope
