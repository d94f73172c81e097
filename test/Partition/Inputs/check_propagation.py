#!/usr/bin/env python3
"""Compares shardc's sharding propagation with Shardy's answers.

usage: check_propagation.py FILE SHARDC_OPT SHARDC

FILE holds one case per function @NAME, and for each value Shardy's test
checks a line

    // SHARDY: @NAME VALUE [{"a"}, {}]

where VALUE is argN, resultN or opN (the N-th op of the function body that
has results, from 0) and the list gives the axes of each dimension (open
marks and priorities are ignored: only the axes are compared). A line
`// DIFFERS: @NAME reason` explains a case where shardc's answer differs.

The script runs `SHARDC_OPT FILE --shardc-propagate` and compares, for every
case, the shardings shardc gives the checked values with Shardy's. A case
whose checked values are all equal is `agree`. Otherwise it measures the
bytes each device sends (`SHARDC explain ... --entry NAME`, its `Total:`
line) twice: for shardc's own propagation of FILE, and for Shardy's layout,
a temporary copy of the case in which every checked value carries Shardy's
sharding, closed (an argument or result as its `shardc.sharding`, an op as
its own `shardc.shardings`, which propagation takes as an annotation of that
very value; a sharding_constraint after the op would pin only its own
result, and the op could take another sharding from its operands and be
resharded there, which Shardy's layout does not do; the values Shardy's test
does not check are left to shardc's propagation from there). The case is then `differ-fewer`, `differ-same` or
`differ-more` by shardc's bytes against Shardy's, and `error` when something
cannot be run, parsed or measured.

Prints one line per case, then
`agree: a, differ fewer bytes: b, differ same bytes: c, differ more bytes: d, errors: e`.
A DIFFERS line on a case that agrees, and a SHARDY or DIFFERS line naming
no function, count as errors. Exits 1 if a case sends more bytes than
Shardy's layout without a DIFFERS line, or if there are errors.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from shardc_explain import explain_bytes, scan_cases

SHARDY_RE = re.compile(
    r"^\s*//\s*SHARDY:\s*@([A-Za-z_][\w$.]*)\s+(arg|result|op)(\d+)\s+(\[.*\])\s*$")
DIFFERS_RE = re.compile(r"^\s*//\s*DIFFERS:\s*@([A-Za-z_][\w$.]*)\s+\S")
FUNC_RE = re.compile(r"^\s*func\.func\s+(?:(?:public|private|nested)\s+)?@([A-Za-z_][\w$.]*)\(")
MESH_RE = re.compile(r"^\s*shardc\.mesh\s+@")
OP_RESULT_RE = re.compile(r"^\s*(%[\w$.-]+)(?::(\d+))?\s*=\s*")
SHARDING_RE = re.compile(r"#shardc\.sharding<@([\w$.-]+),\s*\[([^\]]*)\]\s*>")
SHARDING_ATTR_RE = re.compile(r"shardc\.sharding\s*=\s*#shardc\.sharding<[^>]*>")
SHARDINGS_ATTR_RE = re.compile(r"shardc\.shardings\s*=\s*\[(?:[^\[\]]|\[[^\[\]]*\])*\]")


def parse_dims(text):
    """The axes of each dimension of a `[{"a", ?}, {}p1]` list, as a tuple of tuples."""
    return tuple(tuple(re.findall(r'"([^"]*)"', group))
                 for group in re.findall(r"\{([^}]*)\}", text))


def show(dims):
    return "[" + ", ".join("{" + ", ".join('"%s"' % a for a in d) + "}" for d in dims) + "]"


def top_level(text):
    """Indices of the characters of `text` outside brackets and quotes (the
    brackets themselves excluded; `->` is no bracket)."""
    depth, quoted = 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and i > 0 and text[i - 1] == "-"):
            depth -= 1
        elif depth == 0:
            yield i


def split_top(text, sep=","):
    """Splits at `sep` outside brackets and quotes."""
    parts, start = [], 0
    for i in top_level(text):
        if text[i] == sep:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def matching(text, open_at):
    """Index of the bracket closing the one at `open_at`."""
    pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
    stack, quoted = [], False
    for i in range(open_at, len(text)):
        ch = text[i]
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in pairs:
            stack.append(pairs[ch])
        elif ch in ")]}>":
            if ch == ">" and text[i - 1] == "-":
                continue
            if stack and ch == stack[-1]:
                stack.pop()
                if not stack:
                    return i
    return -1


def brace_delta(line):
    depth, quoted = 0, False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif not quoted:
            depth += (ch == "{") - (ch == "}")
    return depth


class Func:
    """A function of printed MLIR: its signature pieces and top-level body lines."""

    def __init__(self, name, lines):
        self.name = name
        self.lines = lines  # all lines of the function, signature first
        sig = lines[0]
        lpar = sig.index("(", sig.index("@" + name))
        rpar = matching(sig, lpar)
        self.head, self.args_text = sig[:lpar + 1], sig[lpar + 1:rpar]
        rest = sig[rpar + 1:]
        self.args = split_top(self.args_text)
        self.results, self.results_paren = [], False
        self.results_span = None  # (start, end) of the results in `rest`
        m = re.match(r"\s*->\s*", rest)
        if m:
            pos = m.end()
            if rest[pos] == "(":
                end = matching(rest, pos)
                self.results = split_top(rest[pos + 1:end])
                self.results_paren = True
                self.results_span = (pos, end + 1)
            else:
                # One result without parentheses: a type, up to the body's
                # brace (or `attributes`).
                end = pos
                if rest.startswith("tensor<", pos):
                    end = matching(rest, pos + len("tensor")) + 1
                else:
                    end = rest.index(" ", pos)
                self.results = [rest[pos:end]]
                self.results_span = (pos, end)
        self.rest = rest
        # Top-level ops with results: (index into lines, result name).
        self.ops = []
        depth = brace_delta(sig)
        for i in range(1, len(lines)):
            if depth == 1:
                m = OP_RESULT_RE.match(lines[i])
                if m:
                    self.ops.append((i, m.group(1)))
            depth += brace_delta(lines[i])

    @staticmethod
    def sharding_of(entry):
        m = SHARDING_RE.search(entry)
        return (m.group(1), parse_dims(m.group(2))) if m else None

    def value_sharding(self, kind, index):
        """(mesh, dims) shardc gave a value, or None; raises IndexError."""
        if kind == "arg":
            return self.sharding_of(self.args[index])
        if kind == "result":
            return self.sharding_of(self.results[index])
        line = self.lines[self.ops[index][0]]
        m = SHARDINGS_ATTR_RE.search(line)
        return self.sharding_of(m.group(0)) if m else None

    def mesh(self):
        for line in self.lines:
            m = SHARDING_RE.search(line) or re.search(r"<@([\w$.-]+),\s*\[", line)
            if m:
                return m.group(1)
        return None

    def text(self):
        return "\n".join(self.lines)


def parse_module(text):
    """name -> Func, and the module's mesh lines."""
    lines = text.splitlines()
    funcs, meshes, i = {}, [], 0
    while i < len(lines):
        line = lines[i]
        if MESH_RE.match(line):
            meshes.append(line.strip())
        m = FUNC_RE.match(line)
        if m:
            depth, j = brace_delta(line), i
            while depth > 0 and j + 1 < len(lines):
                j += 1
                depth += brace_delta(lines[j])
            funcs[m.group(1)] = Func(m.group(1), lines[i:j + 1])
            i = j
        i += 1
    return funcs, meshes


