#!/usr/bin/env python3
"""Compares two `shardc-gpt train` summaries (their JSON lines).

usage: compare_runs.py A.json B.json [--state-ratio R] [--resumed]

Prints `same losses` when B's first and last training losses and its
validation loss are A's to 1e-4 relative (with --resumed, B resumed from a
checkpoint of A's run: its first loss is a later step's and is not
compared); with --state-ratio, also
`, state X of the first run's` where X, B's state bytes per device over A's,
is within 5% of R. Otherwise prints what differs (and FileCheck fails).
"""
import json
import sys


def main(argv):
    args = argv[1:]
    ratio = None
    keys = ["train_loss_first", "train_loss_last", "val_loss"]
    if "--resumed" in args:
        args.remove("--resumed")
        keys = keys[1:]
    if "--state-ratio" in args:
        k = args.index("--state-ratio")
        ratio = float(args[k + 1])
        del args[k:k + 2]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    a, b = (json.loads(open(p).read().strip().splitlines()[-1]) for p in args)
    bad = []
    for key in keys:
        if abs(a[key] - b[key]) > 1e-4 * abs(a[key]):
            bad.append("%s %r against %r" % (key, b[key], a[key]))
    line = "same losses"
    if ratio is not None:
        got = b["state_bytes_per_device"] / a["state_bytes_per_device"]
        if abs(got - ratio) > 0.05 * ratio:
            bad.append("state %.3f of the first run's, not %.3f" % (got, ratio))
        line += ", state %.3f of the first run's" % got
    print("; ".join(bad) if bad else line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
