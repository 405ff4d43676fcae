#pragma once
/// \file
/// Options for production runs (`map_blocks(policy, blocks, fn, run_options)`): collect failures
/// instead of stopping, checkpoint every finished block, log every block, show progress; and the
/// failure manifest that lets a later run redo exactly the failed blocks.

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ranges>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise {

/// What map_blocks does when a block throws.
enum class on_error {
    fail_fast,  ///< start no new block, let running ones finish, throw block_error (the default)
    collect,    ///< run every block; report failures in partial_results::failures()
};

/// How a production run behaves. Every field is optional.
struct run_options {
    on_error errors = on_error::fail_fast;  ///< fail_fast or collect
    std::filesystem::path checkpoint;       ///< directory of finished blocks' results; empty: none
    bool progress = false;                  ///< progress with rate and ETA on stderr (the root's, under MPI)
    std::filesystem::path log;              ///< file to append timestamped block events to; empty: none
};

/// One block that failed under on_error::collect.
struct failure {
    std::size_t index = 0;  ///< the block's index (its `index` member where it has one, else its position)
    std::string block;      ///< what it covers: "items [10, 20)", a file name, ...
    int rank = 0;           ///< MPI rank it ran on (0 without MPI)
    std::string message;    ///< the exception's what()
    std::string time;       ///< when it failed, UTC, ISO 8601

    friend bool operator==(const failure&, const failure&) = default;
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

}  // namespace detail

/// Writes `failures` as CSV (index,block,rank,time,message with a header line), replacing `path`.
/// \throws std::runtime_error if the file cannot be written
inline void write_failure_manifest(const std::filesystem::path& path, const std::vector<failure>& failures) {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw std::runtime_error("[chunkwise.manifest] cannot write " + path.string());
    out << "index,block,rank,time,message\n";
    for (const failure& f : failures) {
        out << f.index << ',' << detail::csv_field(f.block) << ',' << f.rank << ',' << detail::csv_field(f.time) << ','
            << detail::csv_field(f.message) << '\n';
    }
    if (!out.flush()) throw std::runtime_error("[chunkwise.manifest] cannot write " + path.string());
}

/// Reads a manifest written by write_failure_manifest.
/// \throws std::runtime_error naming the file and line if it is missing or malformed
inline std::vector<failure> read_failure_manifest(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("[chunkwise.manifest] cannot read " + path.string());
    std::vector<std::string> fields;
    std::vector<failure> out;
    if (!detail::read_csv_record(in, fields) || fields.size() != 5 || fields[0] != "index") {
        throw std::runtime_error("[chunkwise.manifest] " + path.string() +
                                 ": not a failure manifest (expected the header index,block,rank,time,message)");
    }
    for (std::size_t line = 2; detail::read_csv_record(in, fields); ++line) {
        if (fields.size() == 1 && fields[0].empty()) continue;
        try {
            if (fields.size() != 5) throw std::invalid_argument("fields");
            out.push_back(failure{std::stoull(fields[0]), fields[1], std::stoi(fields[2]), fields[4], fields[3]});
        } catch (const std::exception&) {
            throw std::runtime_error("[chunkwise.manifest] " + path.string() + ": record " + std::to_string(line) +
                                     " is not index,block,rank,time,message");
        }
    }
    return out;
}

/// The elements of `blocks` that failed according to `failures`, in their original order, to
/// re-run exactly those: elements with an `index` member (chunkwise::block) are matched by it,
/// others by their description (e.g. the file name).
template <class Blocks>
auto select_failed(const Blocks& blocks, const std::vector<failure>& failures) {
    using element = std::ranges::range_value_t<const Blocks>;
    std::vector<element> out;
    std::set<std::size_t> indices;
    std::set<std::string> names;
    for (const failure& f : failures) {
        indices.insert(f.index);
        names.insert(f.block);
    }
    for (const auto& b : blocks) {
        if constexpr (requires { b.index; }) {
            if (indices.count(static_cast<std::size_t>(b.index)) != 0) out.push_back(b);
        } else if constexpr (std::is_convertible_v<const element&, std::string_view>) {
            if (names.count(std::string(std::string_view(b))) != 0) out.push_back(b);
        } else {
            if (names.count(b.string()) != 0) out.push_back(b);
        }
    }
    return out;
}

}  // namespace chunkwise
