#!/usr/bin/env python3
"""tiny_gguf.py — the engine test's tiny-GGUF writer (Python standard library only).

For one llama.cpp arch it writes a complete tiny GGUF: the metadata the arch
needs (small shapes: 6 blocks unless the arch needs more, 128 wide, 2 query heads
of 64, 1 KV head), llama.cpp's no-vocab tokenizer, and every tensor the arch's
loader asks for, in f32 with deterministic weights (a fixed ramp).

The keys and tensors per arch are tests/engine/archs.json: the common keys below,
plus what `discover.py` found llama.cpp's loader to require (missing keys, missing
tensors and their expected shapes), plus the arch's own geometry (windows, MLA
lengths, recurrent sizes, per-layer head counts).

    tiny_gguf.py ARCH OUT.gguf      write the metadata file of ARCH
"""
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# GGUF value types (ggml/include/gguf.h).
U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)


def _str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def _scalar(t, v):
    fmt = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f",
           BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}
    if t == STR:
        return _str(v)
    return struct.pack(fmt[t], v)


def _typed(v):
    """(type, value) of a JSON value: ints are u32, floats f32, lists arrays."""
    if isinstance(v, bool):
        return BOOL, v
    if isinstance(v, int):
        return (U32 if 0 <= v < 2**32 else I32), v
    if isinstance(v, float):
        return F32, v
    if isinstance(v, str):
        return STR, v
    if isinstance(v, dict):  # {"type": "f32"|"i32"|..., "value": ...}
        t = {"f32": F32, "i32": I32, "u32": U32, "bool": BOOL, "u64": U64, "str": STR}[v["type"]]
        return t, v["value"]
    raise TypeError(v)


def _pattern(n):
    """n deterministic f32 weights: a fixed ramp of 997 small values, repeated."""
    ramp = struct.pack("<997f", *[((i * 37) % 997 - 498) * 1e-5 for i in range(997)])
    reps = (n + 996) // 997
    return (ramp * reps)[: 4 * n]


def encode(kvs, tensors=()):
    """GGUF v3 bytes of the metadata `kvs` (ordered list of (key, json value)) and
    the f32 `tensors` (list of (name, [ne0, ne1, ...])) with deterministic data."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)))
    for key, v in kvs:
        out += _str(key)
        if isinstance(v, list):
            ts = [_typed(x)[0] for x in v] or [U32]
            et = F32 if F32 in ts else (BOOL if all(t == BOOL for t in ts) else ts[0])
            out += struct.pack("<IIQ", ARR, et, len(v))
            for x in v:
                x = _typed(x)[1]
                out += _scalar(et, float(x) if et == F32 else x)
        else:
            t, x = _typed(v)
            out += struct.pack("<I", t) + _scalar(t, x)
    offset = 0
    sizes = []
    for name, shape in tensors:
        n = 1
        for d in shape:
            n *= d
        out += _str(name) + struct.pack("<I", len(shape))
        out += b"".join(struct.pack("<Q", d) for d in shape)
        out += struct.pack("<IQ", 0, offset)
        sizes.append(n)
        offset += (4 * n + 31) // 32 * 32
    while len(out) % 32:
        out += b"\0"
    for n in sizes:
        out += _pattern(n)
        while len(out) % 32:
            out += b"\0"
    return bytes(out)


def common(arch):
    """Keys every arch gets (the arch prefix is added here)."""
    a = arch
    return [
        ("general.architecture", a),
        ("general.name", "kvplan-tiny-" + a),
        (a + ".vocab_size", 128),
        (a + ".context_length", 4096),
        (a + ".embedding_length", 128),
        (a + ".feed_forward_length", 192),
        (a + ".block_count", 6),
        (a + ".attention.head_count", 2),
        (a + ".attention.head_count_kv", 1),
        (a + ".attention.layer_norm_rms_epsilon", 1e-5),
        (a + ".attention.layer_norm_epsilon", 1e-5),
        ("tokenizer.ggml.model", "no_vocab"),
    ]


def load_archs():
    with open(os.path.join(HERE, "archs.json")) as f:
        return json.load(f)


def arch_kvs(arch, table=None):
    """Ordered metadata of `arch`: common keys, then archs.json's (overriding)."""
    table = table if table is not None else load_archs()
    spec = table[arch]
    kvs = dict(common(spec.get("gguf_arch", arch)))
    a = spec.get("gguf_arch", arch)
    for k, v in spec.get("keys", {}).items():
        # "/key": a key without the arch prefix (xielu.*, general.*, tokenizer.*).
        if k.startswith("/"):
            full = k[1:]
        else:
            full = k if (k.startswith("general.") or k.startswith("tokenizer.")) else a + "." + k
        if v is None:
            kvs.pop(full, None)
        else:
            kvs[full] = v
    return list(kvs.items())


def arch_tensors(arch, table=None):
    table = table if table is not None else load_archs()
    return [(n, s) for n, s in table[arch].get("tensors", [])]


def write(path, kvs, tensors=()):
    with open(path, "wb") as f:
        f.write(encode(kvs, tensors))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: tiny_gguf.py ARCH OUT.gguf")
    write(sys.argv[2], arch_kvs(sys.argv[1]), arch_tensors(sys.argv[1]))
