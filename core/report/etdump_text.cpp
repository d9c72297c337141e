#include "core/report/etdump_text.h"

#include "core/etdump/scalar_type.h"
#include "core/etdump/tensor_stats.h"
#include "core/report/safe_text.h"

#include <charconv>
#include <string>

namespace gapscope {

namespace {

std::string num(double x) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
}

template <typename T> std::string list(const std::vector<T>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

std::string delegateIds(std::int32_t idInt, const std::optional<std::string>& idStr) {
    std::string s;
    if (idInt != -1)
        s += " delegate_debug_id_int=" + std::to_string(idInt);
    if (idStr)
        s += " delegate_debug_id_str=`" + echoedName(*idStr) + "`";
    return s;
}

std::string tensorText(const EtDump& dump, const Tensor& t) {
    std::string s = scalarTypeName(t.scalar_type) + " sizes=" + list(t.sizes) +
                    " strides=" + list(t.strides) + " offset=" + std::to_string(t.offset);
    if (t.nbytes)
        s += " nbytes=" + std::to_string(*t.nbytes);
    s += std::string(" data=") + tensorDataName(t.data);
    if (t.data == TensorData::Present && t.numel) {
        const auto st =
            computeTensorStats(static_cast<ScalarType>(t.scalar_type), dump.tensorBytes(t), *t.numel);
        s += " sum=" + num(st.sum);
        if (st.min)
            s += " min=" + num(*st.min) + " max=" + num(*st.max);
        if (st.nan)
            s += " nan=" + std::to_string(st.nan);
        if (st.inf)
            s += " inf=" + std::to_string(st.inf);
    }
    if (!t.problem.empty())
        s += " (" + t.problem + ")";
    return s;
}

void writeValue(std::ostream& out, const EtDump& dump, const Value& v) {
    out << " val="
        << (v.val >= 0 && v.val <= 7 ? valueTypeName(v.type())
                                     : ("unknown(" + std::to_string(v.val) + ")").c_str());
    if (v.output)
        out << " output=true";
    if (!v.known) {
        out << " (payload missing)\n";
        return;
    }
    switch (v.type()) {
    case ValueType::Tensor:
        out << ": " << (v.tensors.empty() ? std::string("?") : tensorText(dump, v.tensors.front())) << '\n';
        return;
    case ValueType::TensorList:
        out << ": " << v.tensors.size() << " tensors\n";
        for (std::size_t i = 0; i < v.tensors.size(); ++i)
            out << "       [" << i << "] " << tensorText(dump, v.tensors[i]) << '\n';
        return;
    case ValueType::Int: out << ": " << v.int_val << '\n'; return;
    case ValueType::Bool: out << ": " << (v.bool_val ? "true" : "false") << '\n'; return;
    case ValueType::Float: out << ": " << num(static_cast<double>(v.float_val)) << '\n'; return;
    case ValueType::Double: out << ": " << num(v.double_val) << '\n'; return;
    default: out << '\n'; return;
    }
}

} // namespace

void writeEtdumpText(std::ostream& out, const EtDump& dump) {
    out << "ETDump " << dump.etdump_path << ": version " << dump.version << ", "
        << (dump.size_prefixed ? "size-prefixed" : "no size prefix") << ", " << dump.runs.size()
        << " run(s); ";
    if (dump.debug_buffer)
        out << "debug buffer " << dump.debug_buffer->path() << " (" << dump.debug_buffer->size()
            << " bytes)\n";
    else
        out << "no debug buffer (tensor metadata only)\n";

    for (std::size_t r = 0; r < dump.runs.size(); ++r) {
        const auto& run = dump.runs[r];
        out << "\nRunData[" << r
            << "]: name=" << (run.name ? "`" + echoedName(*run.name) + "`" : std::string("(none)"))
            << " bundled_input_index=" << run.bundled_input_index << " allocators=[";
        for (std::size_t a = 0; a < run.allocators.size(); ++a)
            out << (a ? ", " : "") << run.allocators[a];
        out << "], " << run.events.size() << " events:\n";
        for (std::size_t e = 0; e < run.events.size(); ++e) {
            out << "  " << e << ". ";
            const auto& ev = run.events[e];
            if (const auto* p = std::get_if<ProfileEvent>(&ev)) {
                out << "ProfileEvent";
                if (p->name)
                    out << " name=`" << echoedName(*p->name) << "`";
                out << " chain_index=" << p->chain_index << " instruction_id=" << p->instruction_id
                    << delegateIds(p->delegate_debug_id_int, p->delegate_debug_id_str)
                    << " start_time=" << p->start_time << " end_time=" << p->end_time;
                if (p->delegate_debug_metadata)
                    out << " delegate_debug_metadata=" << p->delegate_debug_metadata->size() << " bytes";
                out << '\n';
            } else if (const auto* d = std::get_if<DebugEvent>(&ev)) {
                out << "DebugEvent chain_index=" << d->chain_index << " instruction_id=" << d->instruction_id
                    << delegateIds(d->delegate_debug_id_int, d->delegate_debug_id_str);
                if (d->name)
                    out << " name=`" << echoedName(*d->name) << "`";
                if (d->debug_entry)
                    writeValue(out, dump, *d->debug_entry);
                else
                    out << " (no debug_entry)\n";
            } else if (const auto* a = std::get_if<AllocationEvent>(&ev)) {
                out << "AllocationEvent allocator_id=" << a->allocator_id
                    << " allocation_size=" << a->allocation_size << '\n';
            } else {
                out << "Event with no member\n";
            }
        }
    }
    if (!dump.warnings.empty()) {
        out << "\n" << dump.warnings.size() << " warning(s):\n";
        for (const auto& w : dump.warnings)
            out << "  [" << warningCodeName(w.code) << "] " << w.describe() << '\n';
    }
}

} // namespace gapscope
