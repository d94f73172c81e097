"""Small NumPy helpers for the driver tests.

  npy_tool.py mlp-inputs DIR            random inputs of Inputs/mlp_forward.mlir
  npy_tool.py mlp-check DIR             compare shardc's outputs with NumPy
  npy_tool.py dp-inputs DIR             random inputs of Inputs/dp_mlp_loss.mlir
  npy_tool.py dp-check DIR              compare its sharded run with NumPy
  npy_tool.py save FILE DTYPE SHAPE V.. write an array (values repeated to fill)
  npy_tool.py print FILE                print dtype, shape and values
  npy_tool.py truncate SRC DST N        copy SRC without its last N bytes
  npy_tool.py allclose A B RTOL         A and B agree to RTOL (relative), or exit 1
  npy_tool.py random FILE SHAPE SEED    standard normal f32 values
  npy_tool.py einsum-check SPEC A B OUT [bf16]
                                        OUT is einsum(SPEC, A, B) in float64 (the
                                        operands rounded to bf16 first with bf16),
                                        to the rounding of f32 sums ("-^" stands
                                        for "->", which lit would redirect)
"""
import sys

import numpy as np


def round_bf16(a):
    """f32 values rounded to bf16, to nearest even, as float64."""
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


def main(argv):
    cmd = argv[1]
    if cmd == "mlp-inputs":
        rng = np.random.default_rng(7)
        for name, shape in [("x", (4, 8)), ("w1", (8, 16)), ("b1", (16,)), ("w2", (16, 3))]:
            np.save(f"{argv[2]}/{name}.npy", rng.standard_normal(shape).astype(np.float32))
    elif cmd == "mlp-check":
        d = argv[2]
        x, w1, b1, w2 = (np.load(f"{d}/{n}.npy") for n in ["x", "w1", "b1", "w2"])
        logits = np.maximum(x @ w1 + b1, 0) @ w2
        got = np.load(f"{d}/main.result0.npy")
        total = np.load(f"{d}/main.result1.npy")
        assert got.dtype == np.float32 and got.shape == (4, 3), (got.dtype, got.shape)
        np.testing.assert_allclose(got, logits, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(total, logits.sum(), rtol=1e-5)
        print("MLP OK")
    elif cmd == "dp-inputs":
        rng = np.random.default_rng(11)
        d = argv[2]
        for name, shape in [("x", (16, 8)), ("w1", (8, 16)), ("b1", (16,)),
                            ("w2", (16, 4)), ("b2", (4,))]:
            np.save(f"{d}/{name}.npy", rng.standard_normal(shape).astype(np.float32))
        np.save(f"{d}/labels.npy", rng.integers(0, 4, size=(16,)).astype(np.int32))
    elif cmd == "dp-check":
        # dp-check DIR [bf16]: with bf16, both products' operands are
        # rounded to bf16 (nearest even) and summed exactly, and the result
        # must differ from the f32 one (the rounding happened).
        d, bf16 = argv[2], argv[3:] == ["bf16"]
        load = lambda n: np.load(f"{d}/{n}.npy").astype(np.float64)
        r = round_bf16 if bf16 else (lambda a: a)
        h = np.maximum(r(load("x")) @ r(load("w1")) + load("b1"), 0)
        logits = r(h) @ r(load("w2")) + load("b2")
        if bf16:
            h32 = np.maximum(load("x") @ load("w1") + load("b1"), 0)
            f32 = h32 @ load("w2") + load("b2")
            assert np.abs(logits - f32).max() > 1e-3, "bf16 rounding changed nothing"
        z = logits - logits.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        labels = np.load(f"{d}/labels.npy")
        loss = -logp[np.arange(16), labels].mean()
        np.testing.assert_allclose(np.load(f"{d}/main.result0.npy"), loss, rtol=1e-5)
        np.testing.assert_allclose(np.load(f"{d}/main.result1.npy"), logits,
                                   rtol=1e-5, atol=1e-5)
        print("DP MLP OK")
    elif cmd == "save":
        path, dtype, shape = argv[2], argv[3], tuple(int(s) for s in argv[4].split("x") if s)
        values = [float(v) for v in argv[5:]] or [0.0]
        n = int(np.prod(shape))
        np.save(path, np.resize(np.array(values), n).reshape(shape).astype(dtype))
    elif cmd == "print":
        a = np.load(argv[2])
        print(a.dtype, a.shape, a.ravel().tolist())
    elif cmd == "random":
        shape = tuple(int(s) for s in argv[3].split("x") if s)
        rng = np.random.default_rng(int(argv[4]))
        np.save(argv[2], rng.standard_normal(shape).astype(np.float32))
    elif cmd == "einsum-check":
        spec = argv[2].replace("-^", "->")
        r = round_bf16 if argv[6:] == ["bf16"] else (lambda x: x.astype(np.float64))
        a, b = r(np.load(argv[3])), r(np.load(argv[4]))
        want = np.einsum(spec, a, b)
        scale = np.einsum(spec, np.abs(a), np.abs(b))
        got = np.load(argv[5])
        assert got.dtype == np.float32 and got.shape == want.shape, (got.dtype, got.shape)
        err = np.abs(got.astype(np.float64) - want)
        bound = 1e-5 * scale + 1e-30
        bad = np.argwhere(~(err <= bound))
        if bad.size:
            i = tuple(bad[0])
            sys.exit(f"element {i}: {got[i]} against {want[i]} ({len(bad)} differ)")
        print("einsum OK")
    elif cmd == "allclose":
        a, b = np.load(argv[2]), np.load(argv[3])
        np.testing.assert_allclose(a, b, rtol=float(argv[4]), atol=float(argv[4]))
        print("allclose OK")
    elif cmd == "truncate":
        data = open(argv[2], "rb").read()
        open(argv[3], "wb").write(data[: len(data) - int(argv[4])])


if __name__ == "__main__":
    main(sys.argv)
