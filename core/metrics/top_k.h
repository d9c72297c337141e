#pragma once

#include <cstddef>

namespace gapscope {

// The k (≤ 8) largest of a row, by value descending then index ascending, into
// out, best first: the indices a partial_sort by that order gives, in one pass
// and without sorting an index array per row. Returns how many were found
// (min(k, n)). Rows holding a NaN, which has no place in that order, are the
// caller's to handle.
std::size_t topK(const double* v, std::size_t n, std::size_t k, std::size_t* out);

// The same for a float32 row read in place, as topK would rank its float64
// values (the conversion is exact and keeps order), without decoding. False,
// and nothing to use in out, when the row holds a NaN.
bool topKFloat(const float* v, std::size_t n, std::size_t k, std::size_t* out);

// Whether the k given indices (distinct, k ≤ 8) are the k largest of a float32
// row by topK's order: true when the row holds no NaN and no other value
// reaches the least of theirs. Then out gets them, the best first (the row's
// first, as topKFloat ranks it), the others in no promised order (the
// agreement compares them as a set). A row ranked on one side is checked
// on the other with one compare a value (TopKAgreement): rows whose ranks
// agree, most rows of a healthy model, are not ranked twice. False says
// nothing: rank the row.
bool isTopKFloat(const float* v, std::size_t n, const std::size_t* indices, std::size_t k, std::size_t* out);

} // namespace gapscope
