"""The Cloud Logging query language (LQL): one implementation for bundles and fetched entries.

`compile_filter(text)` parses a filter with an LALR grammar (`lql.lark`) and compiles it once into
nested closures, so evaluating an entry is a few Python calls, not a walk over a syntax tree.
`quote(value)` renders any string as a safe query literal; templates use it for every value.

Semantics (after https://cloud.google.com/logging/docs/view/logging-query-language and
https://google.aip.dev/160):
- Precedence: NOT / `-` tightest, then OR, then AND (explicit or by juxtaposition).
- `=` and `:` compare strings case-insensitively; `:` is a substring test ("has"); `:*` tests that
  a field is present. Regular expressions (`=~`, `!~`) are RE2, unanchored, case-sensitive unless
  `(?i)`; they are compiled once per filter.
- `!=` and `!~` are the negations of `=` and `=~`, so they also hold when the field is missing.
- `severity` compares by rank (names or numbers; a missing severity is DEFAULT); `timestamp` and
  `receiveTimestamp` compare as instants (RFC 3339, any offset, up to nanoseconds). Other fields
  compare as numbers when both sides are numbers, as instants when both sides are RFC 3339
  timestamps, and otherwise as case-folded strings.
- A path through a list (a repeated field) matches when any element matches.
- A bare value (a global restriction) matches when any value anywhere in the entry contains it.
- `NULL_VALUE` matches a JSON null. `log_id("ID")` matches the LOG_ID part of `logName`.
  `SEARCH("text")` / `SEARCH(field, "text")` match whole tokens, case-insensitively; a
  `` `backticked phrase` `` must appear as written (case-insensitively).
- `sample(insertId, FRACTION)` keeps a deterministic FRACTION (0 < FRACTION ≤ 1) of the entries,
  chosen by a hash of the field's value: here the first 8 bytes of its BLAKE2b digest read as a
  fraction of 2^64 (Cloud Logging's own hash is not published, so a sampled query selects another,
  equally sized, subset there; never apply it again to entries a sampled query returned).
- `--` starts a comment. Anything else (`ip_in_net()`, `cast()`, …) is a BadInput naming the
  line:column and the construct.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union
from urllib.parse import quote as url_quote
from urllib.parse import unquote as url_unquote

import re2
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from mlwiki.errors import BadInput
from mlwiki.timewindow import timestamp_ns

Predicate = Callable[[dict[str, Any]], bool]

SEVERITIES = {
    "DEFAULT": 0,
    "DEBUG": 100,
    "INFO": 200,
    "NOTICE": 300,
    "WARNING": 400,
    "ERROR": 500,
    "CRITICAL": 600,
    "ALERT": 700,
    "EMERGENCY": 800,
}
# LogEntry field names are case-insensitive in the language; entries spell them like this.
_LOG_ENTRY_FIELDS = {
    name.lower(): name
    for name in (
        "logName",
        "resource",
        "protoPayload",
        "textPayload",
        "jsonPayload",
        "timestamp",
        "receiveTimestamp",
        "severity",
        "insertId",
        "httpRequest",
        "labels",
        "operation",
        "trace",
        "spanId",
        "traceSampled",
        "sourceLocation",
        "split",
        "errorGroups",
    )
}
_TIMESTAMP_FIELDS = {("timestamp",), ("receiveTimestamp",)}
_SUPPORTED_FUNCTIONS = ("log_id", "SEARCH", "sample")
_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
# A known escape, or `\\u` and four hex digits; any other backslash is kept as written.
_ESCAPE = re.compile(r'\\([\\"nrt]|u[0-9a-fA-F]{4})')
# What `quote` escapes: the backslash, the quote and every control character.
_QUOTED = {
    **{code: f"\\u{code:04x}" for code in (*range(0x20), 0x7F)},
    **{ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"},
}
_MISSING: Any = object()


REGEX_MEMORY = 64 << 20  # bytes; a long signature alternation outgrows RE2's 8 MiB default DFA


def re2_options() -> re2.Options:
    """RE2 options that report a bad pattern as an exception only (not also through absl on
    stderr), with room for the DFA of a long alternation (else RE2 falls back to a slow NFA)."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = REGEX_MEMORY
    return options


