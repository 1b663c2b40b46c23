"""Shell text → every command it would run, read with tree-sitter-bash (a real bash grammar).

`analyse` parses the text and walks the whole tree — lists, pipelines, subshells, groups,
if/while/for/case bodies, function bodies (a function may shadow any program, so its body is
judged as if it ran), command and process substitutions anywhere (in arguments, strings,
assignments, redirections, here-doc bodies, `${x:-$(…)}`), here-documents and here-strings. For
each simple command it yields an `Invocation`: its words, each either its exact literal value
(quotes and backslashes removed as bash removes them) or `DYNAMIC` when bash computes it at run
time (variables, substitutions, globs, brace expansion, ANSI-C and locale strings), plus its
`NAME=value` prefixes and the files its redirections write.

What cannot be judged becomes a `concern` (the caller asks): text tree-sitter cannot parse,
constructs it does not model, arithmetic on variables (bash evaluates `a[$(cmd)]` inside a
variable's value in `$((…))`, `((…))`, `[[ … -eq … ]]`, array subscripts and `declare -i`),
prompt expansion `${x@P}`, backquotes in a here-document (tree-sitter leaves them as text), and
text beyond the size and node budgets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from mlwiki.mutations import DYNAMIC

MAX_CHARS = 100_000  # longer command lines ask
MAX_NODES = 200_000  # more syntax nodes than this ask

_GLOB = frozenset("*?[")
# `{a,b}` or `{1..3}` in an unquoted word: bash expands it into several words.
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_ARITHMETIC_LITERALS = frozenset({"number", "binary_expression", "unary_expression", "parenthesized_expression", "ternary_expression", "postfix_expression"})  # fmt: skip
_TEST_ARITHMETIC = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_WRITE_OPERATORS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_DUP_OPERATORS = frozenset({">&", "<&"})
# Node types walked for the commands inside them, with nothing else to judge.
_CONTAINERS = frozenset(
    {
        "program", "list", "pipeline", "subshell", "do_group", "if_statement", "elif_clause",
        "else_clause", "while_statement", "negated_command", "case_statement",
    }
)  # fmt: skip


@dataclass
class Invocation:
    argv: list[str]
    assignments: list[tuple[str, str]] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    start: int = 0  # byte offset in the text


@dataclass
class Analysis:
    invocations: list[Invocation] = field(default_factory=list)
    assignments: list[tuple[str, str]] = field(default_factory=list)  # not a command's prefix
    writes: list[str] = field(default_factory=list)  # redirections of compound commands
    concerns: list[str] = field(default_factory=list)
    # Functions defined unconditionally (a statement of the script itself), by name → the
    # offset where the definition ends: a later call runs the function, whose body is judged.
    functions: dict[str, int] = field(default_factory=dict)

    def calls_function(self, invocation: Invocation) -> bool:
        name = invocation.argv[0] if invocation.argv else ""
        end = self.functions.get(name)
        return end is not None and end <= invocation.start


_PARSER: Any = None


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        _PARSER = Parser(Language(tree_sitter_bash.language()))
    return _PARSER


def analyse(text: str) -> Analysis:
    """Every command `text` would run, and what could not be judged."""
    analysis = Analysis()
    if len(text) > MAX_CHARS:
        analysis.concerns.append(f"the command is longer than {MAX_CHARS} characters")
        return analysis
    if "\0" in text:
        analysis.concerns.append("the command contains a NUL character")
        return analysis
    tree = _parser().parse(text.encode("utf-8", "surrogatepass"))
    if tree.root_node.has_error:
        analysis.concerns.append(
            "the shell text cannot be parsed (a syntax error or an unsupported construct)"
        )
        return analysis
    _Walker(analysis).walk(tree.root_node)
    return analysis


class _Walker:
    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.nodes = 0
        self.pending: list[Any] = []  # nodes still to walk (an explicit stack: no recursion limit)

    def concern(self, reason: str) -> None:
        if reason not in self.analysis.concerns:
            self.analysis.concerns.append(reason)

    def walk(self, root: Any) -> None:
        self.pending.append(root)
        while self.pending:
            node = self.pending.pop()
            self.nodes += 1
            if self.nodes > MAX_NODES:
                self.concern(f"the command has more than {MAX_NODES} syntax nodes")
                return
            self.statement(node)

    def children(self, node: Any) -> None:
        self.pending.extend(reversed(node.named_children))

    def statement(self, node: Any) -> None:
        kind = node.type
        if kind == "comment":
            return
        if kind in _CONTAINERS:
            self.children(node)
        elif kind == "command":
            self.command(node)
        elif kind == "redirected_statement":
            for field_name, child in _fields(node):
                if field_name == "redirect":
                    self.redirect(child, self.analysis.writes)
                else:
                    self.pending.append(child)
        elif kind == "compound_statement":
            if node.children and node.children[0].type == "((":
                self.arithmetic(node)
            else:
                self.children(node)
        elif kind == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None and node.parent is not None and node.parent.type == "program":
                self.analysis.functions.setdefault(_text(name), node.end_byte)
            body = node.child_by_field_name("body")
            if body is not None:
                self.pending.append(body)
        elif kind in ("variable_assignment", "variable_assignments"):
            self.assignments(node, self.analysis.assignments)
        elif kind == "declaration_command":
            self.declaration(node)
        elif kind == "unset_command":
            for child in node.named_children:
                self.value(child)
        elif kind == "for_statement":
            for child in node.named_children:
                if child.type in ("do_group", "compound_statement"):
                    self.pending.append(child)
                elif child.type != "variable_name":
                    self.value(child)
        elif kind == "case_item":
            for field_name, child in _fields(node):
                if field_name == "value":
                    self.value(child)
                else:
                    self.pending.append(child)
        elif kind == "test_command":
            self.test(node)
        elif kind == "c_style_for_statement":
            self.concern("a C-style for loop evaluates arithmetic")
            self.children(node)
        elif kind in (
            "word",
            "string",
            "raw_string",
            "concatenation",
            "simple_expansion",
            "expansion",
            "number",
        ):
            self.value(node)  # e.g. the subject of `case WORD in`
        else:
            self.concern(f"unsupported shell construct: {kind}")

    def command(self, node: Any) -> None:
        invocation = Invocation([], start=node.start_byte)
        for field_name, child in _fields(node):
            if child.type == "variable_assignment":
                self.assignments(child, invocation.assignments)
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                self.redirect(child, invocation.writes)
            elif field_name == "name":
                word = child.named_children[0] if child.named_children else child
                invocation.argv.append(self.value(word))
            elif field_name == "argument" or child.type in _WORDS:
                invocation.argv.append(self.value(child))
            else:
                self.concern(f"unsupported part of a command: {child.type}")
        if invocation.argv:
            self.analysis.invocations.append(invocation)
        elif invocation.assignments:
            self.analysis.assignments.extend(invocation.assignments)
        if invocation.writes and not invocation.argv:
            self.analysis.writes.extend(invocation.writes)

    def assignments(self, node: Any, into: list[tuple[str, str]]) -> None:
        if node.type == "variable_assignments":
            for child in node.named_children:
                self.assignments(child, into)
            return
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            self.concern("an assignment without a name")
            return
        if name_node.type == "subscript":
            self.subscript(name_node)
        name = _text(name_node).split("[", 1)[0]
        value = "" if value_node is None else self.value(value_node)
        into.append((name, value))

    def declaration(self, node: Any) -> None:
        keyword = node.children[0].type if node.children else ""
        flags = [_text(c) for c in node.named_children if c.type == "word" and _text(c)[:1] in "-+"]
        exported = keyword == "export" or any("x" in flag for flag in flags)
        if any("i" in flag[1:] for flag in flags):
            self.concern(f"{keyword} -i evaluates values as arithmetic")
        if any("n" in flag[1:] for flag in flags):
            self.concern(f"{keyword} -n makes a name refer to another variable (PATH, …)")
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assignments(child, self.analysis.assignments)
            elif child.type == "variable_name":
                if exported:  # `export PATH`: exports whatever the variable holds now
                    self.analysis.assignments.append((_text(child), DYNAMIC))
            else:
                self.value(child)

    def redirect(self, node: Any, writes: list[str]) -> None:
        if node.type == "heredoc_redirect":
            for child in node.named_children:
                if child.type == "heredoc_body":
                    self.heredoc_body(node, child)
                elif child.type not in ("heredoc_start", "heredoc_end"):
                    self.pending.append(child)  # e.g. `<<EOF | bash`: the rest of the pipeline
            return
        if node.type == "herestring_redirect":
            for child in node.named_children:
                self.value(child)
            return
        operator = next((c.type for c in node.children if not c.is_named), "")
        destination = node.child_by_field_name("destination")
        if destination is not None and destination.type == "process_substitution":
            self.children(destination)  # `> >(cmd)`: writes into a pipe to cmd, judged itself
            return
        target = DYNAMIC if destination is None else self.value(destination)
        if target.startswith(("/dev/tcp/", "/dev/udp/")):
            self.concern(f"a redirection to {target} opens a network connection")
            return
        if operator in _DUP_OPERATORS and target != DYNAMIC and (target.isdigit() or target == "-"):
            return  # `2>&1`, `>&-`: duplicates or closes a descriptor
        if operator in _WRITE_OPERATORS or operator in (">&", "&>"):
            writes.append(target)  # `>&FILE` writes FILE, like `&>FILE`
        elif operator != "<" and operator != "<&":
            self.concern(f"unsupported redirection {operator!r}")

    def heredoc_body(self, redirect: Any, body: Any) -> None:
        start = next((c for c in redirect.named_children if c.type == "heredoc_start"), None)
        if start is not None and any(q in _text(start) for q in "'\"\\"):
            return  # `<<'EOF'`: the body is literal text
        unparsed = _text(body)
        for child in body.named_children:
            if child.type != "heredoc_content":
                self.value(child)
                unparsed = unparsed.replace(_text(child), "", 1)
        # Whatever tree-sitter left as plain text must not hold an expansion bash would run
        # (backquotes and, after `<<-`, every `$(…)` stay text in its tree).
        if any(token in unparsed for token in ("`", "$(", "${", "$[")):
            self.concern("a here-document has an expansion this parser did not read")

    def test(self, node: Any) -> None:
        # `[[ … -eq … ]]` evaluates its operands as arithmetic; the `[`/`test` builtin does not.
        double = bool(node.children) and node.children[0].type == "[["
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            if child.type in ("binary_expression", "unary_expression", "parenthesized_expression"):
                operator = child.child_by_field_name("operator")
                operands = [c for c in child.named_children if c.type != "test_operator"]
                arithmetic = operator is not None and _text(operator) in _TEST_ARITHMETIC
                if double and arithmetic and not all(_is_number(side) for side in operands):
                    self.concern(
                        f"[[ … {_text(operator)} … ]] evaluates its operands as arithmetic"
                    )
                stack.extend(c for c in child.named_children if c.type != "test_operator")
            elif child.type in ("test_operator", "regex", "extglob_pattern"):
                continue
            else:
                self.value(child)

    def arithmetic(self, node: Any) -> None:
        if not _literal_arithmetic(node):
            self.concern("arithmetic on variables can run commands hidden in their values")
        for child in node.named_children:
            self._substitutions(child)

    def subscript(self, node: Any) -> None:
        index = node.child_by_field_name("index")
        if index is not None and not _is_number(index):
            self.concern("an array subscript is evaluated as arithmetic")
            self._substitutions(index)

    def _substitutions(self, node: Any) -> None:
        """Queue every command substitution inside `node` (its value does not matter)."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type in ("command_substitution", "process_substitution"):
                self.children(current)
            else:
                stack.extend(current.named_children)

    def value(self, node: Any) -> str:
        """The word's literal value, or DYNAMIC; substitutions inside are queued for judging."""
        kind = node.type
        if kind == "word":
            return _word_value(_text(node))
        if kind == "number":
            return _text(node)
        if kind == "raw_string":
            return _text(node)[1:-1]
        if kind == "string":
            parts = []
            for child in node.named_children:
                if child.type == "string_content":
                    parts.append(_unescape_double(_text(child)))
                else:
                    parts.append(self.value(child))
            return _join(parts)
        if kind == "concatenation":
            parts = [self.value(child) for child in node.named_children]
            raw = "".join(_text(c) if c.type == "word" else "\1" for c in node.named_children)
            if _BRACE.search(raw):
                return DYNAMIC
            return _join(parts)
        if kind in ("command_substitution", "process_substitution"):
            self.children(node)
            return DYNAMIC
        if kind in ("simple_expansion", "expansion"):
            self.expansion(node)
            return DYNAMIC
        if kind == "arithmetic_expansion":
            self.arithmetic(node)
            return DYNAMIC
        if kind in (
            "ansi_c_string",
            "translated_string",
            "brace_expression",
            "array",
            "extglob_pattern",
        ):
            self._substitutions(node)
            return DYNAMIC
        self.concern(f"unsupported word: {kind}")
        return DYNAMIC

    def expansion(self, node: Any) -> None:
        text = _text(node)
        if "@P" in text:
            self.concern("${…@P} expands a prompt string, which can run commands")
        for child in node.named_children:
            if child.type == "subscript":
                self.subscript(child)
            elif child.type in ("variable_name", "special_variable_name"):
                continue
            else:
                self._substitutions(child)


