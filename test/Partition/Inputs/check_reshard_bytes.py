#!/usr/bin/env python3
"""Compares the bytes shardc's reshards send with Shardy's.

usage: check_reshard_bytes.py FILE SHARDC_BIN

For every function @NAME of FILE whose name does not end in `_shardy`, runs
`SHARDC_BIN explain FILE --entry NAME` and reads the bytes each device sends
from its last line (`Total: N collectives, B bytes sent per device`). Shardy's
bytes for the case are those of @NAME_shardy (its collectives written out in a
shard_map) when FILE has it, otherwise the `// SHARDY-BYTES: @NAME N` comment.

A shard_map body is per device, so partitioning it cannot show that the
collectives in @NAME_shardy compute what @NAME does: the script also runs
@NAME_shardy (`SHARDC_BIN run --backend reference`) and compares its result
with the unsharded program's, bit for bit:
- where @NAME is a reshard (a sharding_constraint of its one argument), on
  the numbers 0, 1, 2, ..., and its result must be its argument, unchanged;
- otherwise on small integers (exact in f32 whatever the order of a sum),
  against @NAME with every sharding annotation removed, run unpartitioned.
A case that fails this counts as an error.

A case marked `// NEEDS-SUB-AXES: @NAME` is one where Shardy's sequence goes
through sub-axes, which shardc cannot express: sending more there is counted
apart and does not fail.

A case marked `// UNREACHABLE: @NAME <why>` has a SHARDY-BYTES figure that no
sequence of collectives reaches (say, one that prices blocks smaller than
the data a device must end with): sending more than it is counted apart and
does not fail, and a marked case that does not send more says that the
marker can go.

A case marked `// KNOWN-MORE: @NAME <why>` is one where shardc is known to
send more than Shardy (a partitioner shortcoming, written down so that it can
be fixed): sending more there is counted apart too and does not fail. A
marked case that no longer sends more is counted as what it is, and its line
says that the marker can go.

Prints one line per case, `NAME shardc=B shardy=S same|fewer|more`, then
`same: a, fewer: b, more: c, more where Shardy uses sub-axes: k, errors: d`;
when FILE has KNOWN-MORE markers, the count of marked cases that send more
comes before the errors: `..., more (known, marked KNOWN-MORE): m, errors: d`,
and with UNREACHABLE markers, `more than an unreachable figure: u` before
that.
Exits 1 if any other case sends more than Shardy or could not be measured.
"""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from shardc_explain import explain_total, link_seconds, LINK_LATENCY_S, LINK_BYTES_PER_S, scan_cases

HAND_RE = re.compile(r"^\s*//\s*SHARDY-BYTES:\s*@([A-Za-z_][\w$.]*)\s+(\d+)\s*$")
SUBAXES_RE = re.compile(r"^\s*//\s*NEEDS-SUB-AXES:\s*@([A-Za-z_][\w$.]*)\s*$")
KNOWN_MORE_RE = re.compile(r"^\s*//\s*KNOWN-MORE:\s*@([A-Za-z_][\w$.]*)\s+\S")
UNREACHABLE_RE = re.compile(r"^\s*//\s*UNREACHABLE:\s*@([A-Za-z_][\w$.]*)\s+\S")


def npy_bytes(shape, payload):
    """A version 1.0 .npy file of little-endian float32 values."""
    dims = "".join("%d," % d for d in shape) if len(shape) == 1 else ", ".join(map(str, shape))
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
    # The magic, version, length and header together fill whole 64-byte lines.
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + payload