def re2_error_text(error: Exception) -> str:
    detail = error.args[0] if error.args else error
    return detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)


class _Many(list):
    """Several values reached through a list on the way down a path (a repeated field)."""


_SEQUENCES = (list, _Many)


# --- quoting -----------------------------------------------------------------------------------


def quote(value: object) -> str:
    """`value` as a double-quoted query string literal: `\\`, `"` and control characters escaped.

    Parsing the result gives back exactly `str(value)`, so a template value can never close the
    string or add a clause.
    """
    return f'"{str(value).translate(_QUOTED)}"'  # one C pass (a page's regexes: ~10k characters)


def _unquote(token: str) -> str:
    """The text of a STRING token. Unknown escapes keep their backslash (`"\\d+"` stays `\\d+`)."""
    body = token[1:-1]
    if "\\" not in body:
        return body
    return _ESCAPE.sub(_unescaped, body)


def _unescaped(match: re.Match[str]) -> str:
    escape = match.group(1)
    return _ESCAPES[escape] if len(escape) == 1 else chr(int(escape[1:], 16))


# --- syntax tree -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Literal:
    """A value as written; equal literals compare equal wherever they stand in the text."""

    text: str
    quoted: bool
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


@dataclass(frozen=True)
class MatchAll:
    pass


@dataclass(frozen=True)
class And:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Not:
    item: Node


@dataclass(frozen=True)
class Compare:
    path: tuple[str, ...]
    op: str
    value: Literal


@dataclass(frozen=True)
class Exists:
    path: tuple[str, ...]


@dataclass(frozen=True)
class Global:
    value: Literal


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Union[tuple[str, ...], Literal], ...]
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


Node = Union[MatchAll, And, Or, Not, Compare, Exists, Global, Call]


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    from mlwiki.grammar import parser

    return parser("logging-query")  # lql.lark, from its generated tables


def _literal(token: Token) -> Literal:
    quoted = token.type == "STRING"
    text = _unquote(str(token)) if quoted else str(token)
    return Literal(text, quoted, token.line or 0, token.column or 0)


def _path(tree: Tree) -> tuple[str, ...]:
    parts = [_unquote(str(t)) if t.type == "STRING" else str(t) for t in tree.children]
    canonical = _LOG_ENTRY_FIELDS.get(parts[0].lower())
    if canonical:
        parts[0] = canonical
    if parts[0] == "resource" and len(parts) > 1 and parts[1].lower() in ("type", "labels"):
        parts[1] = parts[1].lower()
    return tuple(parts)


def _bool_children(tree: Tree, keyword: str) -> list[Any]:
    return [c for c in tree.children if not (isinstance(c, Token) and c.type == keyword)]


def _build(tree: Any, where: str) -> Node:
    """Our small syntax tree from lark's parse tree (value groups expanded into comparisons)."""
    kind = tree.data
    if kind == "start":
        return _build(tree.children[0], where) if tree.children else MatchAll()
    if kind in ("expr", "seq"):
        return And(tuple(_build(c, where) for c in _bool_children(tree, "AND")))
    if kind == "factor":
        return Or(tuple(_build(c, where) for c in _bool_children(tree, "OR")))
    if kind == "negation":
        return Not(_build(tree.children[1], where))
    if kind == "global_restriction":
        return Global(_literal(tree.children[0]))
    if kind == "exists":
        return Exists(_path(tree.children[0]))
    if kind == "comparison":
        path_tree, op, rhs = tree.children
        return _build_value(_path(path_tree), str(op), rhs)
    if kind == "call":
        return _build_call(tree, where)
    raise AssertionError(f"unknown parse node {kind}")


def _build_value(path: tuple[str, ...], op: str, rhs: Tree) -> Node:
    kind = rhs.data
    if kind == "value":
        return Compare(path, op, _literal(rhs.children[0]))
    if kind == "vexpr":
        return And(tuple(_build_value(path, op, c) for c in _bool_children(rhs, "AND")))
    if kind == "vfactor":
        return Or(tuple(_build_value(path, op, c) for c in _bool_children(rhs, "OR")))
    if kind == "negation":
        return Not(_build_value(path, op, rhs.children[1]))
    raise AssertionError(f"unknown value node {kind}")


