#pragma once
/// \file
/// Failure manifests: the failed blocks of a run as CSV, read back to re-run exactly those
/// (`select_failed`).

#include <chunkwise/detail/core/block_identity.hpp>
#include <chunkwise/error.hpp>
#include <chunkwise/failure.hpp>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <ranges>
#include <set>
#include <string>
#include <vector>

namespace chunkwise {

/// A failure manifest that cannot be written or read (a chunkwise::error naming file and record).
class manifest_error : public error {
public:
    using error::error;
};

namespace detail {

inline std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

// Splits one CSV record (fields may be quoted and hold commas, quotes and newlines).
inline bool read_csv_record(std::istream& in, std::vector<std::string>& fields) {
    fields.clear();
    std::string field;
    bool quoted = false, any = false;
    for (int ch; (ch = in.get()) != EOF;) {
        any = true;
        const char c = static_cast<char>(ch);
        if (quoted) {
            if (c == '"') {
                if (in.peek() == '"') {
                    field += '"';
                    in.get();
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(std::move(field));
            field.clear();
        } else if (c == '\n') {
            fields.push_back(std::move(field));
            return true;
        } else if (c != '\r') {
            field += c;
        }
    }
    if (any) fields.push_back(std::move(field));
    return any;
}

/// The whole of `text` as a non-negative decimal number (no sign, no trailing characters).
inline bool parse_count(const std::string& text, std::size_t& out) {
    if (text.empty() || text.size() > 20) return false;
    std::size_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
        const std::size_t next = v * 10 + static_cast<std::size_t>(c - '0');
        if (next / 10 != v) return false;  // overflow
        v = next;
    }
    out = v;
    return true;
}

}  // namespace detail

/// Writes `failures` as CSV (index,block,rank,time,message with a header line), replacing `path`.
/// \throws manifest_error if the file cannot be written
inline void write_failure_manifest(const std::filesystem::path& path, const std::vector<failure>& failures) {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw manifest_error("[chunkwise.manifest] cannot write " + path.string());
    out << "index,block,rank,time,message\n";
    for (const failure& f : failures) {
        out << f.index << ',' << detail::csv_field(f.block) << ',' << f.rank << ',' << detail::csv_field(f.time) << ','
            << detail::csv_field(f.message) << '\n';
    }
    if (!out.flush()) throw manifest_error("[chunkwise.manifest] cannot write " + path.string());
}

/// Reads a manifest written by write_failure_manifest.
/// \throws manifest_error naming the file and record if it is missing or malformed (an index or
///         rank that is not a non-negative whole number included)
inline std::vector<failure> read_failure_manifest(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw manifest_error("[chunkwise.manifest] cannot read " + path.string());
    std::vector<std::string> fields;
    std::vector<failure> out;
    if (!detail::read_csv_record(in, fields) || fields.size() != 5 || fields[0] != "index") {
        throw manifest_error("[chunkwise.manifest] " + path.string() +
                             ": not a failure manifest (expected the header index,block,rank,time,message)");
    }
    for (std::size_t record = 2; detail::read_csv_record(in, fields); ++record) {
        if (fields.size() == 1 && fields[0].empty()) continue;
        std::size_t index = 0, rank = 0;
        if (fields.size() != 5 || !detail::parse_count(fields[0], index) || !detail::parse_count(fields[2], rank) ||
            rank > 0x7fffffff) {
            throw manifest_error("[chunkwise.manifest] " + path.string() + ": record " + std::to_string(record) +
                                 " is not index,block,rank,time,message with a whole index and rank");
        }
        out.push_back(failure{index, fields[1], static_cast<int>(rank), fields[4], fields[3]});
    }
    return out;
}

/// The elements of `blocks` that failed according to `failures`, in their original order, to
/// re-run exactly those. An element is matched as chunkwise named it when it failed: by its
/// `index` member (chunkwise::block), else by its description (a file name, "item 7"), else by
/// its position.
template <class Blocks>
auto select_failed(const Blocks& blocks, const std::vector<failure>& failures) {
    using element = std::ranges::range_value_t<const Blocks>;
    using identity = detail::block_identity<element>;
    std::set<std::size_t> indices;
    std::set<std::string> names;
    for (const failure& f : failures) {
        indices.insert(f.index);
        names.insert(f.block);
    }
    std::vector<element> out;
    std::size_t position = 0;
    for (const auto& b : blocks) {
        if (identity::failed(b, position++, indices, names)) out.push_back(b);
    }
    return out;
}

}  // namespace chunkwise
