"""The unwrapped view of a text: the line the program wrote, without what logging wrapped around it.

Between a program's `print` and Cloud Logging the same message passes through its logger, its
launcher, the container runtime and sometimes a terminal emulation, and each may add to it. A
signature is a family of the message's own wordings; what the pipeline adds is mechanical, so
the engine takes it off, in a second view of the text that is tried only for the pages the text
as written did not match (as `mlwiki.diagnose.flowed` does for wrapping; `SignatureSet` for an
entry's texts, `continuation` for a record's lines). The steps, each bounded and each run only
when a substring test or a few character comparisons say it can apply:

- **Terminal escapes** (a text holding ESC): the ANSI/VT100 control sequences a coloured logger
  writes (rich, colorlog, uvicorn, absl on a tty: `\\x1b[31m`, `\\x1b[0m`) are removed.
- **Line ends** (a text holding CR): a carriage return before a line break or at the end (a
  CRLF line end) is removed, so `$` anchors hold.
- **Typographic quotes** (a non-ASCII text): ‘ ’ ‚ ‛ read as `'`, “ ” „ ‟ as `"`, a no-break
  space as a space (coreutils in a UTF-8 locale quotes `‘file’` where others print `'file'`).
- **Tabs** (a text holding a tab): each read as a space (indentation and column padding written
  as tabs by Go's and Java's stack frames, tabwriter).
- **Escaped strings** (a text holding a backslash before a quote or an `n`, or `="`): a message
  carried as a quoted value of another logger's line (klog's `err="…"`, a JSON string: Go's
  strconv.Quote and JSON escape `"` as `\\"` and a line break as `\\n`) reads with those escapes
  undone, and a quoted value holding a line break or keyed as an error or a message (`err=`,
  `error=`, `msg=`, `message=`) reads as lines of its own.
- **Envelope prefixes** at the start of each line, up to `MAX_LAYERS` of them in any order: the
  container runtime's CRI prefix (`2024-05-01T10:00:00.123456789Z stderr F `), a launcher's tag
  (torchrun's `[rank3]: `, mpirun's `[1,0]<stderr>:`, Ray's `(pid=123, ip=10.0.0.1) `), kubectl's
  `--prefix` (`[pod/name/container] `), a syslog or journald header (`Jul  9 00:32:48 node01
  kubelet[6781]: `), a glog/klog header (`E0501 10:00:00.123456    1 main.go:42] `) and Python
  logging's default and cookbook headers (`ERROR:root:`, `2024-05-01 10:00:00,123 - name -
  ERROR - `). Each is recognised by its own few characters before a regex reads it. A logger's
  header comes off only at an error's severity (glog's `E` and `F`, Python's `ERROR` and
  `CRITICAL`): a record at info or warning level is the program carrying on, and a signature
  that tells a warning from a failure (`W… triton_kernel_wrap.py:…] … CompilationError`) reads
  the header.

Only the view of one line that took off nothing but prefixes is matched against the signatures
anchored at a line start alone (`line_anchored`): a pattern that finds the message anywhere in the line found
it in the text as written, prefix and all. A match in the view is mapped back to the text as
written (`span`), so a quote is always an exact substring of the entry's text.

What it does not undo: a logger's own format beyond the common ones above, escapes other than
`\\"`, `\\n`, `\\t` and `\\\\`, and a line cut into pieces (a runtime's partial `P` records,
`cri_partial`; a LogSplit): joining those is the record sweep's (`continuation`).
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple, Optional

ESC = "\x1b"
# CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks), two-byte escapes.
ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
# Typographic quotes and the no-break space as their ASCII characters (`SignatureSet` reads every
# non-ASCII text so); the view also reads a tab as a space (`TYPOGRAPHIC`).
TYPOGRAPHIC_ONLY = str.maketrans(
    "\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00a0", "''''\"\"\"\" "
)
TYPOGRAPHIC = str.maketrans(
    "\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00a0\t", "''''\"\"\"\"  "
)
ESCAPES = {'"': '"', "n": "\n", "t": "\t", "\\": "\\"}
ESCAPED = re.compile(r'\\["nt\\]')
# The keys whose quoted value is a message of its own (klog's structured `err="…"`, logfmt).
VALUE_KEYS = ("err=", "error=", "msg=", "message=")
QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')  # a double-quoted string with its escapes
MAX_LAYERS = 3  # envelope prefixes taken off one line (a CRI prefix, a launcher's, a logger's)
LEVELS = ("ERROR", "CRITICAL")
MONTHS = frozenset(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
)
# A logger's header comes off only at an error's severity: a record at info or warning level
# is the program carrying on, and a signature that tells a warning from a failure reads it.
_LEVEL_WORD = "(?:ERROR|CRITICAL)"
# Each family's prefix, read only after its own few characters said it may be there.
CRI = re.compile(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) (?:stdout|stderr) ([FP]) "
)
COOKBOOK = re.compile(rf"\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d,\d{{3}} - [\w.]+ - {_LEVEL_WORD} - ")
LAUNCHER = re.compile(
    r"\[rank\d+\]: ?"  # torchrun
    r"|\[\d+,\d+\]<(?:stdout|stderr|stddiag)>:"  # mpirun --tag-output
    r"|\[pod/[^/\]\s]+/[^\]\s]+\] "  # kubectl logs --prefix
)
RAY = re.compile(r"\((?:[\w.:-]+ )?pid=\d+(?:, ip=[\d.]+)?\) ")
GLOG = re.compile(r"[EF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]\s]+\] ")
SYSLOG = re.compile(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [\w./@-]+(?:\[\d+\])?: ")
BASIC = re.compile(rf"{_LEVEL_WORD}:[\w.]+:")  # logging.basicConfig's default format
# The first characters an envelope prefix can start with (the gate before `_prefix_of`).
STARTS = frozenset("0123456789[(EFJMASONDC")
# What makes an ASCII line of text more than a plain one to `unwrapped` (besides a line break
# and a first character in STARTS): an escape, a carriage return, a tab, an escaped string.
PLAIN_BREAKERS = (ESC, "\r", "\t", "\\", '="')


def _prefix_of(line: str, headers: bool = True) -> Optional[re.Pattern[str]]:
    """The family of envelope prefix `line` may start with, from a few character tests, so that
    most lines never reach a regex; None when it can start none. Without `headers`, a logger's
    header (glog, Python logging) is no prefix."""
    first = line[:1]
    if first.isdecimal():  # CRI's `2024-05-01T…`, Python logging's `2024-05-01 …`
        if line[4:5] != "-":
            return None
        if line[10:11] == "T":
            return CRI if " std" in line[19:40] else None
        return COOKBOOK if headers and line[19:20] == "," and line[23:26] == " - " else None
    if first == "[":
        return LAUNCHER if line.startswith(("[rank", "[pod/")) or "]<std" in line[:16] else None
    if first == "(":
        return RAY if "pid=" in line[:64] else None
    if not headers:
        return SYSLOG if line[:3] in MONTHS and line[3:4] == " " else None
    if first in "EF" and line[1:5].isdecimal() and line[5:6] == " ":
        return GLOG
    if line[:3] in MONTHS and line[3:4] == " ":
        return SYSLOG
    return BASIC if line.startswith(LEVELS) else None


class Unwrapped(NamedTuple):
    """A text's unwrapped view, and where each piece of it is in the text as written: the
    view's characters from `at[i]` on stand one for one for the written ones from `start[i]`
    on (a removed escape or prefix ends one piece; an undone `\\"` is a piece of one). A named
    tuple: one is made for every line with a prefix."""

    text: str
    prefixes_only: bool  # only envelope prefixes were taken off (see `line_anchored`)
    partial: bool  # the last line carried a CRI partial tag (`P`): the next line continues it
    at: tuple[int, ...]
    start: tuple[int, ...]


def unwrapped(text: str, headers: bool = True) -> Optional[Unwrapped]:
    """The unwrapped view of `text` (module docstring); None when nothing applies (the view is
    the text). The usual line costs a few substring tests. Without `headers` a logger's header
    stays on (a record's lines: its first line's header was read with that line alone)."""
    if (
        "\n" not in text
        and text.isascii()
        and ESC not in text
        and "\r" not in text
        and "\t" not in text
        and "\\" not in text
        and '="' not in text
    ):  # none of PLAIN_BREAKERS, each tested inline: the usual line costs no loop
        # One plain line: at most its prefixes come off (the common case: no pieces to map).
        if text[:1] not in STARTS:
            return None
        end, partial = _prefix_end(text, headers)
        return Unwrapped(text[end:], True, partial, (0,), (end,)) if end else None
    escaped = ESC in text
    returns = "\r" in text
    typographic = not text.isascii() or "\t" in text
    quoted = ('="' in text) or ("\\" in text and ('\\"' in text or "\\n" in text))
    lines = text.split("\n")
    if not (escaped or returns or typographic or quoted) and not any(
        line[:1] in STARTS and _prefix_of(line, headers) is not None for line in lines
    ):
        return None  # lines that no step applies to (a record's, most often)
    # Pieces of the written text kept, as (start, end) spans, and 1-character replacements.
    pieces: list[tuple[int, int, Optional[str]]] = []
    partial = False
    offset = 0
    for number, line in enumerate(lines):
        if number:
            pieces.append((offset - 1, offset, None))  # the line break
        start, end = offset, offset + len(line)
        spans = _without_escapes(text, start, end) if escaped else [(start, end)]
        spans, _, partial = _without_prefixes(text, spans, headers)
        if returns:
            spans = _without_line_end(text, spans)
        for first, last in spans:
            if quoted:
                pieces.extend(_unescaped(text, first, last))
            else:
                pieces.append((first, last, None))
        offset = end + 1
    view_parts: list[str] = []
    at: list[int] = []
    written: list[int] = []
    length = 0
    for first, last, replaced in pieces:
        part = text[first:last] if replaced is None else replaced
        if not part:
            continue
        at.append(length)
        written.append(first)
        view_parts.append(part)
        length += len(part)
    view = "".join(view_parts)
    if typographic:
        view = view.translate(TYPOGRAPHIC)
    if view == text:
        return None
    # Several lines without their prefixes may hold a wording across them that the text as
    # written did not: only one line's view is matched against the line-anchored signatures.
    return Unwrapped(view, False, partial, tuple(at) or (0,), tuple(written) or (0,))


def cri_prefix_end(text: str) -> int:
    """Where the container runtime's CRI prefix `text` starts with ends (0: it has none)."""
    if not text[:1].isdecimal() or text[10:11] != "T" or " std" not in text[19:40]:
        return 0
    match = CRI.match(text)
    return match.end() if match is not None else 0


