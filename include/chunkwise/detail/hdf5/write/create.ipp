// The definitions of chunkwise/detail/hdf5/write/create.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {
namespace detail {

CHUNKWISE_HDF5_DECL std::string options_text(const write_options& opt) {
    return "chunk " + (opt.chunk.empty() ? std::string("automatic") : shape_text(opt.chunk)) + ", deflate " +
           std::to_string(opt.deflate) + ", shuffle " + (opt.shuffle ? "on" : "off") +
           (opt.codec.empty() ? std::string() : ", codec " + opt.codec + " level " + std::to_string(opt.level)) +
           (opt.mode != write_mode::create ? std::string(", ") + mode_name(opt.mode) : std::string()) +
           (opt.first_row != 0 ? ", first_row " + std::to_string(opt.first_row) : std::string()) +
           (opt.growable ? ", growable" : "") +
           (opt.dimensions.empty() ? std::string() : ", dimensions " + std::to_string(opt.dimensions.size())) + [&] {
               std::string names;
               for (const std::string& d : opt.dimensions) names += " '" + d + "'";
               return names;
           }();
}

CHUNKWISE_HDF5_DECL void complete_options(write_options& opt, const std::vector<std::size_t>& shape,
                                          std::size_t elem_size, const std::string& file, const std::string& path) {
    if (shape.empty()) throw error(file, path, "write: an array of rank 0 has no rows");
    if (opt.deflate < 0 || opt.deflate > 9) {
        throw error(file, path, "write: deflate level must be 0-9, got " + std::to_string(opt.deflate));
    }
    if (!opt.chunk.empty() && opt.chunk.size() != shape.size()) {
        throw error(file, path,
                    "write: the chunk shape has " + std::to_string(opt.chunk.size()) + " axes, the array " +
                        std::to_string(shape.size()));
    }
    if (const std::string problem = h5::codec_problem(opt); !problem.empty())
        throw error(file, path, "write: " + problem);
    if (const std::string problem = attributes_problem(opt.attributes); !problem.empty())
        throw error(file, path, "write: " + problem);
    if (const std::string problem = chunkwise::detail::dimensions_problem(opt.dimensions, shape.size());
        !problem.empty())
        throw error(file, path, "write: " + problem);
    if ((opt.deflate > 0 || opt.shuffle || !opt.codec.empty() || opt.growable) && opt.chunk.empty()) {
        std::size_t row_bytes = elem_size;
        for (std::size_t d = 1; d < shape.size(); ++d) row_bytes *= std::max<std::size_t>(shape[d], 1);
        opt.chunk = shape;
        const std::size_t rows = std::max<std::size_t>((std::size_t{1} << 20) / std::max<std::size_t>(row_bytes, 1), 1);
        opt.chunk[0] =
            opt.growable ? rows : std::min(rows, std::max<std::size_t>(shape[0], 1));  // growable: rows to come
    }
    for (std::size_t d = 0; d < opt.chunk.size(); ++d) {
        opt.chunk[d] = std::max<std::size_t>(opt.chunk[d], 1);
        // HDF5 refuses chunks larger than a fixed-size dataset (with an unhelpful message).
        if (opt.chunk[d] > std::max<std::size_t>(shape[d], 1) && !(d == 0 && opt.growable)) {
            throw error(file, path,
                        "write: the chunk shape " + shape_text(opt.chunk) + " is larger than the array " +
                            shape_text(shape) + " on axis " + std::to_string(d) +
                            "; use a chunk no larger than the array");
        }
    }
}

CHUNKWISE_HDF5_DECL std::string room_problem(const std::string& file, std::size_t elem_size,
                                             const std::vector<std::size_t>& shape, std::uintmax_t heap_bytes) {
    namespace fs = std::filesystem;
    constexpr std::uintmax_t most = std::numeric_limits<std::uintmax_t>::max() / 2;  // saturated: no file holds it
    std::uintmax_t data_bytes = elem_size;
    for (std::size_t d : shape) data_bytes = d != 0 && data_bytes > most / d ? most : data_bytes * d;
    data_bytes = std::min(most, data_bytes + std::min(heap_bytes, most));
    const std::uintmax_t need = data_bytes + data_bytes / 64 + (std::uintmax_t{256} << 10);  // + index, metadata
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(file, ec);
    if (ec) return {};
    fs::path folder = fs::path(file).parent_path();
    if (folder.empty()) folder = ".";
    const fs::space_info room = fs::space(folder, ec);
    if (!ec && room.available < need) {
        return "about " + std::to_string(need) + " bytes are needed and " + std::to_string(room.available) +
               " are free on its file system; nothing was written";
    }
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && size + need > limit.rlim_cur) {
        return "the file would grow past this process's file size limit (ulimit -f: " +
               std::to_string(static_cast<std::uintmax_t>(limit.rlim_cur)) + " bytes); nothing was written";
    }
    return {};
}

