#!/usr/bin/python3
"""The Zarr sweeps of chunkwise's tests.

  zarr_sweeps.py v3orders DIR   writes a v3 store for every codec order the v3 spec allows
                                (array-to-array codecs before the array-to-bytes one, bytes-to-bytes
                                codecs after it, sharding nested in sharding), encoded here from the
                                spec with numpy, numcodecs and zlib, each with DIR/NAME.raw (its
                                values, little-endian) and DIR/manifest.json; where zarr-python 3 is
                                installed it reads every store back to check the encoding
  zarr_sweeps.py filters DIR    writes with zarr-python 2 one v2 store for every numcodecs filter
                                and compressor pair it writes for numbers; DIR/manifest.json lists
                                name, dtype, shape and the filter's id
"""
import gzip
import json
import os
import sys

import numpy as np

SHAPE = (37, 11)


def crc32c(data):
    """CRC-32C (Castagnoli), as the v3 crc32c codec stores it."""
    table = crc32c.table
    if table is None:
        table = []
        for i in range(256):
            c = i
            for _ in range(8):
                c = 0x82F63B78 ^ (c >> 1) if c & 1 else c >> 1
            table.append(c)
        crc32c.table = table
    c = 0xFFFFFFFF
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


crc32c.table = None


def encode(arr, chain):
    """A chunk's values through a v3 codec chain (as metadata lists it), to its stored bytes."""
    data = arr
    for codec in chain:
        name, conf = codec["name"], codec.get("configuration", {})
        if name == "transpose":
            data = np.ascontiguousarray(data.transpose(conf["order"]))
        elif name == "bytes":
            order = "<" if conf.get("endian", "little") == "little" else ">"
            data = np.ascontiguousarray(data).astype(data.dtype.newbyteorder(order)).tobytes()
        elif name == "sharding_indexed":
            data = encode_shard(data, conf)
        elif name == "gzip":
            data = gzip.compress(data, compresslevel=conf.get("level", 5), mtime=0)
        elif name == "zstd":
            import numcodecs
            data = bytes(numcodecs.Zstd(level=conf.get("level", 1)).encode(data))
        elif name == "crc32c":
            data = data + crc32c(data).to_bytes(4, "little")
        else:
            raise ValueError(name)
    return data


def encode_shard(arr, conf):
    """A shard (arr, already through the codecs before sharding) with its inner chunks and index."""
    inner = conf["chunk_shape"]
    grid = [s // c for s, c in zip(arr.shape, inner)]
    pieces, index = [], []
    offset = 0
    for pos in np.ndindex(*grid):
        box = tuple(slice(p * c, (p + 1) * c) for p, c in zip(pos, inner))
        b = encode(arr[box], conf["codecs"])
        pieces.append(b)
        index.append((offset, len(b)))
        offset += len(b)
    raw = np.array(index, dtype="<u8").tobytes()
    ix = encode(np.frombuffer(raw, dtype="<u8").reshape(len(index), 2), conf["index_codecs"])
    if conf.get("index_location", "end") == "start":
        shifted = np.array([(o + len(ix), n) for o, n in index], dtype="<u8").tobytes()
        ix = encode(np.frombuffer(shifted, dtype="<u8").reshape(len(index), 2), conf["index_codecs"])
        return ix + b"".join(pieces)
    return b"".join(pieces) + ix


def index_codecs(crc):
    return [{"name": "bytes", "configuration": {"endian": "little"}}] + ([{"name": "crc32c"}] if crc else [])


def v3_cases():
    """(name, chunk shape, codecs) for every order the spec allows, over a (37, 11) float64 array."""
    le = {"name": "bytes", "configuration": {"endian": "little"}}
    be = {"name": "bytes", "configuration": {"endian": "big"}}
    t10 = {"name": "transpose", "configuration": {"order": [1, 0]}}
    gz = {"name": "gzip", "configuration": {"level": 1}}
    zs = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}
    crc = {"name": "crc32c"}
    def shard(inner, codecs, at="end", crc_index=True):
        return {"name": "sharding_indexed", "configuration": {
            "chunk_shape": inner, "codecs": codecs, "index_codecs": index_codecs(crc_index), "index_location": at}}
    array_to_bytes = {
        "le": ([8, 4], [le]),
        "be": ([8, 4], [be]),
        "shard": ([16, 8], [shard([8, 4], [le])]),
        "shard_start": ([16, 8], [shard([8, 4], [be, gz], "start")]),
        "shard_inner_t": ([16, 8], [shard([8, 4], [t10, le, crc])]),
        "shard_nested": ([16, 8], [shard([8, 8], [shard([4, 4], [le, zs])], crc_index=False)]),
    }
    after = {"": [], "_gzip": [gz], "_crc32c": [crc], "_gzip_crc32c": [gz, crc], "_zstd": [zs]}
    cases = []
    for a2a_name, a2a in [("", []), ("t_", [t10]), ("tt_", [t10, t10])]:
        for a2b_name, (chunks, a2b) in array_to_bytes.items():
            for b2b_name, b2b in after.items():
                if a2a_name == "tt_" and b2b_name not in ("", "_crc32c"):
                    continue
                codecs = a2a + a2b + b2b
                # chunk_shape of a sharding codec is in the space after the codecs before it
                if a2a_name == "t_" and a2b_name.startswith("shard"):
                    codecs = [t10] + [transposed_shard(a2b[0])] + b2b
                cases.append((f"o3_{a2a_name}{a2b_name}{b2b_name}", chunks, codecs))
    return cases


def transposed_shard(s):
    """A sharding codec behind a transpose of 2 axes: its inner chunks in the transposed space."""
    c = json.loads(json.dumps(s))
    c["configuration"]["chunk_shape"] = c["configuration"]["chunk_shape"][::-1]
    return c


