#include "core/runs/run_match.h"

#include "core/compare/op_kind.h"
#include "core/compare/row_name.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

namespace gapscope {

const char* matchBasisName(MatchBasis basis) {
    switch (basis) {
    case MatchBasis::DebugHandle: return "debug_handle";
    case MatchBasis::OpSourceShape: return "op_source_shape";
    case MatchBasis::OpSource: return "op_source";
    case MatchBasis::OpShape: return "op_shape";
    case MatchBasis::OpOrder: return "op_order";
    case MatchBasis::FoldedBatchNorm: return "folded_batch_norm";
    case MatchBasis::Unmatched: return "unmatched";
    }
    return "unmatched";
}

const char* matchBasisLabel(MatchBasis basis) {
    switch (basis) {
    case MatchBasis::DebugHandle: return "same debug handle";
    case MatchBasis::OpSourceShape: return "op, code and shape";
    case MatchBasis::OpSource: return "op and code";
    case MatchBasis::OpShape: return "op and shape";
    case MatchBasis::OpOrder: return "op, in order";
    case MatchBasis::FoldedBatchNorm: return "folded BatchNorm";
    case MatchBasis::Unmatched: return "no partner";
    }
    return "no partner";
}

namespace {

// A row as the matcher sees it: what its compared output is.
struct Key {
    std::string kind;          // opKind of the row's compared (last) op
    const std::string* source; // "" unknown
    const std::string* shapes; // "" unknown
};

// PT2E's rule for folding the BatchNorm after an op (prepare_pt2e: _fuse_conv_bn_,
// _fuse_linear_bn_), as python/gapscope_capture/float_reference.py `_pt2e_folds`
// applies it: a conv or conv-transpose always, a linear when its input has at
// most 2 dimensions (a linear keeps its input's leading dimensions, so its
// output's rank tells). Issue 57: this side knew only the conv. The two sides
// read different things (FX nodes there, row op kinds here), so the rule is
// written twice and pinned on each side by the same cases.
bool foldsBatchNorm(const Key& k) {
    if (k.kind == "conv" || k.kind.rfind("conv_transpose", 0) == 0)
        return true;
    if (k.kind != "linear" || k.shapes->empty())
        return false;
    const std::string first = k.shapes->substr(0, k.shapes->find(';'));
    if (first == "scalar")
        return true;
    return std::count(first.begin(), first.end(), 'x') + 1 <= 2;
}

// A run's rows in its reference graph's order (by the compared node's handle:
// a delegate logs its outputs at once, in no graph order), with their keys.
struct Side {
    const RunSummary* run;
    std::vector<std::size_t> order; // position → row
    std::vector<Key> keys;          // by position
    const RunRow& row(std::size_t position) const { return run->rows[order[position]]; }
};

Side sideOf(const RunSummary& run) {
    Side side{&run, {}, {}};
    side.order.resize(run.rows.size());
    for (std::size_t i = 0; i < side.order.size(); ++i)
        side.order[i] = i;
    std::stable_sort(side.order.begin(), side.order.end(), [&](std::size_t x, std::size_t y) {
        return run.rows[x].compared_handle < run.rows[y].compared_handle;
    });
    for (const auto i : side.order) {
        const auto& r = run.rows[i];
        side.keys.push_back({opKind(r.compared_node), &r.source, &r.shapes});
    }
    return side;
}

// How well two rows pair: 0 when they cannot (another op). Weighted so that
// the same code location outweighs the same shape, and both outweigh order.
int score(const Key& a, const Key& b) {
    if (a.kind.empty() || a.kind != b.kind)
        return 0;
    int s = 4;
    if (!a.source->empty() && !b.source->empty())
        s += *a.source == *b.source ? 4 : -3;
    if (!a.shapes->empty() && *a.shapes == *b.shapes)
        s += 2;
    return s;
}

MatchBasis basisOf(const Key& a, const Key& b) {
    const bool source = !a.source->empty() && *a.source == *b.source;
    const bool shape = !a.shapes->empty() && *a.shapes == *b.shapes;
    return source ? (shape ? MatchBasis::OpSourceShape : MatchBasis::OpSource)
                  : (shape ? MatchBasis::OpShape : MatchBasis::OpOrder);
}

// The order-keeping pairing of rows [a0, a1) with [b0, b1) of highest total
// score (a weighted longest common subsequence). Ranges too big for the table
// (kMaxCells) pair greedily in order instead.
constexpr std::size_t kMaxCells = std::size_t(1) << 24;

void alignRange(const std::vector<Key>& ka, const std::vector<Key>& kb, std::size_t a0, std::size_t a1,
                std::size_t b0, std::size_t b1, std::vector<std::pair<std::size_t, std::size_t>>& out) {
    const std::size_t n = a1 - a0, m = b1 - b0;
    if (n == 0 || m == 0)
        return;
    if (n * m > kMaxCells) {
        std::size_t j = b0;
        for (std::size_t i = a0; i < a1 && j < b1; ++i)
            for (std::size_t k = j; k < b1 && k < j + 64; ++k)
                if (score(ka[i], kb[k]) > 0) {
                    out.emplace_back(i, k);
                    j = k + 1;
                    break;
                }
        return;
    }
    // best[i][j]: the best total over a-rows from i and b-rows from j.
    std::vector<std::int32_t> best((n + 1) * (m + 1), 0);
    const auto at = [&](std::size_t i, std::size_t j) -> std::int32_t& { return best[i * (m + 1) + j]; };
    for (std::size_t i = n; i-- > 0;)
        for (std::size_t j = m; j-- > 0;) {
            std::int32_t v = std::max(at(i + 1, j), at(i, j + 1));
            if (const int s = score(ka[a0 + i], kb[b0 + j]); s > 0)
                v = std::max(v, at(i + 1, j + 1) + s);
            at(i, j) = v;
        }
    std::size_t i = 0, j = 0;
    while (i < n && j < m) {
        const int s = score(ka[a0 + i], kb[b0 + j]);
        if (s > 0 && at(i, j) == at(i + 1, j + 1) + s) {
            out.emplace_back(a0 + i, b0 + j);
            ++i, ++j;
        } else if (at(i, j) == at(i + 1, j)) {
            ++i;
        } else {
            ++j;
        }
    }
}

// Rows whose op, code and shape occur once on each side pair for certain:
// anchors, kept where they are in the same order on both sides (the longest
// increasing run), between which the rest is aligned range by range.
std::vector<std::pair<std::size_t, std::size_t>> anchors(const std::vector<Key>& ka,
                                                         const std::vector<Key>& kb) {
    using Triple = std::tuple<std::string, std::string, std::string>;
    std::map<Triple, std::pair<int, std::size_t>> seenA, seenB;
    const auto count = [](const std::vector<Key>& keys, auto& seen) {
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (keys[i].kind.empty() || keys[i].source->empty())
                continue;
            auto& entry = seen[Triple(keys[i].kind, *keys[i].source, *keys[i].shapes)];
            ++entry.first;
            entry.second = i;
        }
    };
    count(ka, seenA);
    count(kb, seenB);
    std::vector<std::pair<std::size_t, std::size_t>> candidates;
    for (const auto& [triple, a] : seenA) {
        const auto b = seenB.find(triple);
        if (a.first == 1 && b != seenB.end() && b->second.first == 1)
            candidates.emplace_back(a.second, b->second.second);
    }
    std::sort(candidates.begin(), candidates.end());
    // Longest increasing subsequence of the b positions (patience sorting).
    std::vector<std::size_t> tails, previous(candidates.size(), SIZE_MAX);
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        const auto pos = std::lower_bound(tails.begin(), tails.end(), c,
                                          [&](std::size_t t, std::size_t) {
                                              return candidates[t].second < candidates[c].second;
                                          }) -
                         tails.begin();
        if (pos > 0)
            previous[c] = tails[pos - 1];
        if (static_cast<std::size_t>(pos) == tails.size())
            tails.push_back(c);
        else
            tails[pos] = c;
    }
    std::vector<std::pair<std::size_t, std::size_t>> kept;
    for (std::size_t c = tails.empty() ? SIZE_MAX : tails.back(); c != SIZE_MAX; c = previous[c])
        kept.push_back(candidates[c]);
    std::reverse(kept.begin(), kept.end());
    return kept;
}