def with_sharding(entry, attr):
    """An argument or result entry whose shardc.sharding is `attr`."""
    if SHARDING_ATTR_RE.search(entry):
        return SHARDING_ATTR_RE.sub(lambda _: attr, entry)
    if entry.rstrip().endswith("}"):
        close = entry.rstrip().rfind("}")
        return entry[:close].rstrip() + ", " + attr + "}"
    return entry + " {" + attr + "}"


def shardy_copy(func, meshes, checks, mesh):
    """The text of a module with only `func`, its checked values carrying Shardy's shardings."""
    def attr(dims):
        return "shardc.sharding = #shardc.sharding<@%s, %s>" % (mesh, show(dims))

    args, results = list(func.args), list(func.results)
    lines = list(func.lines)
    for kind, index, dims in checks:
        if kind == "arg":
            args[index] = with_sharding(args[index], attr(dims))
        elif kind == "result":
            results[index] = with_sharding(results[index], attr(dims))
        else:
            at = func.ops[index][0]
            line = lines[at]
            if OP_RESULT_RE.match(line).group(2):
                raise ValueError("op%d has several results" % index)
            new = "shardc.shardings = [#shardc.sharding<@%s, %s>]" % (mesh, show(dims))
            if SHARDINGS_ATTR_RE.search(line):
                line = SHARDINGS_ATTR_RE.sub(lambda _: new, line)
            else:
                # Before the type: the last ` : ` outside brackets.
                cut = max((i for i in top_level(line) if line.startswith(" : ", i)),
                          default=-1)
                if cut < 0:
                    raise ValueError("op%d: cannot find its type" % index)
                line = line[:cut] + " {" + new + "}" + line[cut:]
            lines[at] = line
    rest = func.rest
    if func.results_span:
        s, e = func.results_span
        inner = ", ".join(results)
        rest = rest[:s] + ("(" + inner + ")" if func.results_paren or any(
            "{" in r for r in results) else inner) + rest[e:]
    lines[0] = func.head + ", ".join(args) + ")" + rest
    return "module {\n" + "\n".join(meshes) + "\n" + "\n".join(lines) + "\n}\n"


