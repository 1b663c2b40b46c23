"""sed and awk programs are code: read them well enough to know they only filter text.

`sed_concern` scans each sed script command by command (addresses, `s` with its delimiter,
bracket expressions and flags, `y`, labels, text commands) and accepts only commands that print
or edit the stream; `w`/`W` and the `w` flag write files, `e` and the `e` flag run commands, and
any command or flag it does not know is a concern, as are `-i` (rewrites files) and `-f` (a
script from a file). `awk_concern` accepts an inline program without `system`, pipes,
redirections, `getline` or `@load`/`@include`, and only the options that do not load code or
write files. A concern means the guard asks; it never tries to fix a program.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from mlwiki.guard.options import UnknownOption, scan, switches, valued
from mlwiki.mutations import is_dynamic

_SED_OPTIONS = {
    **switches("-n --quiet --silent -E -r --regexp-extended -s --separate -u --unbuffered"),
    **switches("-z --null-data --posix --debug --sandbox -b --binary --follow-symlinks"),
    **valued("-e --expression -l --line-length"),
}
_SED_SIMPLE = frozenset("pdDqQ=lnNgGhHxPzF")
_SED_S_FLAGS = frozenset("gipImM0123456789")


def sed_concern(args: Sequence[str]) -> Optional[str]:
    for word in args:
        if word.split("=", 1)[0] in ("-i", "--in-place") or (
            word.startswith("-i") and not word.startswith("--")
        ):
            return "-i rewrites files in place"
        if word.split("=", 1)[0] in ("-f", "--file") or (
            word.startswith("-f") and not word.startswith("--")
        ):
            return "-f reads a script from a file"
    try:
        scanned = scan(args, _SED_OPTIONS)
    except UnknownOption as error:
        return f"option {error} is not known to the guard"
    scripts = scanned.values("-e", "--expression")
    if not scripts:
        if not scanned.operands:
            return None
        scripts = scanned.operands[:1]
    for script in scripts:
        if is_dynamic(script):
            return "runs a script computed at run time"
        concern = _sed_script_concern(script)
        if concern:
            return concern
    return None


def _sed_script_concern(script: str) -> Optional[str]:
    index, size = 0, len(script)
    while index < size:
        char = script[index]
        if char in " \t\n;":
            index += 1
            continue
        if char == "#":
            index = _line_end(script, index)
            continue
        index = _sed_address(script, index)
        if index < size and script[index] == ",":
            index = _sed_address(script, index + 1)
        while index < size and script[index] in " \t!":
            index += 1
        if index >= size:
            return None
        command = script[index]
        index += 1
        if command in "{}":
            continue
        if command in _SED_SIMPLE:
            while index < size and script[index].isdigit():
                index += 1
        elif command in ":btTv":
            index = _end_of_argument(script, index)
        elif command in "aic":
            index = _text_end(script, index)
        elif command in "rR":
            index = _line_end(script, index)  # reads a file into the output: a read
        elif command in "s":
            found = _sed_substitute(script, index)
            if isinstance(found, str):
                return found
            index = found
        elif command == "y":
            found = _delimited(script, index, parts=2)
            if found is None:
                return "has a y command the guard cannot read"
            index = found
        elif command in "wW":
            return f"{command} writes a file"
        elif command == "e":
            return "e runs a command"
        else:
            return f"command {command!r} is not one the guard knows"
    return None


def _sed_address(script: str, index: int) -> int:
    size = len(script)
    if index < size and script[index].isdigit():
        while index < size and (script[index].isdigit() or script[index] in "~+"):
            index += 1
    elif index < size and script[index] == "$":
        index += 1
    elif index < size and script[index] in "/\\":
        start = index + 1 if script[index] == "/" else index + 2
        delimiter = (
            "/" if script[index] == "/" else (script[index + 1] if index + 1 < size else "/")
        )
        end = _regex_end(script, start, delimiter)
        index = end + 1
        while index < size and script[index] in "IM":
            index += 1
    return index


def _regex_end(script: str, index: int, delimiter: str) -> int:
    """Index of the unescaped delimiter that ends a regex (bracket expressions skipped)."""
    size = len(script)
    while index < size:
        char = script[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index = _bracket_end(script, index)
            continue
        if char == delimiter:
            return index
        index += 1
    return size


def _bracket_end(script: str, index: int) -> int:
    size = len(script)
    index += 1
    if index < size and script[index] == "^":
        index += 1
    if index < size and script[index] == "]":
        index += 1
    while index < size and script[index] != "]":
        if script[index] == "[" and index + 1 < size and script[index + 1] in ".:=":
            close = script.find(script[index + 1] + "]", index + 2)
            index = size if close < 0 else close + 2
            continue
        index += 1
    return index + 1


def _sed_substitute(script: str, index: int) -> int | str:
    if index >= len(script):
        return "has an s command without a delimiter"
    delimiter = script[index]
    if delimiter in "\\\n":
        return "has an s command with an unusual delimiter"
    end = _regex_end(script, index + 1, delimiter)
    replacement = index = end + 1
    while index < len(script) and script[index] != delimiter:
        index += 2 if script[index] == "\\" else 1
    if index >= len(script) or replacement > len(script):
        return "has an unterminated s command"
    index += 1
    while index < len(script) and script[index] not in ";\n}":
        flag = script[index]
        if flag == "e":
            return "the s///e flag runs the result as a command"
        if flag == "w":
            return "the s///w flag writes a file"
        if flag not in _SED_S_FLAGS and flag not in " \t":
            return f"s flag {flag!r} is not one the guard knows"
        index += 1
    return index


def _delimited(script: str, index: int, parts: int) -> Optional[int]:
    if index >= len(script):
        return None
    delimiter = script[index]
    index += 1
    for _ in range(parts):
        while index < len(script) and script[index] != delimiter:
            index += 2 if script[index] == "\\" else 1
        if index >= len(script):
            return None
        index += 1
    return index


def _line_end(script: str, index: int) -> int:
    end = script.find("\n", index)
    return len(script) if end < 0 else end + 1


def _end_of_argument(script: str, index: int) -> int:
    while index < len(script) and script[index] not in ";\n":
        index += 1
    return index


def _text_end(script: str, index: int) -> int:
    """The end of an a/i/c text argument: the line, and the next ones while each ends with `\\`."""
    while True:
        end = _line_end(script, index)
        if end >= len(script) or not script[:end].rstrip("\n").endswith("\\"):
            return end
        index = end


_AWK_OPTIONS = {
    **valued("-F --field-separator -v --assign -e --source"),
    **switches("-b --characters-as-bytes -c --traditional -P --posix -r --re-interval -n"),
    **switches("--non-decimal-data -N --use-lc-numeric -S --sandbox -V --version -h --help"),
    **switches("-M --bignum -O --optimize -t --lint-old -g --gen-pot"),
}
_AWK_FORBIDDEN = ("system", "getline", "@")


def awk_concern(args: Sequence[str]) -> Optional[str]:
    try:
        scanned = scan(args, _AWK_OPTIONS)
    except UnknownOption as error:
        return f"option {error} may load code or write files"
    programs = scanned.values("-e", "--source") or scanned.operands[:1]
    for program in programs:
        if is_dynamic(program):
            return "runs a program computed at run time"
        code = _awk_code(program)
        for token in _AWK_FORBIDDEN:
            if token in code:
                return f"program uses {token!r} (commands or extensions)"
        if "|" in code.replace("||", ""):
            return "program pipes to or from a command"
        if _awk_redirects(code):
            return "program redirects print output to a file"
    return None


def _awk_code(program: str) -> str:
    """The program with its string literals blanked (a `>` or `|` in a string is text)."""
    out, quoted, index = [], False, 0
    while index < len(program):
        char = program[index]
        if quoted and char == "\\":
            out.append("  ")
            index += 2
            continue
        if char == '"':
            quoted = not quoted
            out.append('"')
        else:
            out.append(" " if quoted else char)
        index += 1
    return "".join(out)


def _awk_redirects(code: str) -> bool:
    """Whether a print/printf statement has a `>` outside parentheses (output to a file).

    In a pattern (`NR > 1`) or inside parentheses `>` compares; after `print` it redirects.
    """
    for statement in code.replace("}", ";").replace("{", ";").replace("\n", ";").split(";"):
        words = statement.split(None, 1)
        if not words or words[0] not in ("print", "printf"):
            continue
        depth = 0
        for char in statement:
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == ">" and depth <= 0:
                return True
    return False