// (last handle, output index): the node whose output a row compares. A fused
// row's handles are its group's; its output is the last one's.
// A tap's row is keyed apart: it taps the node a delegate output row may compare too.
using HandleKey = std::tuple<std::int64_t, int, bool>;
HandleKey handleKey(const RunRow& r) {
    return {r.compared_handle, r.output_index, r.tap};
}

std::vector<std::pair<std::size_t, std::size_t>> pairByHandle(const Side& a, const Side& b) {
    std::map<HandleKey, std::vector<std::size_t>> rowsOfB;
    for (std::size_t j = 0; j < b.order.size(); ++j)
        rowsOfB[handleKey(b.row(j))].push_back(j);
    std::map<HandleKey, std::size_t> taken;
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t i = 0; i < a.order.size(); ++i) {
        const auto key = handleKey(a.row(i));
        const auto it = rowsOfB.find(key);
        auto& next = taken[key];
        if (std::get<0>(key) >= 0 && it != rowsOfB.end() && next < it->second.size())
            out.emplace_back(i, it->second[next++]);
    }
    return out;
}

// Why a pairing is not ranked: its two references are not one tensor.
std::string referencesNote(double db, const RunRow& a, const RunRow& b) {
    const auto& pa = a.reference_probe;
    const auto& pb = b.reference_probe;
    if (pa.elements != pb.elements)
        return "not one tensor: A's reference holds " + std::to_string(pa.elements) + " elements, B's " +
               std::to_string(pb.elements) + "; not ranked";
    char level[32];
    std::snprintf(level, sizeof level, "%.3g", db);
    return "not one tensor: A's and B's references agree " +
           (std::isinf(db) ? std::string("nowhere") : "to " + std::string(level) + " dB") + " on " +
           std::to_string(pa.values.size()) + " probed values (one tensor agrees to " +
           std::to_string(static_cast<int>(kReferencesAgreeDb)) + " dB or better); not ranked";
}