CHUNKWISE_HDF5_DECL codecs::pipeline write_pipeline(const write_options& opt, std::size_t elem_size) {
    std::size_t chunk_bytes = elem_size;
    for (std::size_t c : opt.chunk) chunk_bytes *= c;
    const codecs::write_codec w =
        codecs::resolve_write_codec(opt.deflate, opt.codec, opt.level, codecs::store_kind::hdf5);
    return codecs::make_pipeline(w.main, w.option, w.level, opt.shuffle, elem_size, chunk_bytes);
}

CHUNKWISE_HDF5_DECL bool set_creation_properties(hid_t dcpl, const write_options& opt, std::size_t elem_size) {
    if (opt.chunk.empty()) return true;
    std::vector<hsize_t> chunk(opt.chunk.begin(), opt.chunk.end());
    if (H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data()) < 0) return false;
    for (const auto& [c, r] : write_pipeline(opt, elem_size)) {
        // Shuffle's element size is HDF5's to set (it fills it in from the dataset's type).
        const std::vector<unsigned> cd = c->id == H5Z_FILTER_SHUFFLE ? std::vector<unsigned>{} : c->parameters(r);
        if (H5Pset_filter(dcpl, static_cast<H5Z_filter_t>(c->id), H5Z_FLAG_OPTIONAL, cd.size(), cd.data()) < 0) {
            return false;
        }
    }
    return true;
}

CHUNKWISE_HDF5_DECL void check_filters(const write_options& opt, const std::vector<std::size_t>& chunk,
                                       std::size_t elem_size, const std::vector<int>& ids,
                                       const std::vector<std::vector<unsigned>>& params,
                                       const std::function<void(const std::string&)>& fail) {
    write_options asked = opt;
    asked.chunk = chunk;
    const std::string asked_text =
        (opt.codec.empty() ? "deflate " + std::to_string(opt.deflate)
                           : opt.codec + (opt.level != 0 ? " level " + std::to_string(opt.level) : std::string())) +
        (opt.shuffle ? " with shuffle" : "");
    const auto list = [](const std::vector<unsigned>& v, std::size_t from) {
        std::string t;
        for (std::size_t i = from; i < v.size(); ++i) {
            if (!t.empty()) t += ' ';  // (appended, not "x" + string: GCC 12 warns falsely at -O3)
            t += std::to_string(v[i]);
        }
        return t.empty() ? std::string("none") : t;
    };
    std::vector<int> want_ids;
    const codecs::pipeline pipe = write_pipeline(asked, elem_size);
    for (const auto& [c, r] : pipe) want_ids.push_back(c->id);
    if (want_ids != ids) {
        std::string theirs;
        for (int id : ids) {
            const codecs::codec* c = codecs::find_codec(id);
            theirs +=
                (theirs.empty() ? "" : ", ") + (c != nullptr ? std::string(c->name) : "filter " + std::to_string(id));
        }
        fail("the filters asked for (" + asked_text + ") differ from the dataset's (" +
             (theirs.empty() ? std::string("none") : theirs) + ")");
    }
    // A level asked for is the dataset's, parameter for parameter (those a plugin fills in at creation aside).
    const codecs::write_codec w =
        codecs::resolve_write_codec(opt.deflate, opt.codec, opt.level, codecs::store_kind::hdf5);
    if (w.level == 0) return;
    for (std::size_t k = 0; k < pipe.size(); ++k) {
        const auto& [c, r] = pipe[k];
        if (c != w.main || c->parameters == nullptr) continue;
        const std::vector<unsigned> want = c->parameters(r);
        const std::size_t from = c->settings_from;
        const bool same =
            want.size() == params[k].size() &&
            std::equal(want.begin() + static_cast<std::ptrdiff_t>(std::min(from, want.size())), want.end(),
                       params[k].begin() + static_cast<std::ptrdiff_t>(std::min(from, want.size())));
        if (!same)
            fail("the filters asked for (" + asked_text + ") differ from the dataset's: its " + c->name +
                 " parameters are " + list(params[k], from) + ", these ask " + list(want, from));
    }
}