def write_v3orders(out):
    manifest = []
    for i, (name, chunks, codecs) in enumerate(v3_cases()):
        path = os.path.join(out, name)
        os.makedirs(path, exist_ok=True)
        data = np.random.default_rng(i).standard_normal(SHAPE) * 100
        meta = {"zarr_format": 3, "node_type": "array", "shape": list(SHAPE), "data_type": "float64",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                "fill_value": 0.0, "codecs": codecs, "attributes": {}}
        json.dump(meta, open(os.path.join(path, "zarr.json"), "w"), indent=1)
        grid = [-(-s // c) for s, c in zip(SHAPE, chunks)]
        for pos in np.ndindex(*grid):
            chunk = np.zeros(chunks)
            box = tuple(slice(p * c, min((p + 1) * c, s)) for p, c, s in zip(pos, chunks, SHAPE))
            chunk[tuple(slice(0, b.stop - b.start) for b in box)] = data[box]
            key = os.path.join(path, "c", *[str(p) for p in pos])
            os.makedirs(os.path.dirname(key), exist_ok=True)
            open(key, "wb").write(encode(chunk, codecs))
        data.astype("<f8").tofile(os.path.join(out, name + ".raw"))
        manifest.append({"name": name, "format": 3, "dtype": "f8", "shape": list(SHAPE),
                         "codecs": [c["name"] for c in codecs]})
    json.dump(manifest, open(os.path.join(out, "manifest.json"), "w"), indent=1)
    try:
        import zarr
        if int(zarr.__version__.split(".")[0]) < 3:
            return 0
    except ImportError:
        return 0
    bad = 0
    for m in manifest:  # the encoder above checked against zarr-python 3
        got = np.asarray(zarr.open_array(os.path.join(out, m["name"]), mode="r")[...])
        if got.tobytes() != np.fromfile(os.path.join(out, m["name"] + ".raw"), dtype="<f8").tobytes():
            print(f"{m['name']}: zarr-python {zarr.__version__} reads other values")
            bad += 1
    print(f"zarr-python {zarr.__version__} reads {len(manifest) - bad} of {len(manifest)} codec orders as written")
    return 1 if bad else 0


def filter_cases():
    """(name, dtype, filter) for every numcodecs filter zarr-python 2 writes into arrays of numbers."""
    import numcodecs as nc
    return [
        ("delta_i4", "<i4", nc.Delta(dtype="<i4")),
        ("delta_f4_as_f8", "<f4", nc.Delta(dtype="<f4", astype="<f8")),
        ("delta_be_i4", ">i4", nc.Delta(dtype=">i4")),
        ("delta_be_i8_as_i2", ">i8", nc.Delta(dtype=">i8", astype=">i2")),
        ("delta_be_f8", ">f8", nc.Delta(dtype=">f8")),
        ("shuffle", "<f8", nc.Shuffle(elementsize=8)),
        ("quantize", "<f8", nc.Quantize(digits=3, dtype="<f8")),
        ("quantize_f4", "<f8", nc.Quantize(digits=2, dtype="<f8", astype="<f4")),
        ("bitround", "<f4", nc.BitRound(keepbits=10)),
        ("fixedscaleoffset", "<f8", nc.FixedScaleOffset(offset=1000, scale=10, dtype="<f8", astype="<i4")),
        ("astype", "<f8", nc.AsType(encode_dtype="<f4", decode_dtype="<f8")),
        ("packbits", "|b1", nc.PackBits()),
    ]


def compressor_cases():
    import numcodecs as nc
    return [("none", None), ("zlib", nc.Zlib(1)), ("gzip", nc.GZip(1)), ("zstd", nc.Zstd(1)),
            ("blosc", nc.Blosc("lz4", 5, 1)), ("lz4", nc.LZ4()), ("bz2", nc.BZ2(1))]


def filter_values(dtype, filt, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, SHAPE).astype(bool)
    if dt.kind == "f":
        return (rng.standard_normal(SHAPE) * 100).astype(dt)
    if hasattr(filt, "astype") and np.dtype(filt.astype).itemsize < dt.itemsize:  # narrow differences
        return np.cumsum(rng.integers(-3, 4, SHAPE)).reshape(SHAPE).astype(dt)
    return rng.integers(-1000, 1000, SHAPE).astype(dt)


def write_filters(out):
    import zarr
    manifest = []
    v2 = {"zarr_format": 2} if int(zarr.__version__.split(".")[0]) >= 3 else {}  # numcodecs filters are v2's
    for i, (fname, dtype, filt) in enumerate(filter_cases()):
        for cname, comp in compressor_cases():
            name = f"f2_{fname}_{cname}"
            data = filter_values(dtype, filt, i)
            a = zarr.open(os.path.join(out, name), mode="w", shape=SHAPE, chunks=(8, 4), dtype=dtype,
                          compressor=comp, filters=[filt], **v2)
            a[...] = data
            back = np.asarray(a[...])  # what zarr-python reads: the values to compare with
            np.ascontiguousarray(back.astype(back.dtype.newbyteorder("<")) if back.dtype.itemsize > 1 else back)\
                .tofile(os.path.join(out, name + ".raw"))
            manifest.append({"name": name, "dtype": np.dtype(dtype).str[1:], "shape": list(SHAPE),
                             "filter": filt.codec_id, "compressor": cname})
    json.dump(manifest, open(os.path.join(out, "manifest.json"), "w"), indent=1)
    return 0


def main():
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if sys.argv[1] == "v3orders":
        return write_v3orders(out)
    if sys.argv[1] == "filters":
        return write_filters(out)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
