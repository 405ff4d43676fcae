// The definitions of chunkwise/zarr/write_options.hpp's functions that are not templates: included at the end
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

}  // namespace detail

CHUNKWISE_ZARR_DECL std::string options_problem(const write_options& o) {
    if (o.format != 2 && o.format != 3) return "format must be 2 or 3, got " + std::to_string(o.format);
    const auto w = detail::write_codec_of(o);
    if (!w.problem.empty()) return w.problem;
    if (o.shuffle && o.format == 3 && (w.main == nullptr || !w.main->own_shuffle))
        return "shuffle in format 3 needs codec blosc (v3 has no shuffle filter)";
    if (!o.shard.empty() && o.format != 3) return "shards need format 3";
    return {};
}

}  // namespace chunkwise::zarr
