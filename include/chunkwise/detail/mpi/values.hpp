#pragma once
// Internal: moving result values between ranks. Values the value codec knows (arithmetic values,
// std::vector of them, tensors) travel as raw element buffers with a small header of u64 per value
// (vector length, tensor shape); types that write their own bytes (byte_codable: the statistics of
// <chunkwise/accumulate.hpp>) travel as those bytes; every other type is packed with Boost.Serialization (Boost.MPI's
// packed archives) into bytes that travel the same raw way. Every local step (encoding or packing,
// allocating, decoding or unpacking) runs inside `attempt` and is settled by all ranks before the
// next transfer, so a serialization that throws on one rank makes every rank throw the same
// chunkwise::error instead of leaving the others waiting.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/value_codec.hpp>
#include <chunkwise/detail/mpi/agree.hpp>
#include <chunkwise/detail/mpi/check.hpp>
#include <chunkwise/detail/mpi/transfer.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/packed_iarchive.hpp>
#include <boost/mpi/packed_oarchive.hpp>
#include <boost/serialization/string.hpp>  // results of these types travel without extra includes
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::detail {

/// `values` serialized (Boost.Serialization through Boost.MPI's packed archive) into bytes.
template <class R>
std::vector<char> pack_values(const boost::mpi::communicator& comm, const std::vector<R>& values) {
    boost::mpi::packed_oarchive out(comm);
    const std::uint64_t n = values.size();
    out << n;
    for (const R& v : values) out << v;
    const char* begin = static_cast<const char*>(out.address());
    return std::vector<char>(begin, begin + out.size());
}

/// The values pack_values made of `size` bytes at `data`.
template <class R>
std::vector<R> unpack_values(const boost::mpi::communicator& comm, const char* data, std::size_t size) {
    boost::mpi::packed_iarchive in(comm);
    in.resize(size);
    if (size > 0) std::memcpy(in.address(), data, size);
    std::uint64_t n = 0;
    in >> n;
    std::vector<R> out;
    out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, size)));
    for (std::uint64_t i = 0; i < n; ++i) {
        R v{};
        in >> v;
        out.push_back(std::move(v));
    }
    return out;
}

/// Each value's own bytes one after another in `bytes`, each one's length in `lengths`.
template <class R>
void pack_bytes(const std::vector<R>& values, std::vector<char>& bytes, std::vector<std::uint64_t>& lengths) {
    std::string buf;
    for (const R& v : values) {
        const std::size_t before = buf.size();
        v.save_bytes(buf);
        lengths.push_back(buf.size() - before);
    }
    bytes.assign(buf.begin(), buf.end());
}

/// The values pack_bytes made.
template <class R>
std::vector<R> unpack_bytes(const std::vector<char>& bytes, const std::vector<std::uint64_t>& lengths) {
    std::vector<R> out;
    out.reserve(lengths.size());
    std::size_t at = 0;
    for (std::uint64_t len : lengths) {
        if (len > bytes.size() - at) throw codec_error("[chunkwise.mpi] a result's bytes end early");
        out.push_back(R::load_bytes(std::string_view(bytes.data() + at, static_cast<std::size_t>(len))));
        at += static_cast<std::size_t>(len);
    }
    return out;
}

/// The number of values without state (std::monostate of void block functions) every rank holds,
/// in total, on root: only their counts travel. Collective.
CHUNKWISE_MPI_DECL std::uint64_t gather_stateless_count(const boost::mpi::communicator& comm, std::size_t mine,
                                                        int root, const std::vector<std::uint64_t>* known_counts);

/// A gather of values that travel as their own elements (value_codec<R>::raw): headers first,
/// then root allocates every value and receives each rank's elements straight into it where that
/// rank holds one value (the common case of one block per rank), else into a buffer it splits.
/// Root's own values are moved. Every receiving value and buffer is allocated (and every shape
/// checked) before any element travels. Each step is collective.
template <class R>
class raw_gather {
public:
    using codec = value_codec<R>;
    using element = typename codec::element;

    raw_gather(const boost::mpi::communicator& comm, std::vector<R>& values, int root)
            : comm_(comm), values_(values), root_(root), rank_(comm.rank()), size_(comm.size()) {}

