#pragma once
// The reference workload's input: a synthetic H5MD trajectory, as MDAnalysis' H5MDReader opens
// it (/particles/trajectory/position/value, (frames, atoms, 3) float32 in nm, with step, time and
// box), in the five layouts of the MDAnalysis H5MD study: one frame per chunk, contiguous,
// h5py's automatic chunks, one frame per chunk + gzip 1, + shuffle + gzip 1. The frames drift,
// rotate and jitter, so that RMSD after superposition differs from plain RMSD and grows.
#include "../../examples/trajectory.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_h5md {

inline const char* positions_path = "/particles/trajectory/position/value";

/// The layouts of the study, by the names the command line takes.
inline const std::vector<std::string>& layouts() {
    static const std::vector<std::string> all{"chunk1", "contig", "auto", "gzip1", "shgzip1"};
    return all;
}

/// h5py's automatic chunk shape (h5py/_hl/filters.py, guess_chunk): halve the axes in turn until
/// the chunk is near a target size that grows with the dataset (8 KiB to 1 MiB).
inline std::vector<std::size_t> h5py_auto_chunk(const std::vector<std::size_t>& shape, std::size_t type_size) {
    constexpr double base = 16 * 1024, min_bytes = 8 * 1024, max_bytes = 1024 * 1024;
    std::vector<double> chunk;
    for (std::size_t s : shape) chunk.push_back(s == 0 ? 1024.0 : static_cast<double>(s));
    double size = static_cast<double>(type_size);
    for (double c : chunk) size *= c;
    double target = base * std::pow(2.0, std::log10(size / (1024.0 * 1024.0)));
    target = std::clamp(target, min_bytes, max_bytes);
    for (std::size_t i = 0;; ++i) {
        double elements = 1;
        for (double c : chunk) elements *= c;
        const double bytes = elements * static_cast<double>(type_size);
        if ((bytes < target || std::fabs(bytes - target) / target < 0.5) && bytes < max_bytes) break;
        if (elements == 1) break;
        double& axis = chunk[i % chunk.size()];
        axis = std::ceil(axis / 2.0);
    }
    std::vector<std::size_t> out;
    for (double c : chunk) out.push_back(static_cast<std::size_t>(c));
    return out;
}

/// Deterministic noise in [-0.5, 0.5): the trajectory examples' own.
using example::noise;

/// The box edge (nm) for `atoms` at about 100 atoms per nm^3, as in water.
inline double box_edge(std::size_t atoms) { return std::cbrt(static_cast<double>(atoms) / 100.0); }

/// Frame f: the reference structure rotated about (1, 1, 1), shifted and jittered.
inline void make_frame(std::size_t f, std::size_t atoms, float* out) {
    const double edge = box_edge(atoms);
    const double angle = 0.4 * std::sin(0.05 * static_cast<double>(f)) + 0.002 * static_cast<double>(f);
    const double c = std::cos(angle), s = std::sin(angle), t = 1 - c, u = 1 / std::sqrt(3.0);
    const double r[3][3] = {{t * u * u + c, t * u * u - s * u, t * u * u + s * u},
                            {t * u * u + s * u, t * u * u + c, t * u * u - s * u},
                            {t * u * u - s * u, t * u * u + s * u, t * u * u + c}};
    const double shift[3] = {0.01 * static_cast<double>(f), -0.005 * static_cast<double>(f), 0.3};
    const double jitter = 0.02 + 0.004 * std::sqrt(static_cast<double>(f));
    for (std::size_t a = 0; a < atoms; ++a) {
        double p[3];
        for (int d = 0; d < 3; ++d) p[d] = edge * (noise(a * 3 + static_cast<std::size_t>(d)) + 0.5);
        for (int i = 0; i < 3; ++i) {
            const double v = r[i][0] * p[0] + r[i][1] * p[1] + r[i][2] * p[2] + shift[i] +
                             jitter * noise((f + 1) * 0x9e3779b97f4a7c15ULL + a * 3 + static_cast<std::size_t>(i));
            out[a * 3 + static_cast<std::size_t>(i)] = static_cast<float>(v);
        }
    }
}