def _build_call(tree: Tree, where: str) -> Node:
    name_token: Token = tree.children[0]
    args: list[Union[tuple[str, ...], Literal]] = []
    for arg in tree.children[1:]:
        parts = arg.children[0].children
        if len(parts) == 1 and parts[0].type == "STRING":
            args.append(_literal(parts[0]))
        else:
            args.append(_path(arg.children[0]))
    name = str(name_token)
    canonical = next((f for f in _SUPPORTED_FUNCTIONS if f.lower() == name.lower()), None)
    position = f"{where}:{name_token.line}:{name_token.column}"
    if canonical is None:
        raise BadInput(f"{position}: unsupported function {name}() in the query")
    call = Call(canonical, tuple(args), name_token.line or 0, name_token.column or 0)
    if canonical == "sample":
        return _sample_call(call, args, position)
    shapes_ok = (
        (canonical == "log_id" and len(args) == 1 and isinstance(args[0], Literal))
        or (canonical == "SEARCH" and len(args) == 1 and isinstance(args[0], Literal))
        or (
            canonical == "SEARCH"
            and len(args) == 2
            and isinstance(args[0], tuple)
            and isinstance(args[1], Literal)
        )
    )
    if not shapes_ok:
        usage = 'log_id("LOG_ID")' if canonical == "log_id" else 'SEARCH([field,] "text")'
        raise BadInput(f"{position}: {name}() takes {usage}")
    return call


def _sample_call(call: Call, args: list[Union[tuple[str, ...], Literal]], position: str) -> Call:
    """`sample(FIELD, FRACTION)`; the fraction is read as a path (`0.1` lexes as `0` `.` `1`)."""
    usage = f"{position}: sample() takes (FIELD, FRACTION) with 0 < FRACTION <= 1"
    if len(args) != 2 or not isinstance(args[0], tuple) or not isinstance(args[1], tuple):
        raise BadInput(usage)
    try:
        fraction = float(".".join(args[1]))
    except ValueError:
        raise BadInput(usage) from None
    if not 0 < fraction <= 1:
        raise BadInput(usage)
    literal = Literal(repr(fraction), False, call.line, call.column)
    return Call("sample", (args[0], literal), call.line, call.column)


def sample_fraction(value: str) -> float:
    """Where `value` falls in [0, 1) for `sample()`: its hash as a fraction of 2^64."""
    digest = hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


# --- evaluation ---------------------------------------------------------------------------------


def _descend(value: Any, parts: tuple[str, ...], index: int) -> Any:
    """The value(s) at parts[index:] under `value`, fanning out through lists."""
    for position in range(index, len(parts)):
        if type(value) is dict:
            value = value.get(parts[position], _MISSING)
            if value is _MISSING:
                return _MISSING
        elif type(value) in (list, _Many):
            found = _Many()
            for item in value:
                leaf = _descend(item, parts, position)
                if leaf is _MISSING:
                    continue
                if type(leaf) is _Many:
                    found.extend(leaf)
                else:
                    found.append(leaf)
            return found if found else _MISSING
        else:
            return _MISSING
    return value


def _getter(path: tuple[str, ...]) -> Callable[[dict[str, Any]], Any]:
    """A fast accessor for `path`; specialised for the common one- and two-part paths."""
    if path == ("severity",):
        return lambda entry: entry.get("severity", "DEFAULT")
    if len(path) == 1:
        (key,) = path
        return lambda entry: entry.get(key, _MISSING)
    if len(path) == 2:
        first, second = path

        def get_two(entry: dict[str, Any]) -> Any:
            value = entry.get(first)
            if type(value) is dict:
                return value.get(second, _MISSING)
            return _descend(value, path, 1) if value is not None else _MISSING

        return get_two
    return lambda entry: _descend(entry, path, 0)


