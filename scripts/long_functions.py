#!/usr/bin/env python3
"""List Swift bodies longer than a limit: functions, initializers, deinitializers, subscripts,
computed properties (their accessor blocks, willSet/didSet included, count with the property)
and properties initialized by a closure (`static var x: T = { ... }()`).

    scripts/long_functions.py [--limit N] DIR_OR_FILE...

Prints `path:line: name is N lines (limit L)` for each, where N counts the lines from the
declaration's keyword to the closing brace inclusive, and exits 1 if there is any (2 on a usage
error). Braces are matched on tokens: comments (nested /* */ too) and string literals (single-line,
multi-line \"\"\" and raw #"..."# strings, with their interpolations) are skipped. Standard library
only. A property is considered only at file or type level (not a function's local variables);
a function nested in another one is reported on its own as well, as Outer.inner.
"""

import argparse
import bisect
import os
import re
import sys

# Code: each match eats the whitespace before one token. Block comments, strings and line
# comments are recognised here and then skipped by the loop.
CODE = re.compile(
    r"""[ \t\r\n\f]*(?:
      (?P<lc>//[^\n]*)
    | (?P<bc>/\*)
    | (?P<str>\#*(?:\"\"\"|\"))
    | (?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
    | (?P<bid>`[^`\n]*`)
    | (?P<num>[0-9][0-9A-Za-z_.]*)
    | (?P<p>[{}()\[\];,.@:])
    | (?P<op>->|(?:[-+*%<>=!&|^~?]|/(?![/*]))+)
    | (?P<other>.)
    | (?P<eof>$)
    )""",
    re.X | re.S,
)
BLOCK = re.compile(r"/\*|\*/")

_string_patterns = {}


def string_pattern(hashes, multiline):
    """The next interesting thing inside a string: its end, an interpolation or an escape."""
    key = (hashes, multiline)
    pat = _string_patterns.get(key)
    if pat is None:
        h = "#" * hashes
        end = ('"""' if multiline else '"') + h
        alts = [r"(?P<interp>\\%s\()" % h, r"(?P<esc>\\%s.)" % h, r"(?P<end>%s)" % re.escape(end)]
        if not multiline:
            alts.append(r"(?P<nl>\n)")  # an unterminated string ends at its line
        pat = re.compile("|".join(alts), re.S)
        _string_patterns[key] = pat
    return pat


def tokens(text):
    """Yields (kind, text, offset) for code tokens: 'id' (identifier or keyword), 'bid' (a
    `quoted` identifier), 'p' (punctuation), 'op' (operator), 'lit' (a number or a string)."""
    pos = 0
    n = len(text)
    # Stack of the strings whose interpolation we are in: (hashes, multiline, paren depth).
    interps = []
    match = CODE.match
    while True:
        m = match(text, pos)
        kind = m.lastgroup
        pos = m.end()
        if kind == "eof":
            return
        if kind == "lc":
            continue
        if kind == "bc":
            depth = 1
            while depth:
                b = BLOCK.search(text, pos)
                if b is None:
                    return
                depth += 1 if b.group() == "/*" else -1
                pos = b.end()
            continue
        if kind == "str":
            opener = m.group("str")
            multiline = opener.endswith('"""')
            hashes = len(opener) - (3 if multiline else 1)
            yield ("lit", '"', m.start(kind))
            pos = skip_string(text, pos, hashes, multiline, interps)
            if pos is None:
                return
            continue
        tok = m.group(kind)
        if interps and kind == "p":
            if tok == "(":
                h, ml, d = interps[-1]
                interps[-1] = (h, ml, d + 1)
            elif tok == ")":
                h, ml, d = interps[-1]
                if d == 0:  # the interpolation's end: back into its string
                    interps.pop()
                    pos = skip_string(text, pos, h, ml, interps)
                    if pos is None:
                        return
                    continue
                interps[-1] = (h, ml, d - 1)
        start = m.start(kind)
        if kind == "num" or kind == "other":
            kind = "lit"
        yield (kind, tok, start)
        if pos >= n:
            return


def skip_string(text, pos, hashes, multiline, interps):
    """Skips a string's text from pos; returns the position after its end, or after the `(` of
    an interpolation (pushed on interps), or None at the end of the file."""
    pat = string_pattern(hashes, multiline)
    while True:
        s = pat.search(text, pos)
        if s is None:
            return None
        pos = s.end()
        g = s.lastgroup
        if g == "esc":
            continue
        if g == "interp":
            interps.append((hashes, multiline, 0))
        return pos


DECL_FUNC = {"func", "init", "deinit", "subscript"}
DECL_TYPE = {"struct", "class", "enum", "actor", "protocol", "extension"}
# Words that start another declaration: a pending declaration without a body ends at them.
STOP = DECL_FUNC | DECL_TYPE | {
    "var", "let", "case", "typealias", "associatedtype", "import", "static", "public", "private",
    "fileprivate", "internal", "open", "override", "mutating", "nonmutating", "nonisolated",
    "convenience", "required", "final", "lazy", "weak", "unowned", "dynamic", "indirect",
}
TYPE_LEVEL = ("file", "type")


