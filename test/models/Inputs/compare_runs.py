#!/usr/bin/env python3
"""Compares two `shardc-gpt train` summaries (their JSON lines).

usage: compare_runs.py A.json B.json [--state-ratio R] [--peak-at-most R]
                       [--tolerance T] [--resumed]

Prints `same losses` when B's first and last training losses and its
validation loss are A's to T relative (default 1e-4; with --resumed, B
resumed from a checkpoint of A's run: its first loss is a later step's and
is not compared); with --state-ratio, also
`, state X of the first run's` where X, B's state bytes per device over A's,
is within 5% of R; with --peak-at-most, also `, peak X of the first run's`
where X, B's peak bytes per device over A's, is at most R. Otherwise prints
what differs (and FileCheck fails).
"""
import json
import sys


def main(argv):
    args = argv[1:]
    keys = ["train_loss_first", "train_loss_last", "val_loss"]
    if "--resumed" in args:
        args.remove("--resumed")
        keys = keys[1:]
    def option(name, default):
        if name not in args:
            return default
        k = args.index(name)
        value = float(args[k + 1])
        del args[k:k + 2]
        return value
    ratio = option("--state-ratio", None)
    peak = option("--peak-at-most", None)
    tolerance = option("--tolerance", 1e-4)
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    a, b = (json.loads(open(p).read().strip().splitlines()[-1]) for p in args)
    bad = []
    for key in keys:
        if abs(a[key] - b[key]) > tolerance * abs(a[key]):
            bad.append("%s %r against %r" % (key, b[key], a[key]))
    line = "same losses"
    if ratio is not None:
        got = b["state_bytes_per_device"] / a["state_bytes_per_device"]
        if abs(got - ratio) > 0.05 * ratio:
            bad.append("state %.3f of the first run's, not %.3f" % (got, ratio))
        line += ", state %.3f of the first run's" % got
    if peak is not None:
        got = b["peak_bytes_per_device"] / a["peak_bytes_per_device"]
        if got > peak:
            bad.append("peak %.3f of the first run's, above %.3f" % (got, peak))
        line += ", peak %.3f of the first run's" % got
    print("; ".join(bad) if bad else line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
