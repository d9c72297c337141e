#include "core/align/saved_outputs.h"

#include <charconv>
#include <map>
#include <optional>
#include <string_view>

namespace gapscope {

namespace {

constexpr std::string_view kPrefix = "outputs/";
constexpr std::size_t kMaxIndex = 1u << 24; // more outputs or executions than any program has

std::optional<std::size_t> number(std::string_view text) {
    std::size_t value = 0;
    if (text.empty() || (text.size() > 1 && text.front() == '0'))
        return std::nullopt;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value >= kMaxIndex)
        return std::nullopt;
    return value;
}

// outputs/<index> → (0, index); outputs/<execution>/<index> → (execution, index).
std::optional<std::pair<std::size_t, std::size_t>> parseName(std::string_view name, bool& twoLevels) {
    if (name.substr(0, kPrefix.size()) != kPrefix)
        return std::nullopt;
    name.remove_prefix(kPrefix.size());
    const auto slash = name.find('/');
    twoLevels = slash != std::string_view::npos;
    if (!twoLevels) {
        const auto index = number(name);
        return index ? std::optional(std::pair<std::size_t, std::size_t>{0, *index}) : std::nullopt;
    }
    const auto execution = number(name.substr(0, slash));
    const auto index = number(name.substr(slash + 1));
    if (!execution || !index)
        return std::nullopt;
    return std::pair<std::size_t, std::size_t>{*execution, *index};
}

} // namespace

bool SavedOutputs::namedLikeSavedOutputs(const SafetensorsFile& file) {
    if (file.tensors().empty())
        return false;
    for (const auto& [name, tensor] : file.tensors()) {
        bool twoLevels = false;
        if (!parseName(name, twoLevels))
            return false;
    }
    return true;
}

Result<SavedOutputs> SavedOutputs::read(std::shared_ptr<const MappedFile> file) {
    auto parsed = SafetensorsFile::read(file);
    if (!parsed)
        return parsed.error();
    SavedOutputs out;
    out.m_file = std::make_shared<const SafetensorsFile>(std::move(parsed.value()));
    const std::string& path = out.m_file->path();
    if (out.m_file->tensors().empty())
        return makeError(ErrorCode::Empty, "saved outputs: the file holds no tensor", path);
    std::map<std::pair<std::size_t, std::size_t>, const std::pair<std::string, SafetensorsTensor>*> placed;
    std::optional<bool> form;
    for (const auto& entry : out.m_file->tensors()) {
        bool twoLevels = false;
        const auto at = parseName(entry.first, twoLevels);
        if (!at)
            return makeError(ErrorCode::Malformed,
                             "saved outputs: a tensor named '" + entry.first +
                                 "': names are outputs/<index> or outputs/<execution>/<index>",
                             path, entry.first);
        if (form && *form != twoLevels)
            return makeError(
                ErrorCode::Malformed,
                "saved outputs: '" + entry.first +
                    "' mixes the one-execution form (outputs/<index>) with the several-execution "
                    "form (outputs/<execution>/<index>)",
                path, entry.first);
        form = twoLevels;
        placed.emplace(*at, &entry);
    }
    for (const auto& [at, entry] : placed) {
        const auto [execution, index] = at;
        if (execution > out.m_byExecution.size())
            return makeError(ErrorCode::Malformed,
                             "saved outputs: execution " + std::to_string(execution) +
                                 " is there but execution " + std::to_string(out.m_byExecution.size()) +
                                 " is not",
                             path, entry->first);
        if (execution == out.m_byExecution.size())
            out.m_byExecution.emplace_back();
        auto& outputs = out.m_byExecution[execution];
        if (index != outputs.size())
            return makeError(ErrorCode::Malformed,
                             "saved outputs: '" + entry->first + "' is there but output " +
                                 std::to_string(outputs.size()) + " of that execution is not",
                             path, entry->first);
        const SafetensorsTensor& t = entry->second;
        Tensor& tensor = out.m_tensors.emplace_back();
        tensor.scalar_type = static_cast<std::int8_t>(t.scalar_type);
        tensor.sizes = t.shape;
        tensor.numel = t.numel;
        tensor.nbytes = t.end - t.begin;
        tensor.data = TensorData::Present;
        RuntimeValue value;
        value.kind = RuntimeValue::Kind::Tensor;
        value.tensor = &tensor;
        value.bytes = out.m_file->bytes(t);
        outputs.push_back(std::move(value));
    }
    return out;
}

const std::vector<RuntimeValue>& SavedOutputs::outputs(std::size_t execution) const {
    static const std::vector<RuntimeValue> none;
    return execution < m_byExecution.size() ? m_byExecution[execution] : none;
}

} // namespace gapscope