    std::vector<R> run(const std::vector<std::uint64_t>* known_counts) {
        exchange_headers(known_counts);
        settle(comm_, attempt(rank_, "transfer", [&] { allocate(); }), "allocating what it receives failed");
        transfer();
        std::string decoded;
        if (rank_ == root_) decoded = attempt(rank_, "deserialize", [&] { split_buffers(); });
        settle_root(comm_, rank_, root_, decoded, "decoding the results failed");
        return std::move(out_);
    }

private:
    // Every value's header (sizes, shapes) and every rank's number of values, on root.
    void exchange_headers(const std::vector<std::uint64_t>* known_counts) {
        std::vector<std::uint64_t> header;
        settle(comm_,
               attempt(rank_, "serialize",
                       [&] {
                           for (const R& v : values_) codec::header(v, header);
                       }),
               "encoding a result failed");
        if (known_counts != nullptr) {
            value_counts_ = *known_counts;
        } else {
            const std::uint64_t my_values = values_.size();
            value_counts_.assign(rank_ == root_ ? static_cast<std::size_t>(size_) : 0, 0);
            check_mpi(MPI_Gather(&my_values, 1, mpi_type<std::uint64_t>(), value_counts_.data(), 1,
                                 mpi_type<std::uint64_t>(), root_, comm_),
                      "MPI_Gather of value counts");
        }
        std::vector<std::uint64_t> known_header_counts, header_counts;
        if (known_counts != nullptr && codec::fixed_header > 0) {
            for (std::uint64_t c : *known_counts) known_header_counts.push_back(c * codec::fixed_header);
        }
        headers_ = gather_raw<std::uint64_t>(comm_, header, root_, header_counts,
                                             known_header_counts.empty() ? nullptr : &known_header_counts);
    }

    // Root: every value made from its header (its own moved), a buffer for each rank sending more
    // than one. Elsewhere: what this rank sends.
    void allocate() {
        if (rank_ != root_) {
            if (values_.size() == 1) {
                send_ = codec::elements(values_.front());
                return;
            }
            for (const R& v : values_) {
                const auto e = codec::elements(v);
                flat_.insert(flat_.end(), e.begin(), e.end());
            }
            send_ = flat_;
            return;
        }
        buffers_.resize(static_cast<std::size_t>(size_));
        spans_.resize(static_cast<std::size_t>(size_));
        const std::uint64_t* h = headers_.data();
        for (int r = 0; r < size_; ++r) {
            const std::size_t count = static_cast<std::size_t>(value_counts_[static_cast<std::size_t>(r)]);
            spans_[static_cast<std::size_t>(r)] = {out_.size(), count};
            if (r == root_) {
                for (std::size_t k = 0; k < count; ++k) {
                    codec::skip(h);
                    out_.push_back(std::move(values_[k]));
                }
                continue;
            }
            std::size_t elements = 0;
            for (std::size_t k = 0; k < count; ++k) {
                out_.push_back(codec::make(h));
                elements += codec::elements(out_.back()).size();
            }
            if (count > 1) buffers_[static_cast<std::size_t>(r)].resize(elements);
        }
    }

    // The elements, in messages of at most max_message_bytes: root receives from every rank.
    void transfer() {
        const std::size_t limit = std::max<std::size_t>(1, max_message_bytes / sizeof(element));
        constexpr int tag = 0x6378;
        if (rank_ != root_) {
            for (std::size_t off = 0; off < send_.size(); off += limit) {
                check_mpi(MPI_Send(send_.data() + off, static_cast<int>(std::min(limit, send_.size() - off)),
                                   mpi_type<element>(), root_, tag, comm_),
                          "MPI_Send");
            }
            return;
        }
        std::vector<MPI_Request> requests;
        for (int r = 0; r < size_; ++r) {
            if (r == root_) continue;
            const auto [first, count] = spans_[static_cast<std::size_t>(r)];
            if (count == 0) continue;
            std::size_t elements = 0;
            for (std::size_t k = first; k < first + count; ++k) elements += codec::elements(out_[k]).size();
            element* dest = count == 1 ? codec::data(out_[first]) : buffers_[static_cast<std::size_t>(r)].data();
            for (std::size_t off = 0; off < elements; off += limit) {
                MPI_Request req;
                check_mpi(MPI_Irecv(dest + off, static_cast<int>(std::min(limit, elements - off)), mpi_type<element>(),
                                    r, tag, comm_, &req),
                          "MPI_Irecv");
                requests.push_back(req);
            }
        }
        check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    }

