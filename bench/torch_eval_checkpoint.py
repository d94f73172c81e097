#!/usr/bin/python3
"""Loads a shardc-gpt checkpoint into the PyTorch reference module and evaluates it.

  bench/torch_eval_checkpoint.py CHECKPOINT.safetensors [--data PATH] [--eval-batches 20]

The checkpoint's parameters carry the state_dict names and shapes of
../shared/bench/tiny_transformer.py, so load_state_dict takes them as they are
(strict: every name and shape must match). The validation loss is computed
by the peer's own evaluate() (the same windows as peer_transformer_train.py),
so shardc's training and PyTorch's are compared on one yardstick. Prints one
JSON line.
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "bench"))
from peer_transformer_train import evaluate  # noqa: E402
from tiny_transformer import DEFAULT_DATA, TinyTransformer, load_bytes  # noqa: E402

DTYPES = {"F32": np.float32, "F64": np.float64, "I32": np.int32, "I64": np.int64}


def read_safetensors(path):
    """The tensors (as torch tensors) and metadata of a safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    base = 8 + n
    tensors = {}
    for name, e in header.items():
        begin, end = e["data_offsets"]
        a = np.frombuffer(data[base + begin:base + end], dtype=DTYPES[e["dtype"]])
        tensors[name] = torch.from_numpy(a.reshape(e["shape"]).copy())
    return tensors, meta


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint")
    p.add_argument("--data", default=DEFAULT_DATA)
    p.add_argument("--eval-batches", type=int, default=20)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    tensors, meta = read_safetensors(args.checkpoint)
    model = TinyTransformer()
    params = {k: v for k, v in tensors.items() if not k.startswith("optimizer.")}
    model.load_state_dict(params, strict=True)
    _, val = load_bytes(args.data)
    train, _ = load_bytes(args.data)
    val_loss = evaluate(model, val, args.eval_batches, args.batch, model.max_len, 1234)
    train_loss = evaluate(model, train, args.eval_batches, args.batch, model.max_len, 1234)
    print(json.dumps({"checkpoint": os.path.basename(args.checkpoint), "step": meta.get("step"),
                      "mesh": meta.get("mesh"), "torch_val_loss": round(val_loss, 4),
                      "torch_val_ppl": round(math.exp(val_loss), 3),
                      "torch_train_eval_loss": round(train_loss, 4)}))


if __name__ == "__main__":
    main()