def npy_payload(data):
    """(descr, shape, payload) of a version 1.x .npy file."""
    if data[:6] != b"\x93NUMPY":
        return None
    if data[6] == 1:
        (n,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (n,), start = struct.unpack("<I", data[8:12]), 12
    header = data[start:start + n].decode("latin1")
    descr = re.search(r"'descr':\s*'([^']*)'", header)
    shape = re.search(r"'shape':\s*\(([^)]*)\)", header)
    if not descr or not shape:
        return None
    dims = tuple(int(d) for d in shape.group(1).replace(" ", "").split(",") if d)
    return descr.group(1), dims, data[start + n:]


def small_ints(count, salt):
    """`count` f32 integers in [-4, 4], different for each argument."""
    return struct.pack("<%df" % count, *(float((i * 7 + 3 * salt) % 9 - 4) for i in range(count)))


def run_reference(shardc, path, name, shapes, payloads, workdir):
    """(the .npy bytes of @name's one result, None), or (None, what went
    wrong): @name run by the interpreter on the given f32 arguments."""
    args = []
    for k, (shape, payload) in enumerate(zip(shapes, payloads)):
        inp = os.path.join(workdir, "%s.arg%d.npy" % (name, k))
        with open(inp, "wb") as f:
            f.write(npy_bytes(shape, payload))
        args += ["--input", "arg%d=%s" % (k, inp)]
    try:
        proc = subprocess.run([shardc, "run", path, "--entry", name, "--backend", "reference",
                               "--output-dir", workdir] + args, capture_output=True, text=True)
    except OSError as e:
        return None, "cannot run %s: %s" % (shardc, e)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        return None, "run failed: %s" % (lines[0] if lines else "exit %d" % proc.returncode)
    try:
        with open(os.path.join(workdir, name + ".result0.npy"), "rb") as f:
            return f.read(), None
    except OSError:
        return None, "run wrote no result"


def function_text(source, name):
    """The text of `func.func @name` in source (to the `}` that closes it at
    the start of a line), or None."""
    m = re.search(r"^func\.func\s+@%s\(" % re.escape(name), source, re.M)
    if not m:
        return None
    end = re.compile(r"^}\s*$", re.M).search(source, m.end())
    return source[m.start():end.end()] if end else None


SHARDING_DICT_RE = re.compile(r"\s*\{\s*shardc\.(?:shardings?|pad_uneven)\b")


def strip_shardings(text):
    """text without its attribute dictionaries that start with a sharding
    (`{shardc.sharding = ...}`, `{shardc.shardings = [...]}`): the function
    as it reads unsharded."""
    out, pos = [], 0
    while True:
        m = SHARDING_DICT_RE.search(text, pos)
        if not m:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:m.start()])
        depth, i = 0, text.index("{", m.start())
        while True:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        pos = i


def arg_shapes(source, name):
    """The shapes of @name's arguments if each is an f32 tensor, else None."""
    # Up to the `)` that ends the list: a sub-axis ("x":(1)2) has its own.
    m = re.search(r"^func\.func\s+@%s\((.*?)\)\s*(?:->|\{)" % re.escape(name), source,
                  re.S | re.M)
    if not m:
        return None
    shapes = []
    for arg in re.finditer(r"%[\w$.]+:\s*tensor<([^>]*)>", m.group(1)):
        dims = arg.group(1).split("x")
        if dims[-1] != "f32" or not all(d.isdigit() for d in dims[:-1]):
            return None
        shapes.append([int(d) for d in dims[:-1]])
    return shapes or None


def check_twin(shardc, path, source, name, workdir):
    """None if @name_shardy computes what @name does unsharded, else what
    went wrong."""
    twin = name + "_shardy"
    shapes = arg_shapes(source, twin)
    if shapes is None or shapes != arg_shapes(source, name):
        return "its arguments are not f32 tensors of @%s's shapes" % name
    body = function_text(source, name)
    if body is None:
        return "cannot find the text of @%s" % name
    if "shardc.sharding_constraint" in body and len(shapes) == 1:
        return check_identity(shardc, path, twin, shapes[0], workdir)
    counts = [1] * len(shapes)
    for k, shape in enumerate(shapes):
        for d in shape:
            counts[k] *= d
    payloads = [small_ints(c, k) for k, c in enumerate(counts)]
    got, err = run_reference(shardc, path, twin, shapes, payloads, workdir)
    if err:
        return err
    whole = strip_shardings(body).replace("@" + name + "(", "@" + name + "_whole(", 1)
    if "@" in whole.replace("@" + name + "_whole(", ""):
        return "@%s names a mesh once its shardings are removed" % name
    whole_path = os.path.join(workdir, name + "_whole.mlir")
    with open(whole_path, "w") as f:
        f.write(whole + "\n")
    want, err = run_reference(shardc, whole_path, name + "_whole", shapes, payloads, workdir)
    if err:
        return "the unsharded @%s: %s" % (name, err)
    if got != want:
        return "its result is not the unsharded program's: the collectives do not compute @%s" % name
    return None