def run(cmd):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        return None, "cannot run %s: %s" % (cmd[0], e)
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.strip().splitlines() if l.strip()]
        return None, "%s failed: %s" % (os.path.basename(cmd[0]),
                                        lines[0] if lines else "exit %d" % proc.returncode)
    return proc.stdout, None


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: %s FILE SHARDC_OPT SHARDC\n" % argv[0])
        return 2
    path, shardc_opt, shardc = argv[1:]
    with open(path) as f:
        source = f.read().splitlines()

    names, found = scan_cases(source, {"shardy": SHARDY_RE, "differs": DIFFERS_RE})
    checks = {}
    for m in found["shardy"]:
        checks.setdefault(m.group(1), []).append(
            (m.group(2), int(m.group(3)), parse_dims(m.group(4))))
    differs = {m.group(1) for m in found["differs"]}

    counts = {"agree": 0, "fewer": 0, "same": 0, "more": 0, "errors": 0}
    failed = False

    propagated, err = run([shardc_opt, path, "--shardc-propagate"])
    printed = None
    if not err:
        printed, err = run([shardc_opt, path])
    if err:
        print("error: %s" % err)
        counts["errors"] = len(names) or 1
        print_summary(counts)
        return 1
    prop_funcs, _ = parse_module(propagated)
    orig_funcs, meshes = parse_module(printed)

    workdir = tempfile.mkdtemp(prefix="check_propagation.")
    try:
        for name in names:
            verdict, detail = check_case(name, checks.get(name), prop_funcs, orig_funcs,
                                         meshes, shardc, path, workdir)
            if verdict == "error":
                counts["errors"] += 1
                failed = True
                print("%s error: %s" % (name, detail))
                continue
            if verdict == "agree" and name in differs:
                counts["errors"] += 1
                failed = True
                print("%s error: agrees with Shardy but has a DIFFERS line" % name)
                continue
            if verdict == "agree":
                counts["agree"] += 1
                print("%s agree" % name)
                continue
            counts[verdict] += 1
            noted = name in differs
            if verdict == "more" and not noted:
                failed = True
            print("%s differ-%s %s%s" % (name, verdict, detail,
                                         "" if noted else " (no DIFFERS line)"))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    defined = set(names)
    for name in sorted((set(checks) | differs) - defined):
        counts["errors"] += 1
        failed = True
        print("%s error: SHARDY or DIFFERS line for a function that is not defined" % name)
    print_summary(counts)
    return 1 if failed else 0


def print_summary(counts):
    print("agree: %(agree)d, differ fewer bytes: %(fewer)d, differ same bytes: %(same)d, "
          "differ more bytes: %(more)d, errors: %(errors)d" % counts)


def check_case(name, case_checks, prop_funcs, orig_funcs, meshes, shardc, path, workdir):
    """(verdict, detail): agree, fewer, same, more or error."""
    if not case_checks:
        return "error", "no SHARDY lines"
    prop, orig = prop_funcs.get(name), orig_funcs.get(name)
    if prop is None or orig is None:
        return "error", "not found in the shardc-opt output"
    mesh = prop.mesh()
    diffs = []
    for kind, index, want in case_checks:
        try:
            got = prop.value_sharding(kind, index)
        except IndexError:
            return "error", "%s%d: no such value" % (kind, index)
        if got is None:
            return "error", "%s%d: shardc gave it no sharding" % (kind, index)
        if len(got[1]) != len(want):
            return "error", "%s%d: Shardy's sharding has %d dimensions, the value %d" % (
                kind, index, len(want), len(got[1]))
        if got[1] != want:
            diffs.append("%s%d shardc %s shardy %s" % (kind, index, show(got[1]), show(want)))
    if not diffs:
        return "agree", ""
    ours, err = explain_bytes(shardc, path, name)
    if err:
        return "error", "shardc's layout: " + err
    try:
        text = shardy_copy(orig, meshes, case_checks, mesh)
    except (ValueError, IndexError) as e:
        return "error", "cannot write Shardy's layout: %s" % e
    tmp = os.path.join(workdir, name + ".mlir")
    with open(tmp, "w") as f:
        f.write(text)
    theirs, err = explain_bytes(shardc, tmp, name)
    if err:
        return "error", "Shardy's layout: " + err
    verdict = "same" if ours == theirs else ("fewer" if ours < theirs else "more")
    return verdict, "shardc=%d shardy=%d (%s)" % (ours, theirs, "; ".join(diffs))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
