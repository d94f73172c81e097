"""The bytes `shardc explain` says a function sends, for the conformance
checkers beside it."""

import re
import subprocess

TOTAL_RE = re.compile(r"^Total: (\d+) collectives?(?:, (\d+) bytes sent per device)?")


def explain_bytes(shardc, path, name):
    """(bytes sent per device by @name, None), or (None, what went wrong)."""
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
    return int(match.group(2) or 0), None
