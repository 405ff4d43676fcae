#!/usr/bin/python3
"""Zarr fixtures for chunkwise's tests, written and checked by zarr-python (2.x or 3.x).

  zarr_fixtures.py write DIR   writes one store per case under DIR, each with its values as
                               DIR/NAME.raw (little-endian, C order) and DIR/manifest.json listing
                               name, format, dtype (numpy's, little-endian), shape; v2 cases with
                               zarr-python 2 or 3, v3 cases (sharding included) with zarr-python 3
  zarr_fixtures.py check DIR   reads every store DIR/manifest.json lists (written by chunkwise) with
                               zarr-python and compares it to DIR/NAME.raw to the bit; exit 1 on
                               any difference
  zarr_fixtures.py version     prints zarr-python's major version
"""
import json
import os
import sys

import numpy as np
import zarr

MAJOR = int(zarr.__version__.split(".")[0])
TYPES = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8"]


def values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype).newbyteorder("=")
    if dt.kind == "f":
        v = rng.standard_normal(shape) * 1000
        v.flat[::7] = np.nan
        v.flat[3::11] = np.inf
        v.flat[5::13] = -np.inf
        return v.astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dt)
    v = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    v.flat[0] = info.min
    v.flat[-1] = info.max
    return v


def record(out, manifest, name, fmt, data, fill_rows=None):
    arr = np.asarray(data)
    le = arr.astype(arr.dtype.newbyteorder("<")) if arr.dtype.itemsize > 1 else arr
    le.tofile(os.path.join(out, name + ".raw"))
    manifest.append({"name": name, "format": fmt, "dtype": le.dtype.str[1:], "shape": list(arr.shape)})


def v2_cases():
    from numcodecs import BZ2, LZ4, Blosc, Delta, GZip, Shuffle, Zlib, Zstd
    cases = []
    for t in TYPES:
        for order in "<>":
            cases.append((f"v2_{t}_{'le' if order == '<' else 'be'}", dict(dtype=order + t, compressor=None)))
    cases.append(("v2_bool", dict(dtype="|b1", compressor=Zlib(1))))
    for cname in ["blosclz", "lz4", "lz4hc", "zlib", "zstd"]:
        for shuffle in [0, 1, 2]:
            cases.append((f"v2_blosc_{cname}_{shuffle}", dict(dtype="<f8", compressor=Blosc(cname=cname, clevel=5, shuffle=shuffle))))
    cases += [
        ("v2_zstd", dict(dtype="<i4", compressor=Zstd(level=3))),
        ("v2_gzip", dict(dtype="<f4", compressor=GZip(level=5))),
        ("v2_zlib", dict(dtype=">f8", compressor=Zlib(level=1))),
        ("v2_lz4", dict(dtype="<u2", compressor=LZ4())),
        ("v2_bz2", dict(dtype="<i8", compressor=BZ2(level=9))),
        ("v2_shuffle_zlib", dict(dtype="<f8", compressor=Zlib(1), filters=[Shuffle(elementsize=8)])),
        ("v2_delta_zstd", dict(dtype="<i4", compressor=Zstd(1), filters=[Delta(dtype="<i4")])),
        ("v2_delta_i2_as_i1", dict(dtype="<i2", compressor=None, filters=[Delta(dtype="<i2", astype="<i1")], small=True)),
        ("v2_order_f", dict(dtype="<f8", compressor=Zlib(1), order="F")),
        ("v2_order_f_be", dict(dtype=">i4", compressor=None, order="F")),
        ("v2_slash", dict(dtype="<f4", compressor=Blosc("lz4", 5, 1), dimension_separator="/")),
        ("v2_fill_nan", dict(dtype="<f8", compressor=Zlib(1), fill_value=np.nan, missing=True)),
        ("v2_fill_inf", dict(dtype="<f4", compressor=None, fill_value=np.inf, missing=True)),
        ("v2_fill_minus_inf", dict(dtype="<f8", compressor=None, fill_value=-np.inf, missing=True)),
        ("v2_fill_int", dict(dtype=">i2", compressor=None, fill_value=-7, missing=True)),
        ("v2_1d", dict(dtype="<f8", compressor=Zstd(1), shape=(1001,), chunks=(100,))),
        ("v2_3d", dict(dtype="<i4", compressor=GZip(1), shape=(9, 7, 5), chunks=(4, 3, 2))),
        ("v2_consolidated", dict(dtype="<f8", compressor=Zlib(1), consolidated=True)),
    ]
    return cases


def write_v2(out, manifest):
    for i, (name, o) in enumerate(v2_cases()):
        o = dict(o)
        shape = o.pop("shape", (37, 11))
        chunks = o.pop("chunks", (8, 4))
        missing = o.pop("missing", False)
        consolidated = o.pop("consolidated", False)
        small = o.pop("small", False)
        dtype = o.pop("dtype")
        data = values(dtype, shape, i)
        if small:
            data = np.cumsum(np.random.default_rng(i).integers(-3, 4, shape), axis=None).reshape(shape).astype(dtype)
        path = os.path.join(out, name)
        if consolidated:  # the array read through its group's .zmetadata alone
            g = zarr.open_group(path, mode="w") if MAJOR < 3 else zarr.open_group(path, mode="w", zarr_format=2)
            a = g.create_dataset("x", shape=shape, chunks=chunks, dtype=dtype, **o) if MAJOR < 3 else \
                g.create_array("x", shape=shape, chunks=chunks, dtype=dtype, compressors=o["compressor"])
            a[...] = data
            zarr.consolidate_metadata(path)
            os.remove(os.path.join(path, "x", ".zarray"))
            name += "/x"
        else:
            if MAJOR < 3:
                a = zarr.open(path, mode="w", shape=shape, chunks=chunks, dtype=dtype, **o)
            else:
                kw = dict(o)
                comp = kw.pop("compressor", None)
                filt = kw.pop("filters", None)
                sep = kw.pop("dimension_separator", ".")
                a = zarr.create_array(path, shape=shape, chunks=chunks, dtype=dtype, compressors=comp, filters=filt,
                                      zarr_format=2, chunk_key_encoding={"name": "v2", "separator": sep}, **kw)
            if missing:  # only the first rows: the other chunks have no file
                data = np.full(shape, o["fill_value"], dtype=dtype)
                data[:chunks[0]] = values(dtype, (chunks[0],) + shape[1:], i)
                a[:chunks[0]] = data[:chunks[0]]
            else:
                a[...] = data
        record(out, manifest, name, 2, data)


