"""For the conformance checkers beside it: the bytes `shardc explain` says a
function sends, and a case file's functions and marker comments."""

import re
import subprocess

FUNC_RE = re.compile(r"^\s*func\.func\s+(?:(?:public|private|nested)\s+)?@([A-Za-z_][\w$.]*)")


def scan_cases(lines, markers):
    """(function names in order, {marker: [match, ...]}) of a case file:
    `markers` maps a name to the regex of its comment line (tried in order);
    other comment lines are skipped."""
    names, found = [], {key: [] for key in markers}
    for line in lines:
        for key, regex in markers.items():
            m = regex.match(line)
            if m:
                found[key].append(m)
                break
        else:
            if line.lstrip().startswith("//"):
                continue
            m = FUNC_RE.match(line)
            if m:
                names.append(m.group(1))
    return names, found

TOTAL_RE = re.compile(r"^Total: (\d+) collectives?(?:, (\d+) bytes sent per device)?")


# The link the cost model assumes: each collective costs its latency, plus
# its bytes over the bandwidth (NVLink-class: 5 us, 150 GB/s).
LINK_LATENCY_S = 5e-6
LINK_BYTES_PER_S = 150e9


def link_seconds(collectives, nbytes):
    """The time a device spends in `collectives` collectives sending `nbytes`."""
    return collectives * LINK_LATENCY_S + nbytes / LINK_BYTES_PER_S


def explain_bytes(shardc, path, name):
    """(bytes sent per device by @name, None), or (None, what went wrong)."""
    total, err = explain_total(shardc, path, name)
    return (None, err) if err else (total[1], None)


def explain_total(shardc, path, name):
    """((collectives, bytes sent per device) of @name, None), or (None, what
    went wrong). An all_slice is a local slice, not a message: it is not
    counted among the collectives (it costs no latency on a link)."""
    try:
        proc = subprocess.run([shardc, "explain", path, "--entry", name],
                              capture_output=True, text=True)
    except OSError as e:
        return None, "cannot run %s: %s" % (shardc, e)
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.strip().splitlines() if l.strip()]
        return None, "explain failed: %s" % (lines[0] if lines else "exit %d" % proc.returncode)
    # The Total line ends the report, but for a `Padding:` line after it.
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    if lines and lines[-1].startswith("Padding:"):
        lines.pop()
    match = TOTAL_RE.match(lines[-1]) if lines else None
    if not match:
        return None, "no Total line in the explain output"
    local = sum(1 for l in lines if l.strip().endswith("bytes per device (a local slice)"))
    return (int(match.group(1)) - local, int(match.group(2) or 0)), None
