#!/usr/bin/python3
"""Prints SAME when two shardc-gpt checkpoints hold the same tensors, bit for
bit: each is a .safetensors file or a sharded checkpoint's .index.json (the
Hugging Face layout: {"weight_map": {tensor: file beside the index}}).
Otherwise prints the first difference. Metadata (mesh, shard) may differ."""

import json
import os
import struct
import sys


def read_file(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    body = data[8 + n:]
    return {name: (e["dtype"], e["shape"], body[e["data_offsets"][0]:e["data_offsets"][1]])
            for name, e in header.items()}


def read(path):
    if not path.endswith(".index.json"):
        return read_file(path)
    with open(path) as f:
        index = json.load(f)
    files, out = {}, {}
    for name, file in index["weight_map"].items():
        if file not in files:
            files[file] = read_file(os.path.join(os.path.dirname(path), file))
        out[name] = files[file][name]
    return out


a, b = read(sys.argv[1]), read(sys.argv[2])
if sorted(a) != sorted(b):
    print("different tensors:", sorted(set(a) ^ set(b)))
else:
    diff = [n for n in sorted(a) if a[n] != b[n]]
    print("SAME" if not diff else "different values in " + ", ".join(diff[:5]))