    // Root: each buffer's elements split among the values of its rank.
    void split_buffers() {
        for (int r = 0; r < size_; ++r) {
            const auto& buffer = buffers_[static_cast<std::size_t>(r)];
            if (buffer.empty()) continue;
            const element* d = buffer.data();
            const auto [first, count] = spans_[static_cast<std::size_t>(r)];
            for (std::size_t k = first; k < first + count; ++k) {
                const std::size_t len = codec::elements(out_[k]).size();
                std::copy(d, d + len, codec::data(out_[k]));
                d += len;
            }
        }
    }

    const boost::mpi::communicator& comm_;
    std::vector<R>& values_;
    int root_, rank_, size_;
    std::vector<R> out_;
    std::vector<std::uint64_t> value_counts_, headers_;
    std::vector<std::vector<element>> buffers_;
    std::vector<std::pair<std::size_t, std::size_t>> spans_;  // on root: the values of each rank
    std::vector<element> flat_;                               // elsewhere: what this rank sends
    std::span<const element> send_;
};

/// A gather of values that write their own bytes (byte_codable): the bytes and each value's
/// length travel raw. Collective.
template <class R>
std::vector<R> gather_byte_codable(const boost::mpi::communicator& comm, std::vector<R>& values, int root) {
    const int rank = comm.rank();
    std::vector<char> bytes;
    std::vector<std::uint64_t> lengths;
    settle(comm, attempt(rank, "serialize", [&] { pack_bytes(values, bytes, lengths); }),
           "serializing a result failed");
    std::vector<std::uint64_t> length_counts, byte_counts;
    const auto all_lengths = gather_raw<std::uint64_t>(comm, lengths, root, length_counts);
    const auto all_bytes = gather_raw<char>(comm, bytes, root, byte_counts);
    std::vector<R> out;
    std::string decoded;
    if (rank == root) decoded = attempt(rank, "deserialize", [&] { out = unpack_bytes<R>(all_bytes, all_lengths); });
    settle_root(comm, rank, root, decoded, "deserializing a result failed");
    return out;
}

/// A gather of serialized values: every rank packs its values into bytes (Boost.Serialization);
/// the bytes travel raw (split above INT_MAX); root unpacks each rank's part. Collective.
template <class R>
std::vector<R> gather_serialized(const boost::mpi::communicator& comm, std::vector<R>& values, int root) {
    const int rank = comm.rank();
    std::vector<char> bytes;
    settle(comm, attempt(rank, "serialize", [&] { bytes = pack_values(comm, values); }), "serializing a result failed");
    std::vector<std::uint64_t> counts;
    const std::vector<char> all = gather_raw<char>(comm, bytes, root, counts);
    std::vector<R> out;
    std::string unpacked;
    if (rank == root) {
        unpacked = attempt(rank, "deserialize", [&] {
            std::size_t at = 0;
            for (std::uint64_t count : counts) {
                std::vector<R> part = unpack_values<R>(comm, all.data() + at, static_cast<std::size_t>(count));
                for (auto& v : part) out.push_back(std::move(v));
                at += static_cast<std::size_t>(count);
            }
        });
    }
    settle_root(comm, rank, root, unpacked, "deserializing a result failed");
    return out;
}

/// Every rank's values on root, concatenated in rank order; empty elsewhere. Where every rank
/// knows every rank's number of values, pass them as `known_counts`. Collective.
template <class R>
std::vector<R> gather_values(const boost::mpi::communicator& comm, std::vector<R>& values, int root,
                             const std::vector<std::uint64_t>* known_counts = nullptr) {
    if constexpr (std::is_empty_v<R> && std::is_default_constructible_v<R>) {
        const std::uint64_t total = gather_stateless_count(comm, values.size(), root, known_counts);
        return std::vector<R>(comm.rank() == root ? static_cast<std::size_t>(total) : 0);
    } else if constexpr (plain_arithmetic<R>) {
        std::vector<std::uint64_t> counts;
        return gather_raw<R>(comm, values, root, counts, known_counts);
    } else if constexpr (value_codec<R>::raw) {
        return raw_gather<R>(comm, values, root).run(known_counts);
    } else if constexpr (chunkwise::byte_codable<R>) {
        return gather_byte_codable<R>(comm, values, root);
    } else {
        return gather_serialized<R>(comm, values, root);
    }
}