def _lift(get: Callable[[dict[str, Any]], Any], test: Callable[[Any], bool]) -> Predicate:
    """A predicate on entries from a test on one value: missing → False, lists → any element."""

    def predicate(entry: dict[str, Any]) -> bool:
        value = get(entry)
        if value is _MISSING:
            return False
        if type(value) in _SEQUENCES:
            return any(test(item) for item in value)
        return test(value)

    return predicate


def _as_text(value: Any) -> Optional[str]:
    """A scalar as the text the language compares; None for objects and nulls."""
    kind = type(value)
    if kind is str:
        return value
    if kind is bool:
        return "true" if value else "false"
    if kind is int or kind is float:
        return repr(value) if kind is float and not value.is_integer() else str(int(value))
    return None


def _leaves(value: Any) -> Iterator[Any]:
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            stack.extend(item.values())
        elif type(item) is list or type(item) is _Many:
            stack.extend(item)
        else:
            yield item


def _number(text: str) -> Optional[float]:
    try:
        return float(text)
    except ValueError:
        return None


_ORDER = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "=": lambda a, b: a == b,
}


def _both(first: Predicate, second: Predicate) -> Predicate:
    return lambda entry: first(entry) and second(entry)


def _either(first: Predicate, second: Predicate) -> Predicate:
    return lambda entry: first(entry) or second(entry)


def _chain(parts: list[Predicate], conjunction: bool) -> Predicate:
    """`a AND b AND c` as nested two-way closures: cheaper per entry than all() on a generator."""
    combine = _both if conjunction else _either
    predicate = parts[-1]
    for part in reversed(parts[:-1]):
        predicate = combine(part, predicate)
    return predicate


