"""A Logging query too long for Cloud Logging, as several that together select the same entries.

Cloud Logging refuses a filter over 20,000 characters (`mlwiki.logs.plan.MAX_FILTER_CHARS`),
and a workflow step's filter grows with the wiki: `symptom_match()` writes each page's
signatures into it. The diagnosis' own plan packs its patterns under the limit
(`plan.pack_text_filters`); a step's filter is the wiki author's, so it is cut by one rule of
logic instead: AND distributes over OR, so `A AND B AND (d1 OR d2 OR … OR dn)` selects exactly
what `(A AND B AND (d1 OR … OR dk)) OR (A AND B AND (dk+1 OR …))` selects. The longest
top-level OR is cut, in order, into runs of its disjuncts, each run sent with every other
conjunct; an OR nested in it (a page's clauses in parentheses inside the OR of pages) is
flattened first, OR being associative. Precedence is the grammar's (`lql.lark`): OR binds
tighter than AND, so the conjuncts and disjuncts are read off the parse tree, never off the text.

Only slices of the query's own text move, each inside parentheses, so no value is re-written or
re-quoted; each slice is checked to parse back to the syntax tree it was cut from. A query with
no OR to cut, or whose parts cannot fit (one disjunct too long with the rest), is a BadInput.
"""

from __future__ import annotations

from collections.abc import Iterator

from lark import Token, Tree

from mlwiki.errors import BadInput
from mlwiki.logs.query import compile_filter, parse_tree, syntax_node

_CONJUNCTIONS = ("expr", "seq")
_DISJUNCTION = "factor"
JOIN_AND = " AND "
JOIN_OR = " OR "


def split_filter(text: str, limit: int, where: str = "filter") -> list[str]:
    """`text` itself when it fits in `limit` characters, else filters whose union selects what
    `text` selects, each at most `limit` characters (the disjuncts packed in order, greedily)."""
    if len(text) <= limit:
        return [text]
    compile_filter(text, where)  # a malformed query is its own error, named as usual
    root = parse_tree(text)
    top = root.children[0] if root.children else None
    conjuncts = list(_flatten(top, _CONJUNCTIONS)) if isinstance(top, Tree) else []
    ors = [c for c in conjuncts if isinstance(c, Tree) and c.data == _DISJUNCTION]
    if not ors:
        raise BadInput(
            f"{where}: {len(text):,} characters, over the limit of {limit:,}, and no OR to "
            "split it at: shorten it"
        )
    cut = max(ors, key=lambda node: len(_slice(text, node, where)))
    rest = JOIN_AND.join(f"({_slice(text, c, where)})" for c in conjuncts if c is not cut)
    frame = f"{rest}{JOIN_AND}(" if rest else "("
    room = limit - len(frame) - 1
    parts: list[list[str]] = [[]]
    size = 0
    for disjunct in _flatten(cut, (_DISJUNCTION,)):
        piece = f"({_slice(text, disjunct, where)})"
        extra = len(piece) + (len(JOIN_OR) if parts[-1] else 0)
        if parts[-1] and size + extra > room:
            parts.append([])
            size, extra = 0, len(piece)
        if extra > room:
            raise BadInput(
                f"{where}: one alternative of its longest OR takes {len(piece):,} characters "
                f"with the rest of the query {len(frame) + 1:,}, over the limit of {limit:,}: "
                "shorten it"
            )
        parts[-1].append(piece)
        size += extra
    return [f"{frame}{JOIN_OR.join(run)})" for run in parts]


def _flatten(node: object, kinds: tuple[str, ...]) -> Iterator[object]:
    """The items of an AND (kinds `_CONJUNCTIONS`) or OR (`_DISJUNCTION`) node, nested ones of
    the same kind opened, the keyword tokens left out."""
    if isinstance(node, Tree) and node.data in kinds:
        for child in node.children:
            if not isinstance(child, Token) or child.type not in ("AND", "OR"):
                yield from _flatten(child, kinds)
    else:
        yield node


def _slice(text: str, node: object, where: str) -> str:
    """The text of `node`, with the parentheses its first or last token stands inside of (which
    the parse tree drops), checked to parse back to the same syntax tree."""
    tokens = [node] if isinstance(node, Token) else list(_tokens(node))
    start, end = tokens[0].start_pos, tokens[-1].end_pos
    depth = lowest = 0
    for char in _outside_strings(text[start:end]):
        depth += {"(": 1, ")": -1}.get(char, 0)
        lowest = min(lowest, depth)
    start = _reach(text, start, -1, -lowest, "(", where)
    end = _reach(text, end, 1, depth - lowest, ")", where)
    piece = text[start:end]
    if isinstance(node, Tree) and syntax_node(parse_tree(piece)) != syntax_node(node):
        raise BadInput(f"{where}: a part of it does not parse back alone: {piece[:80]!r}")
    return piece


def _outside_strings(text: str) -> Iterator[str]:
    """The characters of `text` outside its quoted strings and `--` comments."""
    quoted = escaped = comment = False
    previous = ""
    for char in text:
        if comment:
            comment = char != "\n"
        elif quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char == "-" and previous == "-":
            comment = True
        else:
            yield char
        previous = char


def _reach(text: str, position: int, step: int, count: int, paren: str, where: str) -> int:
    """`position` moved over `count` parentheses `paren` (and the blanks between them)."""
    while count:
        probe = position if step > 0 else position - 1
        if 0 <= probe < len(text) and text[probe].isspace():
            position += step
            continue
        if not (0 <= probe < len(text)) or text[probe] != paren:
            raise BadInput(
                f"{where}: cannot cut it into parts (a comment or an unbalanced "
                "parenthesis next to an alternative): shorten it"
            )
        position += step
        count -= 1
    return position


def _tokens(tree: Tree) -> Iterator[Token]:
    for child in tree.children:
        if isinstance(child, Token):
            yield child
        else:
            yield from _tokens(child)
