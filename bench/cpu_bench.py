#!/usr/bin/python3
"""CPU benchmarks of shardc against its peers, measured side by side in one run.

  bench/cpu_bench.py [--build DIR] [--threads 2] [--rounds 3] [--out FILE.md]

Workloads (each run through `shardc run --benchmark`, the whole call:
placing inputs, the plan on the CPU backend, gathering results):
  gemm N        f32 N x N x N dot_general  vs  numpy.matmul (OpenBLAS), same threads
  mlp_fwd B     MLP 784-1024-1024-10 (ReLU) forward + softmax cross-entropy on a
                batch of B  vs  PyTorch eager (torch.set_num_threads(threads))
  mlp_train     the whole training step (forward, backward, Adam) of that MLP
                at batch 1024 on one device (shardc-mlp)  vs  ../shared/bench/
                peer_mlp_train.py, PyTorch eager, same threads
  overhead K    K dependent reshape steps on 4 floats: per-step cost of the
                executor (no peer)
Rounds interleave shardc and the peer; medians of the rounds are reported.
Both sides load Debian's OpenMP build of OpenBLAS (the peers' convention, see
../shared/bench/README.md: with the pthread build torch's and OpenBLAS's
thread pools fight). OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset
(here and in run.sh), so OpenBLAS picks its own kernel for both sides, as
installed; the note under the table names it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def settle():
    """Lets the other side's spinning BLAS/OpenMP threads park first."""
    time.sleep(0.5)