CHUNKWISE_HDF5_DECL std::string type_mismatch(hid_t stored, hid_t values) {
    // Numbers by numpy's name; a variable-length type by its values' ("variable-length sequences of uint8").
    const auto name_of = [](hid_t type, element_type& t, std::string& defect) {
        if (H5Tget_class(type) != H5T_VLEN) {
            t = describe_type(type, defect);
            return t.numpy_name();
        }
        const handle base(H5Tget_super(type), H5Tclose);
        if (base.valid()) t = describe_type(base.get(), defect);
        return "variable-length sequences of " + (base.valid() ? t.numpy_name() : std::string("an unknown type"));
    };
    element_type have, want;
    std::string defect, mem_defect;
    const std::string have_name = name_of(stored, have, defect), want_name = name_of(values, want, mem_defect);
    const bool same_class = (H5Tget_class(stored) == H5T_VLEN) == (H5Tget_class(values) == H5T_VLEN);
    H5Eclear2(H5E_DEFAULT);
    if (defect.empty() && same_class && have.numeric && have.k == want.k && have.size == want.size && !have.is_enum)
        return {};
    return "the dataset holds " + have_name + ", the values are " + want_name + ": write values of the dataset's type";
}

CHUNKWISE_HDF5_DECL existing_dataset open_existing_dataset(hid_t fh, const std::string& file, const std::string& path,
                                                           hid_t mem_type, const std::vector<std::size_t>& shape,
                                                           const write_options& opt) {
    const std::string verb = mode_name(opt.mode);
    const auto fail = [&](const std::string& why) { throw error(file, path, verb + ": " + why); };
    bool there = true;  // each link on the way: H5Lexists fails where a group above is missing
    for (std::size_t at = path.find('/', 1); there; at = path.find('/', at + 1)) {
        there = H5Lexists(fh, path.substr(0, at).c_str(), H5P_DEFAULT) > 0;
        if (at == std::string::npos) break;
    }
    H5Eclear2(H5E_DEFAULT);
    if (!there)
        fail("no dataset at this path (write_mode::" + verb + " writes into an existing dataset: create it first)");
    existing_dataset e;
    e.dataset = handle(H5Dopen2(fh, path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!e.dataset.valid()) fail("not a dataset: " + last_error());
    const handle ftype(H5Dget_type(e.dataset.get()), H5Tclose), space(H5Dget_space(e.dataset.get()), H5Sclose);
    const handle dcpl(H5Dget_create_plist(e.dataset.get()), H5Pclose);
    if (!ftype.valid() || !space.valid() || !dcpl.valid()) fail("cannot read the dataset's header: " + last_error());
    if (const std::string why = type_mismatch(ftype.get(), mem_type); !why.empty()) fail(why);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    e.dims.assign(static_cast<std::size_t>(std::max(rank, 0)), 0);
    std::vector<hsize_t> most(e.dims.size(), 0);
    H5Sget_simple_extent_dims(space.get(), e.dims.data(), most.data());
    const std::vector<std::size_t> dims(e.dims.begin(), e.dims.end());
    // (0): no rows at all, as write_blocks states a run with no results; they fit any dataset
    const bool no_rows = shape.size() == 1 && shape[0] == 0;
    if (!no_rows && (dims.size() != shape.size() || !std::equal(shape.begin() + 1, shape.end(), dims.begin() + 1)))
        fail("the values' shape " + shape_text(shape) + " does not fit the dataset's " + shape_text(dims) +
             ": every axis but the first must be the dataset's");
    if (opt.mode == write_mode::append) {
        if (opt.first_row != 0 && opt.first_row != dims[0])
            fail("first_row " + std::to_string(opt.first_row) + " is not the dataset's end (" +
                 std::to_string(dims[0]) + " rows): append adds rows at the end; update writes rows inside");
        e.first_row = dims[0];
        if (shape[0] > 0 && most[0] != H5S_UNLIMITED && dims[0] + shape[0] > most[0])
            fail("axis 0 is fixed at " + std::to_string(most[0]) +
                 " rows: create the dataset with write_options::growable to append to it");
    } else if (opt.first_row > dims[0] || shape[0] > dims[0] - opt.first_row) {
        fail("rows [" + std::to_string(opt.first_row) + ", " + std::to_string(opt.first_row + shape[0]) +
             ") lie past the dataset's end (" + std::to_string(dims[0]) +
             " rows): update writes within the dataset; append adds rows");
    } else {
        e.first_row = opt.first_row;
    }
    std::vector<std::size_t> chunk;
    if (H5Pget_layout(dcpl.get()) == H5D_CHUNKED) {
        std::vector<hsize_t> c(dims.size(), 0);
        H5Pget_chunk(dcpl.get(), static_cast<int>(c.size()), c.data());
        chunk.assign(c.begin(), c.end());
    }
    if (!opt.chunk.empty() && opt.chunk != chunk)
        fail("chunk " + shape_text(opt.chunk) + " differs from the dataset's " +
             (chunk.empty() ? std::string("(contiguous)") : shape_text(chunk)));
    std::vector<int> ids;
    std::vector<std::vector<unsigned>> params;
    for (int k = 0, n = H5Pget_nfilters(dcpl.get()); k < n; ++k) {
        unsigned flags = 0;
        std::vector<unsigned> cd(32, 0);
        std::size_t nparams = cd.size();
        char name[64] = {};
        const H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(k), &flags, &nparams, cd.data(),
                                               sizeof name, name, nullptr);
        cd.resize(std::min(nparams, cd.size()));
        ids.push_back(static_cast<int>(id));
        params.push_back(std::move(cd));
        if (H5Zfilter_avail(id) <= 0) {
            const codecs::codec* c = codecs::find_codec(static_cast<int>(id));
            fail("the dataset's filter " + std::string(c != nullptr ? c->name : name) + " (" + std::to_string(id) +
                 ") is not available to HDF5 here, which rewrites the chunks the rows share" +
                 (c != nullptr && c->provider != nullptr ? std::string(" (its HDF5 plugin: ") + c->provider + ")"
                                                         : std::string()));
        }
    }
    if (opt.deflate > 0 || opt.shuffle || !opt.codec.empty())
        check_filters(opt, chunk, H5Tget_size(ftype.get()), ids, params, fail);
    if (!opt.dimensions.empty()) {
        const std::vector<std::string> names = read_dimensions(e.dataset.get(), file, path);
        if (names != opt.dimensions) {
            std::string a, b;
            for (const std::string& x : opt.dimensions) a += (a.empty() ? "" : ", ") + x;
            for (const std::string& x : names) b += (b.empty() ? "" : ", ") + x;
            fail("dimensions [" + a + "] differ from the dataset's [" + (names.empty() ? "none" : b) + "]");
        }
    }
    H5Eclear2(H5E_DEFAULT);
    return e;
}