def cri_partial(text: str) -> bool:
    """Whether `text` is a container runtime's partial record: a CRI prefix tagged `P` (the line
    was longer than the runtime's buffer and the next record of the stream continues it)."""
    if not text[:1].isdecimal() or text.find(" P ", 20, 48) < 0:
        return False
    match = CRI.match(text)
    return match is not None and match[1] == "P"


def _without_escapes(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of text[start:end] between its terminal escape sequences."""
    spans = []
    for match in ANSI.finditer(text, start, end):
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if end > start:
        spans.append((start, end))
    return spans


def _prefix_end(line: str, headers: bool = True) -> tuple[int, bool]:
    """Where the envelope prefixes at the start of `line` end (0: it has none), and whether a
    CRI prefix tagged the line partial."""
    end, partial = 0, False
    rest = line
    for _ in range(MAX_LAYERS):
        family = _prefix_of(rest, headers)
        match = family.match(line, end) if family is not None else None
        if match is None:
            break
        partial = partial or (family is CRI and match[1] == "P")
        end = match.end()
        rest = line[end:]
    return end, partial


def _without_prefixes(
    text: str, spans: list[tuple[int, int]], headers: bool = True
) -> tuple[list[tuple[int, int]], bool, bool]:
    """`spans` (one line's) without the envelope prefixes at the line's start (those in its
    first span); whether one was taken off, and whether a CRI prefix tagged the line partial."""
    if not spans:
        return spans, False, False
    first, last = spans[0]
    end, partial = _prefix_end(text[first:last], headers)
    if not end:
        return spans, False, False
    rest = [(first + end, last)] if first + end < last else []
    return rest + spans[1:], True, partial


def _without_line_end(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` (one line's) without the carriage returns that end it."""
    while spans:
        first, last = spans[-1]
        while last > first and text[last - 1] == "\r":
            last -= 1
        if last > first:
            return [*spans[:-1], (first, last)]
        spans = spans[:-1]
    return spans


def _unescaped(text: str, first: int, last: int) -> list[tuple[int, int, Optional[str]]]:
    """text[first:last] as pieces with each `\\"`, `\\n`, `\\t`, `\\\\` one replaced character; a
    quoted string holding an escaped line break, or the value of an error or message key
    (`VALUE_KEYS`: klog's `err="…"`, logfmt's `msg="…"`), is a record of its own, so its quotes
    read as line breaks (its lines are lines of the view)."""
    pieces: list[tuple[int, int, Optional[str]]] = []
    for literal in QUOTED.finditer(text, first, last):
        if "\\n" not in literal[0] and not text.endswith(VALUE_KEYS, first, literal.start()):
            continue
        pieces.extend(_unescape(text, first, literal.start()))
        pieces.append((literal.start(), literal.start() + 1, "\n"))
        pieces.extend(_unescape(text, literal.start() + 1, literal.end() - 1))
        pieces.append((literal.end() - 1, literal.end(), "\n"))
        first = literal.end()
    pieces.extend(_unescape(text, first, last))
    return pieces


def _unescape(text: str, first: int, last: int) -> list[tuple[int, int, Optional[str]]]:
    pieces: list[tuple[int, int, Optional[str]]] = []
    for match in ESCAPED.finditer(text, first, last):
        if match.start() > first:
            pieces.append((first, match.start(), None))
        pieces.append((match.start(), match.end(), ESCAPES[match[0][1]]))
        first = match.end()
    if last > first:
        pieces.append((first, last, None))
    return pieces


def span(view: Unwrapped, start: int, end: int) -> tuple[int, int]:
    """The span of the text as written that the view's `start:end` stands for."""
    return _written(view, start), _written(view, end - 1) + 1 if end > start else _written(
        view, start
    )


def _written(view: Unwrapped, position: int) -> int:
    piece = max(0, bisect.bisect_right(view.at, position) - 1)
    return view.start[piece] + (position - view.at[piece])


def line_anchored(pattern: str) -> bool:
    """Whether a signature may need a line's start: it holds `^` or `\\A` outside a class
    (a prefix in front of the message can break only such a pattern)."""
    return "\\A" in pattern or bool(_ANCHOR.search(pattern))


_ANCHOR = re.compile(r"(?<![\[\\])\^")