/// Every rank's (key, value) pairs on root, concatenated in rank order; empty elsewhere.
/// Collective.
template <class R>
std::vector<std::pair<std::uint64_t, R>> gather_keyed(const boost::mpi::communicator& comm,
                                                      const std::vector<std::uint64_t>& keys, std::vector<R>& values,
                                                      int root) {
    std::vector<std::uint64_t> counts;
    const auto all_keys = gather_raw<std::uint64_t>(comm, keys, root, counts);
    std::vector<R> all_values = gather_values(comm, values, root);
    std::vector<std::pair<std::uint64_t, R>> out;
    if (comm.rank() == root) {
        out.reserve(all_keys.size());
        for (std::size_t i = 0; i < all_keys.size() && i < all_values.size(); ++i) {
            out.emplace_back(all_keys[i], std::move(all_values[i]));
        }
    }
    return out;
}

/// Root's values, in order, on every rank. Collective.
template <class R>
void broadcast_values(const boost::mpi::communicator& comm, std::vector<R>& values, int root) {
    const int rank = comm.rank();
    if constexpr (std::is_empty_v<R> && std::is_default_constructible_v<R>) {
        std::uint64_t count = values.size();
        check_mpi(MPI_Bcast(&count, 1, mpi_type<std::uint64_t>(), root, comm), "MPI_Bcast of a count");
        values.resize(static_cast<std::size_t>(count));
    } else if constexpr (value_codec<R>::raw) {
        using codec = value_codec<R>;
        using element = typename codec::element;
        std::vector<std::uint64_t> header;
        std::vector<element> flat;
        std::uint64_t count = values.size();
        std::string encoded;
        if (rank == root) {
            encoded = attempt(rank, "serialize", [&] {
                for (const R& v : values) {
                    codec::header(v, header);
                    const auto e = codec::elements(v);
                    flat.insert(flat.end(), e.begin(), e.end());
                }
            });
        }
        settle_root(comm, rank, root, encoded, "encoding a result failed");
        check_mpi(MPI_Bcast(&count, 1, mpi_type<std::uint64_t>(), root, comm), "MPI_Bcast of a count");
        broadcast_raw(comm, header, root);
        broadcast_raw(comm, flat, root);
        std::string decoded;
        if (rank != root) {
            decoded = attempt(rank, "deserialize", [&] {
                values.clear();
                values.reserve(static_cast<std::size_t>(count));
                const std::uint64_t* h = header.data();
                const element* d = flat.data();
                for (std::uint64_t i = 0; i < count; ++i) values.push_back(codec::decode(h, d));
            });
        }
        settle(comm, decoded, "decoding a result failed");
    } else if constexpr (chunkwise::byte_codable<R>) {
        std::vector<char> bytes;
        std::vector<std::uint64_t> lengths;
        std::string packed;
        if (rank == root) packed = attempt(rank, "serialize", [&] { pack_bytes(values, bytes, lengths); });
        settle_root(comm, rank, root, packed, "serializing a result failed");
        broadcast_raw(comm, lengths, root);
        broadcast_raw(comm, bytes, root);
        std::string unpacked;
        if (rank != root) unpacked = attempt(rank, "deserialize", [&] { values = unpack_bytes<R>(bytes, lengths); });
        settle(comm, unpacked, "deserializing a result failed");
    } else {
        std::vector<char> bytes;
        std::string packed;
        if (rank == root) packed = attempt(rank, "serialize", [&] { bytes = pack_values(comm, values); });
        settle_root(comm, rank, root, packed, "serializing a result failed");
        broadcast_raw(comm, bytes, root);
        std::string unpacked;
        if (rank != root) {
            unpacked =
                attempt(rank, "deserialize", [&] { values = unpack_values<R>(comm, bytes.data(), bytes.size()); });
        }
        settle(comm, unpacked, "deserializing a result failed");
    }
}

}  // namespace chunkwise::detail

#if CHUNKWISE_MPI_HEADER_ONLY
#include <chunkwise/detail/mpi/values.ipp>
#endif
