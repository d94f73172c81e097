#!/usr/bin/env python3
"""Runs StableHLO programs with `shardc run` and compares every result with
NumPy's evaluation of the program, written beside it.

Each program states its inputs and expected results in comments:

    // ARG x: 8x4 f32 randn          (randn, pos: 0.5..2, unit: -1..1,
    //                                int LO HI, index LO HI (i32 scalar or
    //                                tensor), bool)
    // LET: h = x @ w                (a NumPy value the lines after use)
    // EXPECT: np.maximum(h, 0)      (one line per result, in order)
    // TOL: 1e-5                     (relative to the largest magnitude; default 1e-5)

The inputs are drawn with a seed taken from the file's name, so a failure
reproduces. Exit status 1 when any result differs, is missing or has
another shape or type.
"""
import math
import os
import subprocess
import sys
import tempfile
import zlib

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "i1": np.bool_}
erf = np.vectorize(math.erf, otypes=[np.float64])


def parse(path):
    args, expects, lets, tol = [], [], [], 1e-5
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("// ARG "):
                name, spec = line[len("// ARG "):].split(":", 1)
                args.append((name.strip(), spec.split()))
            elif line.startswith("// EXPECT:"):
                expects.append(line[len("// EXPECT:"):].strip())
            elif line.startswith("// LET:"):
                name, expr = line[len("// LET:"):].split("=", 1)
                lets.append((name.strip(), expr.strip()))
            elif line.startswith("// TOL:"):
                tol = float(line[len("// TOL:"):])
    return args, expects, lets, tol


def draw(spec, rng):
    shape = () if spec[0] == "scalar" else tuple(int(d) for d in spec[0].split("x"))
    dtype, kind = DTYPES[spec[1]], spec[2]
    if kind == "randn":
        a = rng.standard_normal(shape)
    elif kind == "pos":
        a = rng.uniform(0.5, 2.0, shape)
    elif kind == "unit":
        a = rng.uniform(-1.0, 1.0, shape)
    elif kind in ("int", "index"):
        a = rng.integers(int(spec[3]), int(spec[4]) + 1, shape)
    elif kind == "bool":
        a = rng.integers(0, 2, shape).astype(bool)
    else:
        raise ValueError("unknown input kind " + kind)
    return np.asarray(a, dtype=dtype)


def check(shardc, path):
    args, expects, lets, tol = parse(path)
    name = os.path.basename(path)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    values = {n: draw(spec, rng) for n, spec in args}
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [shardc, "run", path, "--output-dir", tmp, "--no-cache"]
        for n, v in values.items():
            p = os.path.join(tmp, n + ".npy")
            np.save(p, v)
            cmd += ["--input", n + "=" + p]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            return ["shardc run failed:\n" + run.stderr]
        errors = []
        env = dict(values, np=np, erf=erf)
        for name_, expr in lets:
            env[name_] = eval(expr, env)
        for i, expr in enumerate(expects):
            out = os.path.join(tmp, "main.result%d.npy" % i)
            if not os.path.exists(out):
                errors.append("result %d is missing" % i)
                continue
            got = np.load(out)
            want = np.asarray(eval(expr, env))
            if got.shape != want.shape:
                errors.append("result %d has shape %s, NumPy's %s" % (i, got.shape, want.shape))
                continue
            if got.dtype == np.bool_ or want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
                if not np.array_equal(got, want.astype(got.dtype)):
                    errors.append("result %d differs: %s against %s" % (i, got, want))
                continue
            scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
            err = float(np.max(np.abs(got.astype(np.float64) - want))) if want.size else 0.0
            if not err <= tol * scale:
                errors.append("result %d differs by %g (tolerance %g)" % (i, err, tol * scale))
        extra = os.path.join(tmp, "main.result%d.npy" % len(expects))
        if os.path.exists(extra):
            errors.append("more results than the %d expected" % len(expects))
        return errors


def main():
    shardc, directory = sys.argv[1], sys.argv[2]
    files = sorted(f for f in os.listdir(directory) if f.endswith(".mlir"))
    failed = 0
    for f in files:
        errors = check(shardc, os.path.join(directory, f))
        if errors:
            failed += 1
            print("FAIL %s: %s" % (f, "; ".join(errors)))
        else:
            print("PASS %s" % f)
    print("%d of %d programs match NumPy" % (len(files) - failed, len(files)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