class _Compiler:
    def __init__(self, where: str) -> None:
        self.where = where

    def error(self, literal: Literal, message: str) -> BadInput:
        return BadInput(f"{self.where}:{literal.line}:{literal.column}: {message}")

    def compile(self, node: Node) -> Predicate:
        if isinstance(node, MatchAll):
            return lambda entry: True
        if isinstance(node, (And, Or)):
            return _chain([self.compile(item) for item in node.items], isinstance(node, And))
        if isinstance(node, Not):
            inner = self.compile(node.item)
            return lambda entry: not inner(entry)
        if isinstance(node, Exists):
            get = _getter(node.path)

            def exists(entry: dict[str, Any]) -> bool:
                value = get(entry)
                return value is not _MISSING and value is not None

            return exists
        if isinstance(node, Global):
            return self.global_restriction(node.value)
        if isinstance(node, Call):
            return self.call(node)
        return self.compare(node)

    def compare(self, node: Compare) -> Predicate:
        op = node.op
        if op in ("!=", "!~"):
            positive = self.compare(Compare(node.path, "=" if op == "!=" else "=~", node.value))
            return lambda entry: not positive(entry)
        get = _getter(node.path)
        literal = node.value
        if not literal.quoted and literal.text == "NULL_VALUE":
            if op != "=":
                raise self.error(literal, f"NULL_VALUE only works with '=' or '!=', not '{op}'")
            return lambda entry: get(entry) is None
        if op == "=~":
            return _lift(get, self.regex(literal))
        if op == ":":
            return _lift(get, self.has(literal))
        if node.path == ("severity",):
            return _lift(get, self.severity(literal, op))
        if node.path in _TIMESTAMP_FIELDS:
            instant = timestamp_ns(literal.text)
            if instant is None:
                raise self.error(literal, f"{literal.text!r} is not an RFC 3339 timestamp")
            order = _ORDER[op]
            return _lift(
                get,
                lambda value: (ns := timestamp_ns(value)) is not None and order(ns, instant),
            )
        return _lift(get, self.generic(literal, op))

    def regex(self, literal: Literal) -> Callable[[Any], bool]:
        try:
            search = re2.compile(literal.text, re2_options()).search
        except re2.error as error:
            raise self.error(
                literal, f"invalid RE2 regular expression: {re2_error_text(error)}"
            ) from None

        def test(value: Any) -> bool:
            # Searched as UTF-8 bytes, as RE2 searches a str: the same verdict without the
            # wrapper turning the match's byte offsets back into characters (a walk over the
            # text), which a yes-or-no test never reads.
            text = value if type(value) is str else _as_text(value)
            return text is not None and search(text.encode()) is not None

        return test

    @staticmethod
    def has(literal: Literal) -> Callable[[Any], bool]:
        needle = literal.text.lower()

        def contains(value: Any) -> bool:
            if type(value) is str:
                return needle in value.lower()
            if type(value) is dict:
                return any(contains(leaf) for leaf in _leaves(value))
            text = _as_text(value)
            return text is not None and needle in text.lower()

        return contains

    def severity(self, literal: Literal, op: str) -> Callable[[Any], bool]:
        text = literal.text.upper()
        rank = SEVERITIES.get(text)
        if rank is None and text.isdigit():
            rank = int(text)
        if rank is None:
            raise self.error(
                literal, f"{literal.text!r} is not a severity ({', '.join(SEVERITIES)})"
            )
        order = _ORDER[op]
        target = rank

        def test(value: Any) -> bool:
            level = SEVERITIES.get(value.upper()) if type(value) is str else value
            return type(level) is int and order(level, target)

        return test

    @staticmethod
    def generic(literal: Literal, op: str) -> Callable[[Any], bool]:
        folded = literal.text.lower()
        number = _number(literal.text)
        instant = timestamp_ns(literal.text)
        order = _ORDER[op]
        if op == "=":
            size = len(folded)

            def equal(value: Any) -> bool:
                if type(value) is str:
                    return len(value) == size and value.lower() == folded
                if type(value) in (int, float) and number is not None:
                    return bool(value == number)
                return _as_text(value) == folded

            return equal

        def test(value: Any) -> bool:
            kind = type(value)
            if kind is str:
                if op == "=":
                    return len(value) == len(folded) and value.lower() == folded
                if instant is not None:
                    other = timestamp_ns(value)
                    if other is not None:
                        return order(other, instant)
                if number is not None:
                    parsed = _number(value)
                    if parsed is not None:
                        return order(parsed, number)
                return order(value.lower(), folded)
            if kind is int or kind is float:
                if number is not None:
                    return order(value, number)
                return op == "=" and _as_text(value) == folded
            if kind is bool:
                return op == "=" and _as_text(value) == folded
            return False

        return test

    @staticmethod
    def global_restriction(literal: Literal) -> Predicate:
        needle = literal.text.lower()

        def test(entry: dict[str, Any]) -> bool:
            for leaf in _leaves(entry):
                text = leaf if type(leaf) is str else _as_text(leaf)
                if text is not None and needle in text.lower():
                    return True
            return False

        return test

    def call(self, node: Call) -> Predicate:
        if node.name == "log_id":
            wanted = node.args[0]
            assert isinstance(wanted, Literal)
            is_log = log_test(wanted.text)

            def log_id(entry: dict[str, Any]) -> bool:
                name = entry.get("logName")
                return type(name) is str and is_log(name)

            return log_id
        if node.name == "sample":
            path, fraction = node.args
            assert isinstance(path, tuple) and isinstance(fraction, Literal)
            return _lift(_getter(path), _sampler(float(fraction.text)))
        *scope, query = node.args
        assert isinstance(query, Literal)
        get = _getter(scope[0]) if scope and isinstance(scope[0], tuple) else None
        return _search(query.text, get)


def _sampler(fraction: float) -> Callable[[Any], bool]:
    def test(value: Any) -> bool:
        text = value if type(value) is str else _as_text(value)
        return text is not None and sample_fraction(text) < fraction

    return test


@functools.lru_cache(maxsize=1)
def _search_delimiters() -> Any:
    """What separates SEARCH tokens (compiled when a query first uses SEARCH: its Unicode
    classes cost RE2 more than most filters)."""
    return re2.compile(r"[^\pL\pN_]+")


def _tokens(text: str) -> set[str]:
    return {token for token in _search_delimiters().split(text.lower()) if token}