CHUNKWISE_HDF5_DECL existing_rows_writer::existing_rows_writer(const std::string& file, const std::string& path,
                                                               hid_t mem_type, std::size_t elem_size,
                                                               const std::vector<std::size_t>& shape,
                                                               const write_options& opt, std::size_t heap_bytes)
        : file_(file), path_(path), mem_type_(mem_type), opt_(opt), shape_(shape) {
    if (shape.empty()) fail("an array of rank 0 has no rows");
    if (const std::string why = attributes_problem(opt.attributes); !why.empty()) fail(why);
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
        fail(std::string("no such file (write_mode::") + mode_name(opt.mode) +
             " writes into an existing dataset: create it first)");
    if (const std::string problem = room_problem(file, elem_size, shape, heap_bytes); !problem.empty()) fail(problem);
    library_lock lock;
    file_h_ = handle(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (!file_h_.valid()) fail("cannot open the file for writing: " + last_error());
    d_ = open_existing_dataset(file_h_.get(), file, path, mem_type, shape, opt);
    if (opt.mode == write_mode::append && shape[0] > 0) {
        std::vector<hsize_t> dims = d_.dims;
        dims[0] += shape[0];
        if (H5Dset_extent(d_.dataset.get(), dims.data()) < 0)
            fail("cannot extend axis 0 to " + std::to_string(dims[0]) + " rows: " + last_error());
    }
}

CHUNKWISE_HDF5_DECL existing_rows_writer::~existing_rows_writer() {
    d_.dataset.reset();  // handles close under the lock; what was written stays
    file_h_.reset();
}

CHUNKWISE_HDF5_DECL void existing_rows_writer::write_rows(std::size_t first, const void* data, std::size_t rows) {
    if (rows == 0) return;
    library_lock lock;
    std::vector<hsize_t> start(shape_.size(), 0), count(shape_.begin(), shape_.end());
    start[0] = d_.first_row + first;
    count[0] = rows;
    const handle fspace(H5Dget_space(d_.dataset.get()), H5Sclose);
    const handle mspace(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
    if (!fspace.valid() || !mspace.valid() ||
        H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0 ||
        H5Dwrite(d_.dataset.get(), mem_type_, mspace.get(), fspace.get(), H5P_DEFAULT, data) < 0)
        fail("writing rows [" + std::to_string(start[0]) + ", " + std::to_string(start[0] + rows) +
             ") failed: " + last_error());
}

CHUNKWISE_HDF5_DECL void existing_rows_writer::close() {
    library_lock lock;
    if (!opt_.attributes.empty()) write_attributes(d_.dataset.get(), opt_.attributes, file_, path_);
    const bool closed = d_.dataset.close(), flushed = file_h_.valid() && H5Fflush(file_h_.get(), H5F_SCOPE_LOCAL) >= 0;
    if (!closed || !flushed || !file_h_.close())
        fail("closing the dataset and the file failed (disk full?): " + last_error());
}

CHUNKWISE_HDF5_DECL void existing_rows_writer::fail(const std::string& what) const {
    throw error(file_, path_, std::string(mode_name(opt_.mode)) + ": " + what);
}

}  // namespace detail
}  // namespace chunkwise::h5