std::string plural(std::size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string rowLabel(const char* side, std::size_t index) {
    return std::string(side) + "'s row " + std::to_string(index);
}

// PT2E quantisation folds a BatchNorm into the conv before it: that side's conv
// row holds conv+BN, which the other side has at its batch_norm row. Pair them
// there, and say why the other conv has no partner (a name match is not a value
// match: shared/design/matching-across-lowerings.md).
void pairFoldedBatchNorms(const std::vector<Key>& ka, const std::vector<Key>& kb,
                          std::vector<std::optional<std::size_t>>& partnerOfA,
                          std::vector<std::optional<std::size_t>>& partnerOfB,
                          std::map<std::size_t, std::string>& notesA,
                          std::map<std::size_t, std::string>& notesB, std::vector<bool>& foldedA) {
    for (std::size_t i = 0; i + 1 < ka.size(); ++i) {
        const auto j = partnerOfA[i];
        if (!j || !foldsBatchNorm(ka[i]) || ka[i + 1].kind != "batch_norm" || partnerOfA[i + 1])
            continue;
        if (*j + 1 < kb.size() && kb[*j + 1].kind == "batch_norm")
            continue; // the other side has its BatchNorm too
        partnerOfA[i + 1] = *j;
        partnerOfB[*j] = i + 1;
        partnerOfA[i].reset();
        foldedA[i + 1] = true;
        notesA[i] =
            "the other run folds the next batch_norm into its " + ka[i].kind + ": compared at the batch_norm";
        notesB[*j] =
            "this " + ka[i].kind + " holds a folded batch_norm: paired with the other run's batch_norm";
    }
}

// Rows of one side that sit inside a fused row (an XNNPACK group) of the other:
// the group is compared only at its output, so these have no partner by design.
void noteFusedGroups(const Side& own, const Side& other, const std::vector<Key>& keys,
                     const std::vector<std::optional<std::size_t>>& partner, const char* otherSide,
                     bool sameGraph, std::map<std::size_t, std::string>& notes) {
    // The other side's fused rows by the names of the ops inside them: a node
    // named the same in a group (both runs read one graph family) is in it.
    std::map<std::string, const RunRow*> groupOf;
    for (const auto& row : other.run->rows)
        if (row.aot_ops.size() >= 2)
            for (const auto& op : row.aot_ops)
                groupOf.emplace(op, &row);
    const auto inside = [&](const RunRow& group) {
        return "inside " + rowLabel(otherSide, group.index) + ", a fused group of " +
               plural(group.aot_ops.size(), "op") + " compared at its output";
    };
    // The next paired row after each, from the back: one pass, not a scan per row
    // (issue 55: 200,000 unpaired rows against a 4-row report took minutes).
    std::vector<std::size_t> nextPaired(keys.size() + 1, keys.size());
    for (std::size_t i = keys.size(); i-- > 0;)
        nextPaired[i] = partner[i] ? i : nextPaired[i + 1];
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (partner[i] || notes.count(i))
            continue;
        if (const auto it = groupOf.find(own.row(i).compared_node); it != groupOf.end()) {
            notes[i] = inside(*it->second);
            continue;
        }
        const std::size_t next = nextPaired[i + 1];
        if (next < keys.size()) {
            const RunRow& group = other.row(*partner[next]);
            if (group.aot_ops.size() >= 2)
                for (const auto& op : group.aot_ops)
                    if (opKind(op) == keys[i].kind) {
                        notes[i] = inside(group);
                        break;
                    }
        }
        if (!notes.count(i) && !sameGraph && keys[i].kind == "batch_norm" && i > 0 &&
            foldsBatchNorm(keys[i - 1]))
            notes[i] = std::string(otherSide) +
                       " has no batch_norm here: quantisation (PT2E) folds it into the " + keys[i - 1].kind +
                       " before it";
    }
}

} // namespace