def _search(query: str, get: Optional[Callable[[dict[str, Any]], Any]]) -> Predicate:
    """SEARCH: every query token is a whole token of the data; `backticked` phrases are substrings."""
    phrases: list[str] = []
    words: list[str] = []
    for index, piece in enumerate(query.split("`")):
        if index % 2:
            phrases.append(piece.lower())
        else:
            words.extend(_tokens(piece))
    wanted = set(words)

    def test(entry: dict[str, Any]) -> bool:
        scope = entry if get is None else get(entry)
        if scope is _MISSING:
            return False
        texts = [
            text.lower() for text in (_as_text(leaf) for leaf in _leaves(scope)) if text is not None
        ]
        if any(not any(phrase in text for text in texts) for phrase in phrases):
            return False
        if not wanted:
            return True
        found: set[str] = set()
        for text in texts:
            found.update(_tokens(text))
        return wanted <= found

    return test


# --- analysis for pre-filtering ----------------------------------------------------------------


def _resource_types(node: Node) -> Optional[frozenset[str]]:
    """Lower-cased resource types every match must have, or None when unconstrained."""
    if isinstance(node, Compare):
        if node.path == ("resource", "type") and node.op == "=":
            return frozenset({node.value.text.lower()})
        return None
    if isinstance(node, And):
        known = [t for t in (_resource_types(item) for item in node.items) if t is not None]
        return functools.reduce(frozenset.intersection, known) if known else None
    if isinstance(node, Or):
        options = [_resource_types(item) for item in node.items]
        if any(option is None for option in options):
            return None
        return frozenset().union(*options)  # type: ignore[arg-type]
    return None


def _time_bounds(node: Node) -> tuple[Optional[int], Optional[int]]:
    """Inclusive (low, high) nanosecond bounds on `timestamp` implied by the filter."""
    if isinstance(node, Compare) and node.path == ("timestamp",):
        instant = timestamp_ns(node.value.text)
        if node.op in (">", ">="):
            return instant, None
        if node.op in ("<", "<="):
            return None, instant
        if node.op == "=":
            return instant, instant
        return None, None
    if isinstance(node, And):
        lows, highs = zip(*(_time_bounds(item) for item in node.items))
        known_lows = [low for low in lows if low is not None]
        known_highs = [high for high in highs if high is not None]
        return (max(known_lows) if known_lows else None, min(known_highs) if known_highs else None)
    if isinstance(node, Or):
        lows, highs = zip(*(_time_bounds(item) for item in node.items))
        low = None if any(v is None for v in lows) else min(lows)  # type: ignore[type-var]
        high = None if any(v is None for v in highs) else max(highs)  # type: ignore[type-var]
        return low, high
    return None, None


def _insert_id_sample(node: Node) -> Optional[float]:
    """The smallest F of the `sample(insertId, F)` terms the filter ANDs in, if any."""
    if isinstance(node, Call) and node.name == "sample" and node.args[0] == ("insertId",):
        literal = node.args[1]
        return float(literal.text) if isinstance(literal, Literal) else None
    if isinstance(node, And):
        found = [f for f in (_insert_id_sample(item) for item in node.items) if f is not None]
        return min(found) if found else None
    return None


def _flat(node: Node, kind: type) -> list[Node]:
    """The items of nested `kind` (And or Or) nodes, one level deep in the result."""
    if isinstance(node, kind):
        return [leaf for item in node.items for leaf in _flat(item, kind)]  # type: ignore[union-attr]
    if isinstance(node, (And, Or)) and len(node.items) == 1:
        return _flat(node.items[0], kind)
    return [node]


Clause = tuple[tuple[str, ...], str]


@dataclass(frozen=True)
class Prefilter:
    """Necessary conditions of a filter, for indexes: every match satisfies each `equals`
    item (the field at `path` equals one of the lower-cased values, case-insensitively, as the
    language compares), at least one clause of each `patterns` item (`FIELD=~"regex"`) and one
    `log_id("…")` of each `logs` item (`log_test`)."""

    equals: tuple[tuple[tuple[str, ...], frozenset[str]], ...] = ()
    patterns: tuple[frozenset[Clause], ...] = ()
    logs: tuple[frozenset[str], ...] = ()


def log_test(log: str) -> Callable[[str], bool]:
    """Whether `log_id(log)` holds for an entry, from its `logName` (a string)."""
    encoded = "/logs/" + url_quote(log, safe="")

    def is_log(log_name: str) -> bool:
        return log_name.endswith(encoded) or url_unquote(log_name.rpartition("/logs/")[2]) == log

    return is_log