namespace chunkwise::h5 {
namespace detail {

CHUNKWISE_HDF5_DECL dataset_writer::dataset_writer(const std::string& file, const std::string& path, hid_t file_type,
                                                   const std::vector<std::size_t>& shape, const write_options& opt,
                                                   hid_t fapl, bool file_existed)
        : file_(file), path_(path) {
    if (opt.mode == write_mode::append || opt.mode == write_mode::update) {
        committed_ = true;  // nothing made
        throw error(file, path,
                    std::string("write: write_mode::") + mode_name(opt.mode) +
                        " is taken by h5::write, h5::write_blocks and h5::stream_writer: chunk_writer makes a new "
                        "dataset (write_mode::create or replace)");
    }
    file_h_ = file_existed ? handle(H5Fopen(file.c_str(), H5F_ACC_RDWR, fapl), H5Fclose)
                           : handle(H5Fcreate(file.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl), H5Fclose);
    if (!file_h_.valid()) fail("cannot open or create the file: " + last_error());
    created_file_ = !file_existed;
    if (const std::string why = dimensions_conflict(file_h_.get(), path, opt.dimensions, shape); !why.empty()) {
        committed_ = true;  // nothing changed
        throw error(file, path, "write: dimension names: " + why);
    }
    if (H5Lexists(file_h_.get(), path.c_str(), H5P_DEFAULT) > 0) replace_existing(opt.mode);
    H5Eclear2(H5E_DEFAULT);
    std::vector<hsize_t> dims(shape.begin(), shape.end());
    std::vector<hsize_t> most = dims;
    if (opt.growable) most[0] = H5S_UNLIMITED;
    handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), most.data()), H5Sclose);
    handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (!space.valid() || !lcpl.valid() || !dcpl.valid()) fail("cannot describe the dataset: " + last_error());
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    if (!set_creation_properties(dcpl.get(), opt, H5Tget_size(file_type)))
        fail("cannot set the chunk shape or filters: " + last_error());
    dset_h_ = handle(
        H5Dcreate2(file_h_.get(), path.c_str(), file_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT), H5Dclose);
    if (!dset_h_.valid()) fail("cannot create the dataset: " + last_error());
    created_dataset_ = true;
    try {
        write_attributes(dset_h_.get(), opt.attributes, file, path);
        attach_dimensions(file_h_.get(), dset_h_.get(), file, path, opt.dimensions, shape, opt.growable);
    } catch (...) {
        abandon();
        throw;
    }
    // The unfinished mark: in the dataset's header, so wherever the header reaches the disk, the mark does too.
    static constexpr char text[] = "chunkwise is writing this dataset; unfinished while this attribute exists";
    const handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    const handle scalar(H5Screate(H5S_SCALAR), H5Sclose);
    bool marked = type.valid() && scalar.valid() && H5Tset_size(type.get(), sizeof text - 1) >= 0;
    if (marked) {
        const handle a(H5Acreate2(dset_h_.get(), unfinished_mark, type.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose);
        marked = a.valid() && H5Awrite(a.get(), type.get(), text) >= 0;
    }
    if (!marked) fail("cannot mark the dataset unfinished: " + last_error());
}

