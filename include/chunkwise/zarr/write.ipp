// The definitions of chunkwise/zarr/write.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr {
namespace detail {

CHUNKWISE_ZARR_DECL std::string options_text(const write_options& o) {
    std::string text = std::to_string(o.format) + " " + std::to_string(o.deflate) + " " + o.codec + " " +
                       std::to_string(o.level) + (o.shuffle ? " shuffle" : "") + " " + mode_name(o.mode) + " r" +
                       std::to_string(o.first_row);
    for (std::size_t c : o.chunk) text += " c" + std::to_string(c);
    for (std::size_t c : o.shard) text += " s" + std::to_string(c);
    for (const std::string& d : o.dimensions) text += " d" + std::to_string(d.size()) + ":" + d;
    return text;
}

CHUNKWISE_ZARR_DECL void list_in_groups(const std::string& store, const plan& p) {
    if (p.format != 2) return;  // format 3 has no consolidated metadata of its own
    try {
        consolidate(store, {{".zarray", load_json(store, std::filesystem::path(store) / ".zarray")},
                            {".zattrs", p.attributes}});
    } catch (const error& e) {
        throw error(store, "",
                    std::string("the array is written, but the consolidated metadata (.zmetadata) of a group above it "
                                "was not updated: ") +
                        e.what());
    }
}

}  // namespace detail
}  // namespace chunkwise::zarr

namespace chunkwise::zarr {

CHUNKWISE_ZARR_DECL chunk_encoder::chunk_encoder(const write_options& opt, std::size_t element_size,
                                                 std::size_t chunk_bytes) {
    if (const std::string problem = options_problem(opt); !problem.empty())
        throw std::invalid_argument("zarr::chunk_encoder: " + problem);
    pipeline_ = detail::make_encoding(detail::write_codec_of(opt), opt.shuffle, element_size, chunk_bytes).pipe;
}

CHUNKWISE_ZARR_DECL auto chunk_encoder::encode(std::span<const unsigned char> chunk) -> std::span<const unsigned char> {
    const auto [encoded, size] = detail::codecs::encode_chunk(pipeline_, chunk.data(), chunk.size(), scratch_, out_);
    return {encoded, size};
}

}  // namespace chunkwise::zarr