RunMatch matchRuns(const RunSummary& a, const RunSummary& b) {
    RunMatch match;
    match.by_handle = !a.reference_program.empty() && a.reference_program == b.reference_program;
    const Side sa = sideOf(a), sb = sideOf(b);
    const auto& ka = sa.keys;
    const auto& kb = sb.keys;

    // Everything below works on positions in graph order.
    std::vector<std::pair<std::size_t, std::size_t>> paired;
    if (match.by_handle) {
        paired = pairByHandle(sa, sb);
    } else {
        std::size_t a0 = 0, b0 = 0;
        for (const auto& [i, j] : anchors(ka, kb)) {
            alignRange(ka, kb, a0, i, b0, j, paired);
            paired.emplace_back(i, j);
            a0 = i + 1, b0 = j + 1;
        }
        alignRange(ka, kb, a0, ka.size(), b0, kb.size(), paired);
    }
    std::vector<std::optional<std::size_t>> partnerOfA(ka.size()), partnerOfB(kb.size());
    for (const auto& [i, j] : paired)
        partnerOfA[i] = j, partnerOfB[j] = i;
    std::map<std::size_t, std::string> notesA, notesB;
    std::vector<bool> foldedA(ka.size()), foldedB(kb.size());
    if (!match.by_handle) {
        pairFoldedBatchNorms(ka, kb, partnerOfA, partnerOfB, notesA, notesB, foldedA);
        pairFoldedBatchNorms(kb, ka, partnerOfB, partnerOfA, notesB, notesA, foldedB);
    }
    noteFusedGroups(sa, sb, ka, partnerOfA, "B", match.by_handle, notesA);
    noteFusedGroups(sb, sa, kb, partnerOfB, "A", match.by_handle, notesB);

    // Every row once, in A's graph order, each B-only row before the first
    // pair that comes after it in B's.
    const auto note = [](std::map<std::size_t, std::string>& notes, std::size_t i) {
        const auto it = notes.find(i);
        return it == notes.end() ? std::string() : it->second;
    };
    std::size_t nextB = 0;
    const auto emitBOnlyBefore = [&](std::size_t limit) {
        for (; nextB < limit; ++nextB)
            if (!partnerOfB[nextB]) {
                match.pairs.push_back({std::nullopt, sb.order[nextB], MatchBasis::Unmatched,
                                       note(notesB, nextB), std::nullopt});
                ++match.b_only;
            }
    };
    for (std::size_t i = 0; i < ka.size(); ++i) {
        const auto j = partnerOfA[i];
        if (!j) {
            match.pairs.push_back(
                {sa.order[i], std::nullopt, MatchBasis::Unmatched, note(notesA, i), std::nullopt});
            ++match.a_only;
            continue;
        }
        emitBOnlyBefore(*j);
        nextB = std::max(nextB, *j + 1);
        RowPairing p{sa.order[i], sb.order[*j], MatchBasis::DebugHandle, {}, std::nullopt};
        if (!match.by_handle)
            p.basis = foldedA[i] || foldedB[*j] ? MatchBasis::FoldedBatchNorm : basisOf(ka[i], kb[*j]);
        p.note = notesA.count(i) ? notesA[i] : note(notesB, *j);
        // A fused group's row compares one of its outputs: say which.
        for (const auto& [side, row] :
             {std::pair<const char*, const RunRow*>{"A", &sa.row(i)}, {"B", &sb.row(*j)}})
            if (p.note.empty() && row->aot_ops.size() > 1)
                p.note = std::string(side) + "'s row is one output (" + row->compared_node +
                         ") of a fused group of " + plural(row->aot_ops.size(), "op");
        p.references_db = probeAgreementDb(sa.row(i).reference_probe, sb.row(*j).reference_probe);
        if (p.referencesDisagree())
            p.note = referencesNote(*p.references_db, sa.row(i), sb.row(*j)) +
                     (p.note.empty() ? std::string() : "; " + p.note);
        match.pairs.push_back(std::move(p));
        ++match.matched;
    }
    emitBOnlyBefore(kb.size());
    return match;
}

