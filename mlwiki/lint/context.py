"""What the rules share: the loaded wiki and everything derived from it, each computed once."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Optional

import re2

from mlwiki.lint.markdown import Link, MarkdownDoc, Target, parse_many, resolve_link
from mlwiki.lint.model import Finding
from mlwiki.wiki import MESSAGE_FIELDS, SCHEMAS_DIR, LoadProblem, Page, Symptom, Wiki, read_text

_IGNORED_DIRS = {"__pycache__"}


def _quiet_options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would print every bad pattern to stderr
    return options


RE2_OPTIONS = _quiet_options()


def compile_re2(pattern: str) -> tuple[Any, Optional[str]]:
    """(compiled regex, None), or (None, why it does not compile under RE2)."""
    try:
        return re2.compile(pattern, options=RE2_OPTIONS), None
    except re2.error as error:
        reason = error.args[0] if error.args else "invalid pattern"
        return None, reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)


@dataclass(frozen=True)
class CompiledSignature:
    symptom: str
    pattern: str
    field: Optional[str]
    regex: Any  # re2._Regexp


@dataclass
class LintContext:
    wiki: Wiki
    # Files that failed to load (frontmatter or JSON): schema rules skip them, the load rules
    # already said what is wrong.
    extra_problems: list[LoadProblem] = field(default_factory=list)
    _resolved: dict[Path, list[tuple[Link, Optional[Target]]]] = field(default_factory=dict)
    _targets: dict[Path, tuple[bool, bool]] = field(default_factory=dict)
    _matches: dict[str, list[CompiledSignature]] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.wiki.root

    @property
    def schema_dir(self) -> Path:
        return self.wiki.root / SCHEMAS_DIR

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.wiki.repo_root).as_posix()
        except ValueError:
            return path.as_posix()

    def finding(self, path: Path, line: int, message: str, column: int = 0) -> Finding:
        return Finding(path, line, message, column)

    @cached_property
    def broken_files(self) -> set[Path]:
        return {p.file for p in self.wiki.problems if p.kind in ("frontmatter-missing", "yaml")}

    @cached_property
    def markdown_docs(self) -> dict[Path, MarkdownDoc]:
        """Every Markdown file of the wiki (pages and the top-level guides), parsed once."""
        jobs: dict[Path, tuple[str, int]] = {}
        page_paths = {page.path: page for page in self.wiki.pages.values()}
        for path in self.markdown_paths:
            page = page_paths.get(path)
            if page is not None:
                jobs[path] = (page.body, page.body_line)
                continue
            text, problem = read_text(path)
            if problem:
                self.extra_problems.append(problem)
            else:
                jobs[path] = (text or "", 1)
        return dict(zip(jobs, parse_many(list(jobs.values()))))

    @cached_property
    def markdown_paths(self) -> list[Path]:
        """Markdown files under the wiki, except hidden folders (the venv) and page duplicates."""
        pages = [page.path for page in self.wiki.pages.values()]
        others: list[Path] = []
        for path in sorted(self.root.glob("*.md")):
            others.append(path)
        examples = self.root / "examples"
        if examples.is_dir():
            others.extend(
                p
                for p in sorted(examples.rglob("*.md"))
                if not any(part.startswith(".") or part in _IGNORED_DIRS for part in p.parts)
            )
        return pages + [p for p in others if p.is_file()]

    def resolved_links(self, path: Path, doc: MarkdownDoc) -> list[tuple[Link, Optional[Target]]]:
        """The links of a Markdown file with where they point (None: external), resolved once."""
        resolved = self._resolved.get(path)
        if resolved is None:
            resolved = [(link, resolve_link(path, link.href)) for link in doc.links]
            self._resolved[path] = resolved
        return resolved

    def exists(self, path: Path) -> bool:
        return self._target(path)[1]

    def in_repository(self, path: Path) -> bool:
        return self._target(path)[0]

    def _target(self, path: Path) -> tuple[bool, bool]:
        """(inside the repository, exists) of a link target, looked up once per target."""
        known = self._targets.get(path)
        if known is None:
            inside = str(path).startswith(str(self.wiki.repo_root) + os.sep)
            known = self._targets[path] = (inside, inside and path.exists())
        return known

    @cached_property
    def page_by_path(self) -> dict[Path, Page]:
        return {page.path: page for page in self.wiki.pages.values()}

    @cached_property
    def signatures(self) -> list[CompiledSignature]:
        """Every signature of every symptom page that compiles under RE2, in wiki order."""
        return self._signature_filter[0]

    def re2_error(self, pattern: str) -> Optional[str]:
        """Why a signature's `pattern` does not compile under RE2 (None when it does)."""
        return self._signature_filter[2].get(pattern)

    @cached_property
    def _signature_filter(self) -> tuple[list[CompiledSignature], Any, dict[str, str]]:
        """(the signatures that compile, RE2's filter of them, each other pattern's error).

        Which signatures a line holds is asked of a FilteredRE2 (`re2.Filter`): each pattern
        is compiled once (the filter keeps the compiled regex, which the rules read too), the
        literal strings every match of it must contain are found, and a line is scanned once
        for all of them (an RE2 set of plain strings); only the patterns whose strings are all
        there (and those with none, a few) are then run on the line. The answer is exactly
        the patterns that match (the strings are a necessary condition; the regex decides).
        An RE2 set of all the patterns gives the same answer, but each new line builds new
        states of one automaton of hundreds of unanchored patterns: the lines of a lint are all
        different (examples), so it never warms up and costs ~1.5 ms a line against ~0.1 ms.
        """
        compiled: list[CompiledSignature] = []
        errors: dict[str, str] = {}
        matcher = re2.Filter()
        for symptom in self.wiki.symptoms.values():
            for signature in symptom.signatures:
                pattern = signature.pattern
                if pattern in errors:
                    continue
                try:
                    index = matcher.Add(pattern, RE2_OPTIONS)
                except re2.error:
                    errors[pattern] = compile_re2(pattern)[1] or "invalid pattern"
                    continue
                regex = matcher.re(index)
                compiled.append(CompiledSignature(symptom.id, pattern, signature.field, regex))
        if compiled:
            matcher.Compile()
        return compiled, matcher, errors

    def matching_signatures(self, line: str) -> list[CompiledSignature]:
        """Every signature (of any page) found in `line`, in wiki order — as the matcher sees
        it: a catch-all (`generic`) page's signatures drop out when a specific page that
        explains them matches (`mlwiki.diagnose.signatures`: a root or cascade anywhere in the
        text, a symptom or consequence on a line the catch-all matches too)."""
        found = self._matches.get(line)
        if found is None:
            signatures, matcher, _ = self._signature_filter
            hits = sorted(matcher.Match(line) or ()) if signatures else []
            found = [signatures[i] for i in hits]
            if any(self._explains(s, found, line) for s in found):
                found = [s for s in found if s.symptom not in self.generic_pages]
            self._matches[line] = found
        return found

    def _explains(
        self, signature: CompiledSignature, found: list[CompiledSignature], text: str
    ) -> bool:
        if signature.symptom in self.generic_pages:
            return False
        if self.wiki.symptoms[signature.symptom].explains_catch_all or "\n" not in text:
            return True
        catch_all = [s for s in found if s.symptom in self.generic_pages]
        return any(
            signature.regex.search(part) and any(s.regex.search(part) for s in catch_all)
            for part in text.split("\n")
        )

    @cached_property
    def generic_pages(self) -> frozenset[str]:
        return frozenset(s.id for s in self.wiki.symptoms.values() if s.generic)

    def own_signatures(self, symptom: Symptom) -> list[CompiledSignature]:
        return self._signatures_by_symptom.get(symptom.id, [])

    @cached_property
    def _signatures_by_symptom(self) -> dict[str, list[CompiledSignature]]:
        grouped: dict[str, list[CompiledSignature]] = {}
        for signature in self.signatures:
            grouped.setdefault(signature.symptom, []).append(signature)
        return grouped


def applies_to(signature_field: Optional[str], example_field: Optional[str]) -> bool:
    """Whether a signature looks at the text where an example line was found.

    A signature without `field` searches the message text; so does one naming a message field.
    An example with `field` was found in that field: signatures with that field or none apply.
    """
    if example_field is None:
        return signature_field is None or signature_field in MESSAGE_FIELDS
    return signature_field is None or signature_field == example_field