def write_v3(out, manifest):
    from zarr.codecs import (BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec, TransposeCodec,
                             ZstdCodec)
    cases = []
    for t in TYPES:
        for endian in ["little", "big"]:
            cases.append((f"v3_{t}_{endian}", dict(dtype=t, serializer=BytesCodec(endian=endian), compressors=None)))
    for cname in ["lz4", "zstd", "blosclz", "zlib", "lz4hc"]:
        for shuffle in ["noshuffle", "shuffle", "bitshuffle"]:
            cases.append((f"v3_blosc_{cname}_{shuffle}", dict(dtype="f8", compressors=BloscCodec(cname=cname, clevel=5, shuffle=shuffle))))
    cases += [
        ("v3_gzip", dict(dtype="f4", compressors=GzipCodec(level=5))),
        ("v3_zstd_checksum", dict(dtype="i8", compressors=ZstdCodec(level=3, checksum=True))),
        ("v3_crc32c", dict(dtype="u4", compressors=[ZstdCodec(level=1), Crc32cCodec()])),
        ("v3_transpose", dict(dtype="f8", filters=TransposeCodec(order=(1, 0)), compressors=GzipCodec(level=1))),
        ("v3_v2_keys", dict(dtype="i2", compressors=None, chunk_key_encoding={"name": "v2", "separator": "."})),
        ("v3_dot_keys", dict(dtype="i2", compressors=None, chunk_key_encoding={"name": "default", "separator": "."})),
        ("v3_fill_nan", dict(dtype="f8", compressors=None, fill_value=np.nan, missing=True)),
        ("v3_fill_inf", dict(dtype="f4", compressors=None, fill_value=np.inf, missing=True)),
        ("v3_fill_int", dict(dtype="u1", compressors=None, fill_value=9, missing=True)),
        ("v3_shard_end", dict(dtype="f8", compressors=ZstdCodec(level=1), shards=(16, 8))),
        ("v3_shard_partial", dict(dtype="i4", compressors=BloscCodec(cname="lz4", shuffle="shuffle"), shards=(16, 8), missing=True, fill_value=-1)),
        ("v3_3d", dict(dtype="i4", compressors=GzipCodec(level=1), shape=(9, 7, 5), chunks=(4, 3, 2))),
        ("v3_order_f", dict(dtype="f4", compressors=None, order="F")),
    ]
    # Sharding with the index first and inner codecs of its own, written through the codec itself.
    cases.append(("v3_shard_start", dict(dtype="f8", serializer=ShardingCodec(
        chunk_shape=(8, 4), codecs=[BytesCodec(endian="big"), GzipCodec(level=1)],
        index_codecs=[BytesCodec(endian="little"), Crc32cCodec()], index_location="start"), compressors=None, chunks=(16, 8))))
    for i, (name, o) in enumerate(cases):
        o = dict(o)
        shape = o.pop("shape", (37, 11))
        chunks = o.pop("chunks", (8, 4))
        missing = o.pop("missing", False)
        order = o.pop("order", None)
        dtype = o.pop("dtype")
        data = values(dtype, shape, 1000 + i)
        path = os.path.join(out, name)
        kw = dict(o)
        if order is not None:
            kw["config"] = {"order": order}
        a = zarr.create_array(path, shape=shape, chunks=chunks, dtype=dtype, zarr_format=3, **kw)
        if missing:
            fill = kw.get("fill_value")
            data = np.full(shape, fill, dtype=dtype)
            data[:chunks[0]] = values(dtype, (chunks[0],) + shape[1:], i)
            a[:chunks[0]] = data[:chunks[0]]
        else:
            a[...] = data
        record(out, manifest, name, 3, data)


def check(out):
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    bad = 0
    for m in manifest:
        want = np.fromfile(os.path.join(out, m["name"] + ".raw"), dtype="<" + m["dtype"] if m["dtype"][0] != "b" else "|b1")
        want = want.reshape(m["shape"])
        a = zarr.open_array(os.path.join(out, m["name"]), mode="r")
        got = np.asarray(a[...])
        if got.shape != want.shape or got.dtype.kind != want.dtype.kind or got.dtype.itemsize != want.dtype.itemsize or \
                got.astype(want.dtype).tobytes() != want.tobytes():
            print(f"{m['name']}: zarr-python {zarr.__version__} reads other values (shape {got.shape}, dtype {got.dtype})")
            bad += 1
    print(f"zarr-python {zarr.__version__}: {len(manifest) - bad} of {len(manifest)} stores read to the bit")
    return 1 if bad else 0


def main():
    if sys.argv[1] == "version":
        print(MAJOR)
        return 0
    out = sys.argv[2]
    if sys.argv[1] == "check":
        return check(out)
    os.makedirs(out, exist_ok=True)
    manifest = []
    write_v2(out, manifest)
    if MAJOR >= 3:
        write_v3(out, manifest)
    json.dump(manifest, open(os.path.join(out, "manifest.json"), "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