namespace h5md_io {

namespace h5 = chunkwise::h5;

inline void check(herr_t rc, const std::string& what) {
    if (rc < 0) throw std::runtime_error("generate: " + what + " failed: " + h5::last_hdf5_error());
}

/// Variable-length UTF-8 strings, which h5py (and so MDAnalysis) reads as str, not bytes.
inline hid_t text_type() {
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    return type;
}

inline void string_attribute(hid_t loc, const char* name, const std::string& value) {
    const hid_t type = text_type();
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    const char* text = value.c_str();
    check(H5Awrite(a, type, &text), std::string("attribute ") + name);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
}

template <class T>
void array_attribute(hid_t loc, const char* name, hid_t type, const std::vector<T>& values) {
    const hsize_t n = values.size();
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Awrite(a, type, values.data()), std::string("attribute ") + name);
    H5Aclose(a);
    H5Sclose(space);
}

/// The H5MD metadata around the positions: /h5md, step, time, box.
inline void write_metadata(const std::filesystem::path& file, std::size_t atoms, std::size_t frames) {
    h5::library_lock lock;
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) throw std::runtime_error("generate: cannot reopen " + file.string() + ": " + h5::last_hdf5_error());
    const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    const hid_t root = H5Gcreate2(f, "/h5md", lcpl, H5P_DEFAULT, H5P_DEFAULT);
    array_attribute<int>(root, "version", H5T_NATIVE_INT, {1, 1});
    const hid_t author = H5Gcreate2(root, "author", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    string_attribute(author, "name", "chunkwise-bench");
    const hid_t creator = H5Gcreate2(root, "creator", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    string_attribute(creator, "name", "chunkwise-bench generate");
    string_attribute(creator, "version", chunkwise::version_string);
    H5Gclose(creator);
    H5Gclose(author);
    H5Gclose(root);

    const hid_t position = H5Gopen2(f, "/particles/trajectory/position", H5P_DEFAULT);
    const hid_t value = H5Dopen2(position, "value", H5P_DEFAULT);
    string_attribute(value, "unit", "nm");
    H5Dclose(value);
    std::vector<int> step(frames);
    std::vector<double> time(frames);
    for (std::size_t i = 0; i < frames; ++i) {
        step[i] = static_cast<int>(i * 100);
        time[i] = static_cast<double>(i) * 0.2;
    }
    const hsize_t n = frames;
    const hid_t line = H5Screate_simple(1, &n, nullptr);
    const hid_t ds_step = H5Dcreate2(position, "step", H5T_STD_I32LE, line, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Dwrite(ds_step, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, step.data()), "step");
    const hid_t ds_time = H5Dcreate2(position, "time", H5T_IEEE_F64LE, line, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Dwrite(ds_time, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, time.data()), "time");
    string_attribute(ds_time, "unit", "ps");
    H5Dclose(ds_time);
    H5Dclose(ds_step);
    H5Gclose(position);

    const hid_t box = H5Gcreate2(f, "/particles/trajectory/box", lcpl, H5P_DEFAULT, H5P_DEFAULT);
    array_attribute<int>(box, "dimension", H5T_NATIVE_INT, {3});
    {
        const hid_t type = text_type();
        const hsize_t three = 3;
        const hid_t space = H5Screate_simple(1, &three, nullptr);
        const hid_t a = H5Acreate2(box, "boundary", type, space, H5P_DEFAULT, H5P_DEFAULT);
        const char* text[3] = {"periodic", "periodic", "periodic"};
        check(H5Awrite(a, type, text), "attribute boundary");
        H5Aclose(a);
        H5Sclose(space);
        H5Tclose(type);
    }
    hsize_t edge_dims[3] = {frames, 3, 3};
    const hid_t edge_space = H5Screate_simple(3, edge_dims, nullptr);
    const hid_t edges = H5Dcreate2(box, "edges/value", H5T_IEEE_F32LE, edge_space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    std::vector<float> e(frames * 9, 0.0f);
    const float edge = static_cast<float>(box_edge(atoms));
    for (std::size_t i = 0; i < frames; ++i) {
        for (std::size_t d = 0; d < 3; ++d) e[i * 9 + d * 3 + d] = edge;
    }
    check(H5Dwrite(edges, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, e.data()), "box edges");
    string_attribute(edges, "unit", "nm");
    H5Dclose(edges);
    H5Sclose(edge_space);
    H5Gclose(box);
    H5Pclose(lcpl);
    check(H5Fclose(f), "closing the file");
}

}  // namespace h5md_io

/// Writes the trajectory into `out` (replacing it) with `threads` workers; returns its chunk
/// shape (empty: contiguous). A `codec` (h5::write_options::codec: "lz4", "zstd", "bzip2",
/// "blosc", "blosc:zstd", ...) compresses the chunks of layout chunk1 with it.
inline std::vector<std::size_t> generate(const std::filesystem::path& out, const std::string& layout, std::size_t atoms,
                                         std::size_t frames, std::size_t threads, const std::string& codec = {}) {
    namespace h5 = chunkwise::h5;
    if (std::find(layouts().begin(), layouts().end(), layout) == layouts().end()) {
        throw std::invalid_argument("--layout: '" + layout + "' is not one of chunk1, contig, auto, gzip1, shgzip1");
    }
    if (atoms == 0 || frames == 0) throw std::invalid_argument("--atoms and --frames must be at least 1");
    if (!codec.empty()) {
        if (layout != "chunk1") throw std::invalid_argument("--codec: only with --layout chunk1, not " + layout);
        h5::write_options o;
        o.chunk = {1, atoms, 3};
        o.codec = codec;
        if (const std::string why = h5::codec_problem(o); !why.empty()) throw std::invalid_argument("--codec: " + why);
    }
    std::error_code ec;
    std::filesystem::remove(out, ec);
    const std::vector<std::size_t> shape{frames, atoms, 3};
    chunkwise::thread_policy pool(threads);
    const std::size_t frame_values = atoms * 3;
    std::vector<std::size_t> chunk;
    if (layout == "contig") {
        hid_t f = -1, d = -1;
        {
            h5::library_lock lock;
            f = H5Fcreate(out.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
            if (f < 0)
                throw std::runtime_error("generate: cannot create " + out.string() + ": " + h5::last_hdf5_error());
            hsize_t dims[3] = {frames, atoms, 3};
            const hid_t space = H5Screate_simple(3, dims, nullptr);
            const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
            H5Pset_create_intermediate_group(lcpl, 1);
            d = H5Dcreate2(f, positions_path, H5T_IEEE_F32LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
            H5Pclose(lcpl);
            H5Sclose(space);
            if (d < 0) throw std::runtime_error("generate: cannot create the positions: " + h5::last_hdf5_error());
        }
        // Frames are made in parallel; each block's H5Dwrite holds the HDF5 lock (never across
        // map_blocks: pool threads would wait for it forever).
        const auto blocks = chunkwise::partition(
            frames, chunkwise::block_size{std::max<std::size_t>(1, (8u << 20) / (frame_values * 4))});
        (void)chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
            std::vector<float> v(b.size() * frame_values);
            for (std::size_t i = b.begin; i < b.end; ++i) make_frame(i, atoms, v.data() + (i - b.begin) * frame_values);
            h5::library_lock write_lock;
            hsize_t start[3] = {b.begin, 0, 0}, count[3] = {b.size(), atoms, 3};
            const hid_t fs = H5Dget_space(d);
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, nullptr, count, nullptr);
            const hid_t ms = H5Screate_simple(3, count, nullptr);
            const herr_t rc = H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, v.data());
            H5Sclose(ms);
            H5Sclose(fs);
            h5md_io::check(rc, "writing frames");
        });
        h5::library_lock lock;
        h5md_io::check(H5Dclose(d), "closing the positions");
        h5md_io::check(H5Fclose(f), "closing the file");
    } else {
        h5::write_options opt;
        opt.chunk = layout == "auto" ? h5py_auto_chunk(shape, 4) : std::vector<std::size_t>{1, atoms, 3};
        opt.deflate = layout == "gzip1" || layout == "shgzip1" ? 1 : 0;
        opt.shuffle = layout == "shgzip1";
        opt.codec = codec;
        chunk = opt.chunk;
        h5::chunk_writer<float> writer(out, positions_path, shape, opt);
        const std::size_t rows = std::max<std::size_t>(1, (8u << 20) / (frame_values * 4));
        const std::size_t per_block = std::max<std::size_t>(1, rows / chunk[0]) * chunk[0];
        const auto blocks = chunkwise::partition(frames, chunkwise::parts{(frames + per_block - 1) / per_block},
                                                 chunkwise::align{chunk[0]});
        (void)chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
            std::vector<float> v(b.size() * frame_values);
            for (std::size_t i = b.begin; i < b.end; ++i) make_frame(i, atoms, v.data() + (i - b.begin) * frame_values);
            writer.write_rows(b.begin, std::span<const float>(v));
        });
        writer.close();
    }
    h5md_io::write_metadata(out, atoms, frames);
    return chunk;
}

}  // namespace bench_h5md
