// The definitions of chunkwise/zarr/write.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr {
namespace detail {

CHUNKWISE_ZARR_DECL chunkwise::detail::codecs::write_codec write_codec_of(const write_options& o) {
    namespace cs = chunkwise::detail::codecs;
    cs::write_codec w = cs::resolve_write_codec(o.deflate, o.codec, o.level,
                                                o.format == 3 ? cs::store_kind::zarr3 : cs::store_kind::zarr2);
    // v3 has no zlib codec: deflate there is written in gzip frames (gzip is deflate plus a frame).
    if (w.problem.empty() && o.format == 3 && w.main == &cs::deflate_codec) w.main = &cs::gzip_codec;
    return w;
}

CHUNKWISE_ZARR_DECL std::string options_text(const write_options& o) {
    std::string text = std::to_string(o.format) + " " + std::to_string(o.deflate) + " " + o.codec + " " +
                       std::to_string(o.level) + (o.shuffle ? " shuffle" : "") +
                       (o.mode == write_mode::replace ? " replace" : " create");
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

CHUNKWISE_ZARR_DECL std::string options_problem(const write_options& o) {
    if (o.format != 2 && o.format != 3) return "format must be 2 or 3, got " + std::to_string(o.format);
    const auto w = detail::write_codec_of(o);
    if (!w.problem.empty()) return w.problem;
    if (o.shuffle && o.format == 3 && (w.main == nullptr || !w.main->own_shuffle))
        return "shuffle in format 3 needs codec blosc (v3 has no shuffle filter)";
    if (!o.shard.empty() && o.format != 3) return "shards need format 3";
    return {};
}

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