CHUNKWISE_HDF5_DECL auto dataset_writer::commit() -> void {
    if (H5Adelete(dset_h_.get(), unfinished_mark) < 0) fail("cannot remove the unfinished mark: " + last_error());
    const bool dataset_closed = dset_h_.close();
    const std::string dataset_error = dataset_closed ? std::string() : last_error();
    const bool flushed = H5Fflush(file_h_.get(), H5F_SCOPE_LOCAL) >= 0;
    const std::string flush_error = flushed ? std::string() : last_error();
    const bool file_closed = file_h_.close();
    if (!dataset_closed || !flushed || !file_closed) {
        const std::string why = !dataset_closed ? dataset_error : !flushed ? flush_error : last_error();
        fail("closing the dataset and the file failed (disk full?): " + (why.empty() ? std::string("unknown") : why));
    }
    committed_ = true;
}

CHUNKWISE_HDF5_DECL auto dataset_writer::replace_existing(write_mode mode) -> void {
    bool dataset = false, unfinished = false;
    if (const hid_t o = H5Oopen(file_h_.get(), path_.c_str(), H5P_DEFAULT); o >= 0) {
        dataset = H5Iget_type(o) == H5I_DATASET;
        unfinished = dataset && H5Aexists(o, unfinished_mark) > 0;  // an unfinished write: replaced, whatever the mode
        H5Oclose(o);
    }
    H5Eclear2(H5E_DEFAULT);
    if ((mode != write_mode::replace && !unfinished) || !dataset) {
        committed_ = true;  // nothing of ours to undo
        throw error(file_, path_,
                    !dataset ? "write: a group (or another object that is not a dataset) exists there: not replaced"
                             : "write: the dataset already exists: not overwritten (write_mode::create; ask for "
                               "write_mode::replace to replace it)");
    }
    detach_dimensions(file_h_.get(), path_);
    if (H5Ldelete(file_h_.get(), path_.c_str(), H5P_DEFAULT) < 0)
        fail("cannot remove the old dataset: " + last_error());
}

CHUNKWISE_HDF5_DECL auto dataset_writer::abandon() noexcept -> std::string {
    if (committed_) return {};
    committed_ = true;
    dset_h_.reset();
    std::string note;
    if (created_file_) {
        file_h_.reset();
        std::error_code ec;
        std::filesystem::remove(file_, ec);
        if (ec) note = " (and the partly written file could not be removed: " + ec.message() + ")";
    } else if (created_dataset_ && file_h_.valid()) {
        detach_dimensions(file_h_.get(), path_);
        const bool unlinked = H5Ldelete(file_h_.get(), path_.c_str(), H5P_DEFAULT) >= 0;
        const bool closed = file_h_.close();
        H5Eclear2(H5E_DEFAULT);
        if (!unlinked || !closed)
            note = " (the partly written dataset may remain in the file: remove it before retrying)";
    }
    return note;
}

}  // namespace detail
}  // namespace chunkwise::h5