def scan(path, text, limit, out):
    lines = [m.start() for m in re.finditer("\n", text)]

    def line_of(offset):
        return bisect.bisect_right(lines, offset - 1) + 1

    # Scopes of the open braces: (kind, name, start offset, reported). kind: type, func, prop, other.
    stack = [("file", None, 0, False)]
    # The declaration whose body the next `{` at depth 0 would open:
    # [kind, name, start offset, state] (state for a property: "type", "init", "eq").
    pending = None
    depth = 0  # ( and [ open since the pending declaration started
    toks = list(tokens(text))
    ntoks = len(toks)
    prev = None
    i = 0
    while i < ntoks:
        kind, tok, off = toks[i]
        i += 1
        # A keyword inside a pending declaration's ( ) or [ ] is an argument label.
        if kind == "id" and prev != "." and tok in STOP and (pending is None or depth == 0):
            if tok in DECL_FUNC:
                if tok == "func":
                    # The name: an identifier or an operator, up to `(` or `<`.
                    name = ""
                    while i < ntoks and toks[i][1] not in ("(", "{") and not (name and toks[i][1] == "<"):
                        name += toks[i][1]
                        i += 1
                else:
                    name = tok
                pending = ["func", name, off, None]
                depth = 0
            elif tok in DECL_TYPE and i < ntoks and toks[i][0] in ("id", "bid") and toks[i][1] not in STOP:
                name = ""
                while i < ntoks and (toks[i][0] in ("id", "bid") or toks[i][1] == "."):
                    if toks[i][0] == "id" and toks[i][1] in ("where",):
                        break
                    name += toks[i][1].strip("`")
                    i += 1
                pending = ["type", name, off, None]
                depth = 0
            elif tok in ("var", "let") and stack[-1][0] in TYPE_LEVEL:
                # The name: the first identifier (a pattern's, for `let (a, b) = ...`).
                j = i
                while j < ntoks and toks[j][0] not in ("id", "bid"):
                    j += 1
                name = toks[j][1].strip("`") if j < ntoks else "?"
                pending = ["prop", name, off, "type"]
                depth = 0
            else:
                # A declaration without a body ends here (a protocol's requirement, a stored
                # property), or `class` is a modifier (class func, class var).
                pending = None
            prev = tok
            continue
        if kind == "p":
            if tok == "{":
                opens = None
                if pending is not None and depth == 0:
                    pk = pending[0]
                    if pk == "prop":
                        state = pending[3]
                        nxt = toks[i][1] if i < ntoks else ""
                        if state == "type" or state == "eq" or nxt in ("willSet", "didSet"):
                            opens = pending
                    else:
                        opens = pending
                if opens is not None:
                    stack.append((opens[0], opens[1], opens[2], opens[0] != "type"))
                    pending = None
                else:
                    stack.append(("other", None, off, False))
                    if pending is not None and pending[0] == "prop":
                        pending = None  # a trailing closure in an initializer
            elif tok == "}":
                if pending is not None and depth == 0:
                    pending = None
                if len(stack) > 1:
                    sk, name, start, reported = stack.pop()
                    if reported:
                        first = line_of(start)
                        length = line_of(off) - first + 1
                        if length > limit:
                            names = [s[1] for s in stack if s[1] and s[0] in ("type", "func", "prop")]
                            out.append((path, first, ".".join(names + [name]), length))
            elif tok in "([":
                depth += 1
            elif tok in ")]":
                depth -= 1
            elif tok == ";" and depth == 0:
                pending = None
            elif tok == "," and depth == 0 and pending is not None and pending[0] == "prop":
                # `let a = 1, b: T { ... }` cannot be, but `let a = 1, b = { ... }()` can
                if i < ntoks and toks[i][0] in ("id", "bid"):
                    pending[1] = toks[i][1].strip("`")
                pending[3] = "type"
        elif kind == "op" and pending is not None and pending[0] == "prop" and depth == 0:
            if tok == "=" and pending[3] == "type":
                # `= {` opens a closure that initializes the property; anything else is an
                # initializer expression (its `{`, if any, is a trailing closure or willSet/didSet).
                pending[3] = "eq" if i < ntoks and toks[i][1] == "{" else "init"
        prev = tok


def swift_files(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for f in sorted(files):
                if f.endswith(".swift"):
                    yield os.path.join(root, f)


def main(argv):
    ap = argparse.ArgumentParser(description="List Swift function and property bodies longer than a limit.")
    ap.add_argument("--limit", "-n", type=int, default=80, help="the most lines a body may have (default 80)")
    ap.add_argument("paths", nargs="+", help="directories (searched for .swift files) or files")
    args = ap.parse_args(argv)
    for p in args.paths:
        if not os.path.exists(p):
            ap.error("no such file or directory: %s" % p)
    out = []
    for path in swift_files(args.paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            scan(path, f.read(), args.limit, out)
    out.sort(key=lambda r: (r[0], r[1]))
    for path, line, name, length in out:
        print("%s:%d: %s is %d lines (limit %d)" % (path, line, name, length, args.limit))
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