def check_identity(shardc, path, name, shape, workdir):
    """None if @name returns its f32 argument unchanged, else what went wrong."""
    count = 1
    for d in shape:
        count *= d
    payload = struct.pack("<%df" % count, *range(count))
    got, err = run_reference(shardc, path, name, [shape], [payload], workdir)
    if err:
        return err
    if npy_payload(got) != ("<f4", tuple(shape), payload):
        return "its result is not its argument: the collectives are not this reshard"
    return None


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: %s FILE SHARDC_BIN\n" % argv[0])
        return 2
    path, shardc = argv[1], argv[2]
    with open(path) as f:
        text = f.read().splitlines()

    names, found = scan_cases(text, {"subaxes": SUBAXES_RE, "known": KNOWN_MORE_RE,
                                     "unreachable": UNREACHABLE_RE, "hand": HAND_RE})
    subaxes = {m.group(1) for m in found["subaxes"]}
    known_more = {m.group(1) for m in found["known"]}
    unreachable = {m.group(1) for m in found["unreachable"]}
    hand = {m.group(1): int(m.group(2)) for m in found["hand"]}
    defined = set(names)
    source = "\n".join(text)
    workdir = tempfile.mkdtemp(prefix="check_reshard_bytes.")
    try:
        return report(shardc, path, source, names, defined, hand, subaxes, known_more,
                      unreachable, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def report(shardc, path, source, names, defined, hand, subaxes, known_more, unreachable,
           workdir):
    counts = {"same": 0, "fewer": 0, "more": 0, "subaxes": 0, "known": 0, "unreachable": 0,
              "errors": 0}
    times = {"faster": 0, "as fast": 0, "slower": 0, "unknown": 0}
    for name in names:
        if name.endswith("_shardy"):
            continue
        ourTotal, err = explain_total(shardc, path, name)
        ours = ourTotal[1] if ourTotal else None
        theirTotal = None
        if err is None:
            if name + "_shardy" in defined:
                theirTotal, err = explain_total(shardc, path, name + "_shardy")
                theirs = theirTotal[1] if theirTotal else None
                if err is None:
                    err = check_twin(shardc, path, source, name, workdir)
                if err:
                    err = "@%s_shardy: %s" % (name, err)
            elif name in hand:
                theirs = hand[name]
            else:
                err = "no @%s_shardy and no SHARDY-BYTES comment" % name
        if err:
            counts["errors"] += 1
            print("%s error: %s" % (name, err))
            continue
        verdict = "same" if ours == theirs else ("fewer" if ours < theirs else "more")
        # Bytes alone hide a trade: more collectives of fewer bytes. The
        # time on the model link weighs both (Shardy's collective count is
        # known where its twin runs, not for hand-computed figures).
        if theirTotal is None:
            times["unknown"] += 1
            timing = "; time: Shardy's collectives unknown"
        else:
            a, b = link_seconds(*ourTotal), link_seconds(*theirTotal)
            pace = "as fast" if abs(a - b) <= 1e-12 else ("faster" if a < b else "slower")
            times[pace] += 1
            timing = "; time %.2f us in %d collectives, Shardy %.2f us in %d: %s" % (
                a * 1e6, ourTotal[0], b * 1e6, theirTotal[0], pace)
        if verdict == "more" and name in subaxes:
            counts["subaxes"] += 1
            print("%s shardc=%d shardy=%d more (Shardy uses sub-axes)%s" % (name, ours, theirs, timing))
            continue
        if verdict == "more" and name in unreachable:
            counts["unreachable"] += 1
            print("%s shardc=%d shardy=%d more than a figure no sequence reaches (marked "
                  "UNREACHABLE)%s" % (name, ours, theirs, timing))
            continue
        if verdict == "more" and name in known_more:
            counts["known"] += 1
            print("%s shardc=%d shardy=%d more (known, marked KNOWN-MORE)%s"
                  % (name, ours, theirs, timing))
            continue
        counts[verdict] += 1
        stale = (" (marked KNOWN-MORE: the marker can go)" if name in known_more else
                 " (marked UNREACHABLE: the marker can go)" if name in unreachable else "")
        print("%s shardc=%d shardy=%d %s%s%s" % (name, ours, theirs, verdict, stale, timing))

    for name in sorted(set(hand) - defined):
        counts["errors"] += 1
        print("%s error: SHARDY-BYTES for a function that is not defined" % name)
    for name in sorted(known_more - defined):
        counts["errors"] += 1
        print("%s error: KNOWN-MORE for a function that is not defined" % name)
    for name in sorted(unreachable - defined):
        counts["errors"] += 1
        print("%s error: UNREACHABLE for a function that is not defined" % name)
    for name in sorted(unreachable - set(hand)):
        counts["errors"] += 1
        print("%s error: UNREACHABLE without a SHARDY-BYTES figure" % name)

    known = ("more than an unreachable figure: %(unreachable)d, " % counts) if unreachable else ""
    known += ("more (known, marked KNOWN-MORE): %(known)d, " % counts) if known_more else ""
    print("same: %(same)d, fewer: %(fewer)d, more: %(more)d, "
          "more where Shardy uses sub-axes: %(subaxes)d, " % counts
          + known + "errors: %(errors)d" % counts)
    print("time at %g us + bytes / %g GB/s per collective: faster: %d, as fast: %d, slower: %d, "
          "unknown: %d" % (LINK_LATENCY_S * 1e6, LINK_BYTES_PER_S / 1e9, times["faster"],
                           times["as fast"], times["slower"], times["unknown"]))
    return 1 if counts["more"] or counts["errors"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