_WORDS = frozenset(
    {
        "word", "string", "raw_string", "concatenation", "simple_expansion", "expansion",
        "command_substitution", "process_substitution", "arithmetic_expansion", "number",
        "ansi_c_string", "translated_string", "brace_expression",
    }
)  # fmt: skip


def _fields(node: Any) -> list[tuple[Optional[str], Any]]:
    """A node's named children with the grammar field each one fills (None when none)."""
    return [
        (node.field_name_for_child(position), child)
        for position, child in enumerate(node.children)
        if child.is_named
    ]


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "surrogateescape")


def _join(parts: list[str]) -> str:
    return DYNAMIC if any(part == DYNAMIC for part in parts) else "".join(parts)


def _is_number(node: Any) -> bool:
    return node.type == "number" or (node.type == "word" and _text(node).isdigit())


def _literal_arithmetic(node: Any) -> bool:
    stack = list(node.named_children)
    while stack:
        child = stack.pop()
        if child.type not in _ARITHMETIC_LITERALS:
            return False
        stack.extend(c for c in child.named_children)
    return True


def _word_value(text: str) -> str:
    """An unquoted word's value: backslashes removed; a glob or brace expansion is DYNAMIC."""
    if _BRACE.search(_strip_escaped(text)):
        return DYNAMIC
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            if text[index + 1] != "\n":
                out.append(text[index + 1])
            index += 2
            continue
        if char in _GLOB:
            return DYNAMIC
        out.append(char)
        index += 1
    return "".join(out)


def _strip_escaped(text: str) -> str:
    return re.sub(r"\\.", "\1", text)


def _unescape_double(text: str) -> str:
    """Inside double quotes a backslash only escapes $, `, ", \\ and a newline."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] in '$`"\\\n':
            if text[index + 1] != "\n":
                out.append(text[index + 1])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def parser_available() -> Optional[str]:
    """None when tree-sitter-bash can be loaded, else why not."""
    try:
        _parser()
    except Exception as error:  # ImportError, or an ABI mismatch between the wheels
        return f"the shell parser (tree-sitter-bash) cannot be loaded: {error}"
    return None
