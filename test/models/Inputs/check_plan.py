#!/usr/bin/env python3
"""Checks a `shardc-gpt plan` table of data=4 (no "model" axis) for
consistency: FSDP's parameters and AdamW state are at most 0.3 of DP's,
remat holds fewer activations than none, and there is no
sequence-parallel row. Prints what it found, or what is wrong.

usage: check_plan.py TABLE
"""
import sys

UNITS = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}


def size(text):
    text = text.strip()
    if text == "0":
        return 0.0
    value, unit = text.split()
    return float(value) * UNITS[unit]


def main(argv):
    rows = {}
    for line in open(argv[1]):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 6 and cells[0] not in ("layout", "---"):
            rows[cells[0]] = cells
    dp, fsdp = rows["DP (data=4)"], rows["FSDP (data=4)"]
    dpr = rows["DP (data=4) +remat"]
    bad = []
    state = (size(fsdp[1]) + size(fsdp[3])) / (size(dp[1]) + size(dp[3]))
    if not state <= 0.3:
        bad.append("FSDP state %.3f of DP's" % state)
    acts = size(dpr[4]) / size(dp[4])
    if not acts < 1:
        bad.append("remat activations %.3f of none's" % acts)
    if any("+SP" in name for name in rows):
        bad.append("a sequence-parallel row without \"model\"")
    if bad:
        print("; ".join(bad))
    else:
        print("FSDP state %.3f of DP's; remat activations %.3f of none's; "
              "no sequence parallelism without \"model\"" % (state, acts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
