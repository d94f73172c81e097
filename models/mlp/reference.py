#!/usr/bin/env python3
"""Inputs and the NumPy reference for mlp_dp_forward.mlir.

  reference.py make DIR SEED    writes x, labels, w1, b1, w2, b2 .npy to DIR
  reference.py check DIR        compares DIR/main.result{0,1}.npy with NumPy
"""
import sys

import numpy as np


def make(out, seed):
    rng = np.random.default_rng(seed)
    arrays = {
        "x": rng.standard_normal((32, 64)),
        "labels": rng.integers(0, 10, size=(32,)).astype(np.int32),
        "w1": rng.standard_normal((64, 128)) * (2.0 / 64) ** 0.5,
        "b1": rng.standard_normal((128,)) * 0.1,
        "w2": rng.standard_normal((128, 10)) * (1.0 / 128) ** 0.5,
        "b2": rng.standard_normal((10,)) * 0.1,
    }
    for name, a in arrays.items():
        if a.dtype == np.float64:
            a = a.astype(np.float32)
        np.save(f"{out}/{name}.npy", a)


def forward(d):
    load = lambda n: np.load(f"{d}/{n}.npy")
    x, labels = load("x").astype(np.float64), load("labels")
    h = np.maximum(x @ load("w1") + load("b1"), 0)
    logits = h @ load("w2") + load("b2")
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(len(labels)), labels].mean()
    return loss, logits


def check(d):
    loss, logits = forward(d)
    got_loss = float(np.load(f"{d}/main.result0.npy"))
    got_logits = np.load(f"{d}/main.result1.npy")
    rel = np.max(np.abs(got_logits - logits)) / np.max(np.abs(logits))
    print(f"loss: shardc {got_loss:.6f}  numpy {loss:.6f}")
    print(f"logits: max relative difference {rel:.2e}")
    ok = abs(got_loss - loss) <= 1e-5 * abs(loss) + 1e-6 and rel <= 1e-5
    print("agree with NumPy" if ok else "DISAGREE with NumPy")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(check(sys.argv[2]))