def _prefilter(node: Node) -> Prefilter:
    equals: list[tuple[tuple[str, ...], frozenset[str]]] = []
    patterns: list[frozenset[Clause]] = []
    logs: list[frozenset[str]] = []
    for item in _flat(node, And):
        options = _flat(item, Or)
        if all(isinstance(o, Call) and o.name == "log_id" for o in options):
            logs.append(frozenset(o.args[0].text for o in options))  # type: ignore[attr-defined]
            continue
        if not all(isinstance(option, Compare) for option in options):
            continue
        compares: list[Compare] = options  # type: ignore[assignment]
        if all(c.op == "=" for c in compares) and len({c.path for c in compares}) == 1:
            equals.append((compares[0].path, frozenset(c.value.text.lower() for c in compares)))
        elif all(c.op == "=~" for c in compares):
            patterns.append(frozenset((c.path, c.value.text) for c in compares))
    return Prefilter(tuple(equals), tuple(patterns), tuple(logs))


# --- public API ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filter:
    """A compiled filter. `matches(entry)` evaluates it; the rest helps pre-filtering."""

    text: str
    tree: Node
    matches: Predicate = field(repr=False, compare=False)
    resource_types: Optional[frozenset[str]] = None
    start_ns: Optional[int] = None
    end_ns: Optional[int] = None
    # The fraction of a `sample(insertId, F)` every match must pass (the smallest, when several).
    insert_id_sample: Optional[float] = None
    prefilter: Prefilter = field(default_factory=Prefilter)

    def __call__(self, entry: dict[str, Any]) -> bool:
        return self.matches(entry)


def _syntax_error(error: UnexpectedInput, text: str, where: str) -> BadInput:
    line, column = error.line, error.column
    if isinstance(error, UnexpectedEOF) or (
        isinstance(error, UnexpectedToken) and error.token.type == "$END"
    ):
        return BadInput(
            f"{where}: unexpected end of the query (an unclosed '(' or a missing value)"
        )
    if isinstance(error, UnexpectedCharacters):
        char = text[error.pos_in_stream] if error.pos_in_stream < len(text) else ""
        if char == '"':
            return BadInput(f"{where}:{line}:{column}: unterminated string (a '\"' is not closed)")
        hint = " (quote values holding special characters)" if char not in "\"'" else ""
        if char == "'":
            hint = " (strings use double quotes)"
        return BadInput(f"{where}:{line}:{column}: unexpected character {char!r}{hint}")
    token = getattr(error, "token", "")
    return BadInput(f"{where}:{line}:{column}: unexpected {str(token)!r} in the query")


def parse_tree(text: str) -> Tree:
    """lark's parse tree of a well-formed query (check it with `compile_filter` first): the
    token positions `mlwiki.logs.split` cuts the text at."""
    return _parser().parse(text)


def syntax_node(tree: Tree) -> Node:
    """Our syntax tree of a parse tree or of one of its subtrees (what two texts are compared by)."""
    return _build(tree, "filter")


def compile_filter(text: str, where: str = "filter") -> Filter:
    """Parse and compile a Logging query, once per distinct text whoever asks (the compiled
    filter does not depend on `where`). BadInput names `where`:line:column on any error."""
    try:
        return _compiled(text)
    except BadInput:
        _compile(text, where)  # raises the same error, naming `where`
        raise


@functools.lru_cache(maxsize=512)
def _compiled(text: str) -> Filter:
    return _compile(text, "filter")


def _compile(text: str, where: str) -> Filter:
    try:
        parse_tree = _parser().parse(text)
    except UnexpectedInput as error:
        raise _syntax_error(error, text, where) from None
    tree = _build(parse_tree, where)
    predicate = _Compiler(where).compile(tree)
    low, high = _time_bounds(tree)
    return Filter(
        text,
        tree,
        predicate,
        _resource_types(tree),
        low,
        high,
        insert_id_sample=_insert_id_sample(tree),
        prefilter=_prefilter(tree),
    )