namespace {

// The outermost frame's file of each row's code location ("demo.py:40 > linear.py:125" → demo.py).
std::set<std::string> modelFiles(const RunSummary& run) {
    std::set<std::string> files;
    for (const auto& row : run.rows) {
        if (row.source.empty())
            continue;
        const auto frame = row.source.substr(0, row.source.find(" > "));
        files.insert(frame.substr(0, frame.rfind(':')));
    }
    return files;
}

std::string someOf(const std::set<std::string>& files) {
    std::string out;
    std::size_t n = 0;
    for (const auto& f : files) {
        if (n == 3) {
            out += " and " + std::to_string(files.size() - 3) + " more";
            break;
        }
        out += (n++ ? ", " : "") + f;
    }
    return out;
}

} // namespace

std::optional<std::string> otherProgram(const RunSummary& a, const RunSummary& b) {
    if (!a.reference_program.empty() && a.reference_program == b.reference_program)
        return std::nullopt;
    const auto fa = modelFiles(a), fb = modelFiles(b);
    if (fa.empty() || fb.empty())
        return std::nullopt;
    for (const auto& f : fa)
        if (fb.count(f))
            return std::nullopt;
    return a.label + " and " + b.label + " seem to be runs of different programs: A's ops come from " +
           someOf(fa) + ", B's from " + someOf(fb) +
           ", and no code location is shared, so rows paired by op and order would compare unrelated tensors";
}

std::optional<std::string> otherReference(const RunSummary& a, const RunSummary& b) {
    if (a.reference_kind.empty() || b.reference_kind.empty() || a.reference_kind == b.reference_kind)
        return std::nullopt;
    return "A is measured against: " + a.reference_kind + "; B against: " + b.reference_kind +
           ". Their gaps do not measure one thing, so their difference is not a backend's; compare both "
           "against one reference (a capture of the float model: docs/llm.md, capture_float_reference)";
}

} // namespace gapscope