def shardc_time(build, mlir, inputs, reps, threads, tmp):
    settle()
    args = [os.path.join(build, "bin", "shardc"), "run", mlir, "--no-cache",
            "--output-dir", os.path.join(tmp, "out"), "--benchmark", str(reps)]
    for name, path in inputs.items():
        args += ["--input", f"{name}={path}"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))
    out = subprocess.run(args, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(next(l for l in out.splitlines() if l.startswith("{")))


def peer_time(fn, reps):
    settle()
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return 1e3 * times[len(times) // 2]


def gemm(n, tmp):
    mlir = os.path.join(tmp, f"gemm{n}.mlir")
    t = f"tensor<{n}x{n}xf32>"
    open(mlir, "w").write(
        f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
        f"  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] : ({t}, {t}) -> {t}\n"
        f"  return %c : {t}\n}}\n")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    np.save(os.path.join(tmp, "a.npy"), a)
    np.save(os.path.join(tmp, "b.npy"), b)
    inputs = {"arg0": os.path.join(tmp, "a.npy"), "arg1": os.path.join(tmp, "b.npy")}
    return mlir, inputs, (lambda: a @ b), 2.0 * n ** 3


def mlp_forward(batch, tmp):
    dims = [784, 1024, 1024, 10]
    lines = [f"func.func @main(%x: tensor<{batch}x784xf32> {{shardc.name = \"x\"}},"
             f" %labels: tensor<{batch}xi32> {{shardc.name = \"labels\"}},"]
    params = []
    for i in range(3):
        params.append(f"%w{i}: tensor<{dims[i]}x{dims[i+1]}xf32> {{shardc.name = \"w{i}\"}}")
        params.append(f"%b{i}: tensor<{dims[i+1]}xf32> {{shardc.name = \"b{i}\"}}")
    lines[0] += " " + ", ".join(params) + ") -> tensor<f32> {"
    h = "%x"
    for i in range(3):
        o = dims[i + 1]
        t = f"tensor<{batch}x{o}xf32>"
        lines += [
            f"  %m{i} = shardc.dot_general {h}, %w{i} contracting_dims = [1] x [0]"
            f" : (tensor<{batch}x{dims[i]}xf32>, tensor<{dims[i]}x{o}xf32>) -> {t}",
            f"  %bb{i} = shardc.broadcast_in_dim %b{i}, dims = [1] : (tensor<{o}xf32>) -> {t}",
            f"  %a{i} = shardc.add %m{i}, %bb{i} : {t}"]
        if i < 2:
            lines += [f"  %z{i} = shardc.constant dense<0.0> : {t}",
                      f"  %h{i} = shardc.max %a{i}, %z{i} : {t}"]
            h = f"%h{i}"
    t = f"tensor<{batch}x10xf32>"
    lines += [
        f"  %mx = shardc.reduce max %a2 dims = [1] : ({t}) -> tensor<{batch}xf32>",
        f"  %mxb = shardc.broadcast_in_dim %mx, dims = [0] : (tensor<{batch}xf32>) -> {t}",
        f"  %zz = shardc.sub %a2, %mxb : {t}",
        f"  %e = shardc.exp %zz : {t}",
        f"  %s = shardc.reduce sum %e dims = [1] : ({t}) -> tensor<{batch}xf32>",
        f"  %ls = shardc.log %s : tensor<{batch}xf32>",
        f"  %lsb = shardc.broadcast_in_dim %ls, dims = [0] : (tensor<{batch}xf32>) -> {t}",
        f"  %logp = shardc.sub %zz, %lsb : {t}",
        f"  %cls = shardc.iota dim = 1 : tensor<{batch}x10xi32>",
        f"  %lab = shardc.broadcast_in_dim %labels, dims = [0] : (tensor<{batch}xi32>) -> tensor<{batch}x10xi32>",
        f"  %hit = shardc.compare eq, %cls, %lab : tensor<{batch}x10xi32>",
        f"  %oh = shardc.convert %hit : tensor<{batch}x10xi1> -> {t}",
        f"  %p = shardc.mul %oh, %logp : {t}",
        f"  %tot = shardc.reduce sum %p dims = [0, 1] : ({t}) -> tensor<f32>",
        f"  %n = shardc.constant dense<{-float(batch)}> : tensor<f32>",
        f"  %loss = shardc.div %tot, %n : tensor<f32>",
        "  return %loss : tensor<f32>", "}"]
    mlir = os.path.join(tmp, f"mlp{batch}.mlir")
    open(mlir, "w").write("\n".join(lines) + "\n")
    rng = np.random.default_rng(1)
    arrays = {"x": rng.standard_normal((batch, 784), dtype=np.float32),
              "labels": rng.integers(0, 10, batch).astype(np.int32)}
    for i in range(3):
        arrays[f"w{i}"] = (rng.standard_normal((dims[i], dims[i + 1]), dtype=np.float32)
                           * np.float32((2.0 / dims[i]) ** 0.5))
        arrays[f"b{i}"] = np.zeros(dims[i + 1], dtype=np.float32)
    inputs = {}
    for name, a in arrays.items():
        inputs[name] = os.path.join(tmp, f"{name}.npy")
        np.save(inputs[name], a)

    import torch
    tx = torch.from_numpy(arrays["x"])
    ty = torch.from_numpy(arrays["labels"].astype(np.int64))
    ws = [(torch.from_numpy(arrays[f"w{i}"]), torch.from_numpy(arrays[f"b{i}"])) for i in range(3)]

    def torch_forward():
        with torch.no_grad():
            h = tx
            for i, (w, b) in enumerate(ws):
                h = torch.addmm(b, h, w)
                if i < 2:
                    h = torch.relu(h)
            return torch.nn.functional.cross_entropy(h, ty)
    return mlir, inputs, torch_forward, batch


def mlp_train_ours(build, steps, threads):
    """shardc-mlp on one device: the whole Adam step, examples/s."""
    settle()
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))
    out = subprocess.run([os.path.join(build, "bin", "shardc-mlp"), "--devices", "1",
                          "--steps", str(steps)], capture_output=True, text=True, env=env,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["examples_per_s"]


def mlp_train_peer(steps, threads):
    """../shared/bench/peer_mlp_train.py, PyTorch eager: the same step."""
    settle()
    script = os.path.join(HERE, "..", "..", "shared", "bench", "peer_mlp_train.py")
    out = subprocess.run([sys.executable, script, "--threads", str(threads), "--variants",
                          "eager", "--steps", str(steps), "--quiet-wait", "5"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["runs"][0]["examples_per_s"]


def overhead(k, tmp):
    lines = ["func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {"]
    prev, shape = "%x", "4"
    for i in range(k):
        nxt = "2x2" if shape == "4" else "4"
        lines.append(f"  %r{i} = shardc.reshape {prev} : (tensor<{shape}xf32>) -> tensor<{nxt}xf32>")
        prev, shape = f"%r{i}", nxt
    if shape != "4":
        lines.append(f"  %out = shardc.reshape {prev} : (tensor<2x2xf32>) -> tensor<4xf32>")
        prev = "%out"
    lines += [f"  return {prev} : tensor<4xf32>", "}"]
    mlir = os.path.join(tmp, f"overhead{k}.mlir")
    open(mlir, "w").write("\n".join(lines) + "\n")
    np.save(os.path.join(tmp, "x4.npy"), np.ones(4, dtype=np.float32))
    return mlir, {"arg0": os.path.join(tmp, "x4.npy")}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", default=None, help="also write the table to this file")
    p.add_argument("--blas", default="openmp", choices=["openmp", "pthread", "system"])
    args = p.parse_args()
    # Both sides run as installed: OpenBLAS picks its own kernel for the CPU.
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        os.environ.pop(name, None)
    sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "bench"))
    from common import OPENBLAS_DIRS, cpu_model, use_blas  # the peers' OpenBLAS selection
    use_blas(args.blas)

    import torch
    torch.set_num_threads(args.threads)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (512, 1024, 2048):
            mlir, inputs, peer, flops = gemm(n, tmp)
            reps = 20 if n < 2048 else 5
            ours, theirs = [], []
            for _ in range(args.rounds):
                ours.append(shardc_time(args.build, mlir, inputs, reps, args.threads, tmp)["ms_median"])
                theirs.append(peer_time(peer, reps))
            o, t = np.median(ours), np.median(theirs)
            rows.append((f"gemm {n}", f"{flops / o / 1e6:.1f} GFLOP/s", "numpy (OpenBLAS)",
                         f"{flops / t / 1e6:.1f} GFLOP/s", f"{t / o:.2f}"))
        for batch in (1024,):
            mlir, inputs, peer, examples = mlp_forward(batch, tmp)
            ours, theirs = [], []
            for _ in range(args.rounds):
                ours.append(shardc_time(args.build, mlir, inputs, 10, args.threads, tmp)["ms_median"])
                theirs.append(peer_time(peer, 10))
            o, t = np.median(ours), np.median(theirs)
            rows.append((f"mlp fwd+loss b{batch}", f"{examples / o * 1e3:,.0f} ex/s",
                         "PyTorch eager", f"{examples / t * 1e3:,.0f} ex/s", f"{t / o:.2f}"))
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(mlp_train_ours(args.build, 30, args.threads))
            theirs.append(mlp_train_peer(30, args.threads))
        o, t = np.median(ours), np.median(theirs)
        rows.append(("mlp train step b1024 (fwd+bwd+Adam)", f"{o:,.0f} ex/s", "PyTorch eager",
                     f"{t:,.0f} ex/s", f"{o / t:.2f}"))
        k = 1000
        mlir, inputs = overhead(k, tmp)
        base_mlir, base_inputs = overhead(0, tmp)
        ms = np.median([shardc_time(args.build, mlir, inputs, 200, args.threads, tmp)["ms_median"]
                        for _ in range(args.rounds)])
        base = np.median([shardc_time(args.build, base_mlir, base_inputs, 200, args.threads, tmp)["ms_median"]
                          for _ in range(args.rounds)])
        rows.append((f"overhead ({k} steps)", f"{(ms - base) * 1e3 / k:.3f} us/step", "-", "-", "-"))

    header = ("| workload | shardc (CPU backend) | peer | peer result | peer time / shardc time |\n"
              "| --- | --- | --- | --- | --- |\n")
    table = header + "".join(f"| {' | '.join(r)} |\n" for r in rows)
    core = "system library"
    if args.blas in OPENBLAS_DIRS:
        core = subprocess.run([os.path.join(HERE, "openblas_core.sh"), OPENBLAS_DIRS[args.blas]],
                              capture_output=True, text=True).stdout.strip() or "unknown"
    cpu = cpu_model()
    cpu = (f"{cpu.get('model_name')} (CPU family {cpu.get('cpu_family')}, model "
           f"{cpu.get('model')}), avx512f {'yes' if cpu.get('avx512f') else 'no'}")
    note = (f"\n{cpu}; {args.threads} threads, {args.blas} OpenBLAS on both sides (its "
            f"kernel for this CPU: {core}); medians of {args.rounds} interleaved rounds; torch "
            f"{torch.__version__}; {time.strftime('%Y-%m-%d')}.\n")
    print(table + note)
    if args.out:
        open(args.out, "w").write(table + note)


if __name__ == "__main__":
    main()
