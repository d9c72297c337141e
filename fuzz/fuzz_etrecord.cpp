// libFuzzer target: an ETRecord. The input's parts are the JSON of its
// entries (debug_handle_map, delegate_map, instruction_id_to_num_outs_map,
// edge_dialect_exported_program/forward), packed into a valid stored ZIP in
// memory: libzip rejects a mutated raw archive before any JSON is read. One part
// at a time is mutated as JSON (fuzz/json_mutator.h), one time in ten the whole
// input as bytes (which moves, adds and removes separators too).
#include "core/common/mapped_file.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/report/inputs_json.h"
#include "core/report/json_text.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/json_mutator.h"

#include <cstring>

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize,
                                               unsigned seed) {
    using namespace gapscope::fuzz;
    if (seed % 10 == 0)
        return LLVMFuzzerMutate(data, size, maxSize);
    auto parts = splitParts(data, size, 4);
    std::string& part = parts[(seed / 10) % parts.size()];
    const std::size_t original = part.size();
    const std::size_t room = original + (maxSize > size ? maxSize - size : 0); // what the part may grow to
    part.resize(room);
    part.resize(mutateJson(reinterpret_cast<std::uint8_t*>(part.data()), original, room, seed / 40));
    const std::string joined = joinParts(parts);
    if (joined.size() > maxSize)
        return LLVMFuzzerMutate(data, size, maxSize);
    std::memcpy(data, joined.data(), joined.size());
    return joined.size();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    const auto parts = fuzz::splitParts(data, size, 4);
    std::vector<std::pair<std::string, std::string>> entries{{"ETRECORD_V0", ""}};
    const char* names[] = {"debug_handle_map", "delegate_map", "instruction_id_to_num_outs_map",
                           "edge_dialect_exported_program/forward"};
    for (std::size_t i = 0; i < parts.size(); ++i)
        if (!parts[i].empty())
            entries.emplace_back(names[i], parts[i]);
    const auto zip = fuzz::storedZip(entries);
    const auto file = MappedFile::fromBytes("fuzz.etrecord.bin",
                                            reinterpret_cast<const std::uint8_t*>(zip.data()), zip.size());
    const auto record = readEtRecord(file);
    if (record)
        (void)renderJson(etrecordToJson(record.value()));
    return 0;
}
