"""Load the wiki — pages, actions, workflows — into typed objects with file and line positions.

Loading never raises on a bad file: every problem becomes a `LoadProblem` that the linter reports
and the other commands can show. Only a missing wiki root is an error (`WikiNotFound`). A page's
frontmatter is parsed once per distinct text: later commands take the parse from the user's
cache (`mlwiki.wiki_cache`, keyed by the text's SHA-256), and import no YAML at all.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Optional

from mlwiki.errors import BadInput, WikiNotFound
from mlwiki.wiki_cache import FrontmatterCache

WIKI_DIR_NAME = "_wiki"
PAGE_FOLDERS = {
    "concepts": "concept",
    "entities": "entity",
    "symptoms": "symptom",
    "playbooks": "playbook",
    "tools": "tool",
}
ACTIONS_DIR = "actions"
WORKFLOWS_DIR = "workflows"
SCHEMAS_DIR = "schemas"
ENV_WIKI = "MLWIKI_WIKI"

# Text the matcher looks at when a signature names no field (DESIGN.md, "Match").
# Roles whose match explains a catch-all page's match anywhere in its text (`Symptom.explains_catch_all`).
EXPLAINING_ROLES = frozenset({"root", "cascade"})
MESSAGE_FIELDS = (
    "textPayload",
    "jsonPayload.message",
    "jsonPayload.MESSAGE",
    "protoPayload.methodName",
    "protoPayload.status.message",
    # zap/logr and klog's JSON format (Kubernetes controllers: JobSet, Kueue, controller-runtime)
    # put the text in `msg` and the error in `error` (zap, logr) or `err` (klog ErrorS).
    "jsonPayload.msg",
    "jsonPayload.error",
    "jsonPayload.err",
)


@dataclass(frozen=True)
class LoadProblem:
    """A file that could not be read or parsed. `kind` is a short stable word the linter maps."""

    kind: str
    file: Path
    line: int
    message: str
    column: int = 0


@dataclass(frozen=True)
class Signature:
    pattern: str
    field: Optional[str] = None
    note: Optional[str] = None


@dataclass(frozen=True)
class Example:
    line: str
    source: str = ""
    field: Optional[str] = None


@dataclass(frozen=True)
class CounterExample:
    line: str
    source: str = ""
    belongs_to: tuple[str, ...] = ()  # the pages whose real line this look-alike is


@dataclass
class Page:
    id: str
    type: str
    path: Path
    meta: dict[str, Any]
    body: str
    body_line: int  # 1-based line number in the file where the body starts
    frontmatter_text: str = ""

    @property
    def title(self) -> str:
        return str(self.meta.get("title", self.id))

    @property
    def summary(self) -> str:
        return str(self.meta.get("summary", ""))

    def line_of(self, key: str) -> int:
        """The 1-based line of a top-level frontmatter key, or 1 when it is not found."""
        for offset, text in enumerate(self.frontmatter_text.splitlines()):
            if text.startswith(f"{key}:"):
                return offset + 2  # +1 for 1-based, +1 for the opening '---'
        return 1


@dataclass
class Symptom:
    """A symptom page seen as the matcher and the diagnosis see it."""

    page: Page

    @property
    def id(self) -> str:
        return self.page.id

    @property
    def role(self) -> str:
        return str(self.page.meta.get("role", "symptom"))

    @property
    def layer(self) -> str:
        return str(self.page.meta.get("layer", "application"))

    @property
    def workflow(self) -> Optional[str]:
        return self.page.meta.get("workflow")

    @property
    def failure_kind(self) -> Optional[str]:
        return self.page.meta.get("failure_kind")

    @property
    def generic(self) -> bool:
        """A catch-all page (an uncaught exception, a fatal abort): where a more specific page
        that explains it matches too (`explains_catch_all`), that page names the cause and this
        match is dropped."""
        return self.page.meta.get("generic") is True

    @property
    def explains_catch_all(self) -> bool:
        """Its match explains a catch-all match from anywhere in the same text or record: a root
        names the cause, a cascade says the failure was another task's. A symptom or a
        consequence reports the failure's effect (an exit-code summary, a status row) and
        explains a catch-all only on a line the catch-all matches too
        (`mlwiki.diagnose.signatures`)."""
        return self.role in EXPLAINING_ROLES

    @property
    def reporter(self) -> bool:
        """Its lines are printed by a healthy host about other hosts (a Megascale digest, a
        session master): the culprits are the hosts they name, never the printer."""
        return self.page.meta.get("reporter") is True

    @cached_property
    def signatures(self) -> list[Signature]:
        return [
            Signature(s["pattern"], s.get("field"), s.get("note"))
            for s in self.page.meta.get("signatures") or []
            if isinstance(s, dict) and isinstance(s.get("pattern"), str)
        ]

    @cached_property
    def examples(self) -> list[Example]:
        return [
            Example(e["line"], e.get("source", ""), e.get("field"))
            for e in self.page.meta.get("examples") or []
            if isinstance(e, dict) and isinstance(e.get("line"), str)
        ]

    @cached_property
    def counter_examples(self) -> list[CounterExample]:
        return [
            CounterExample(e["line"], e.get("source", ""), _ids(e.get("belongs_to")))
            for e in self.page.meta.get("counter_examples") or []
            if isinstance(e, dict) and isinstance(e.get("line"), str)
        ]

    @property
    def remedies(self) -> list[dict[str, Any]]:
        return [r for r in self.page.meta.get("remedies") or [] if isinstance(r, dict)]


def _ids(value: Any) -> tuple[str, ...]:
    """A page id or a list of them (frontmatter `belongs_to`) as a tuple."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return ()


@dataclass
class JsonDoc:
    """An action or workflow file: its parsed data and where it came from."""

    id: str
    path: Path
    data: dict[str, Any]
    text: str

    @property
    def title(self) -> str:
        return str(self.data.get("title", self.id))

    @property
    def summary(self) -> str:
        """The one line INDEX.md shows: the title."""
        return str(self.data.get("title", ""))

    @property
    def params(self) -> dict[str, dict[str, Any]]:
        params = self.data.get("params") or {}
        return params if isinstance(params, dict) else {}

    def line_of(self, key: str) -> int:
        """The 1-based line where `"key":` first appears, or 1."""
        needle = f'"{key}"'
        for number, text in enumerate(self.text.splitlines(), start=1):
            if needle in text:
                return number
        return 1


@dataclass
class Action(JsonDoc):
    @property
    def kind(self) -> str:
        return str(self.data.get("kind", ""))

    @property
    def command(self) -> list[str]:
        command = self.data.get("command") or []
        return list(command) if isinstance(command, list) else []

    @property
    def filter(self) -> Optional[str]:
        return self.data.get("filter")

    @property
    def requires_approval(self) -> bool:
        return self.data.get("requires_approval") is True


@dataclass
class Workflow(JsonDoc):
    @property
    def steps(self) -> list[dict[str, Any]]:
        steps = self.data.get("steps") or []
        return [s for s in steps if isinstance(s, dict)] if isinstance(steps, list) else []

    @property
    def symptom(self) -> Optional[str]:
        return self.data.get("symptom")


@dataclass
class Wiki:
    root: Path  # the _wiki directory
    pages: dict[str, Page] = field(default_factory=dict)
    actions: dict[str, Action] = field(default_factory=dict)
    workflows: dict[str, Workflow] = field(default_factory=dict)
    problems: list[LoadProblem] = field(default_factory=list)
    duplicates: list[tuple[str, Path, Path]] = field(default_factory=list)
    checked: set[str] = field(default_factory=set)  # documents found usable (wiki_check)

    @property
    def repo_root(self) -> Path:
        return self.root.parent

    @cached_property
    def symptoms(self) -> dict[str, Symptom]:
        return {pid: Symptom(p) for pid, p in self.pages.items() if p.type == "symptom"}

    def pages_of_type(self, page_type: str) -> list[Page]:
        return [p for p in self.pages.values() if p.type == page_type]

    def action(self, action_id: str) -> Action:
        """The action `action_id`, checked usable (`mlwiki.wiki_check`); else BadInput naming
        its file's problem, or the id with close matches."""
        return self._usable("action", self.actions, str(action_id), ACTIONS_DIR)

    def workflow(self, workflow_id: str) -> Workflow:
        """The workflow `workflow_id`, checked usable with every action it uses (see `action`)."""
        return self._usable("workflow", self.workflows, str(workflow_id), WORKFLOWS_DIR)

    def _usable(self, kind: str, table: dict[str, Any], doc_id: str, folder: str) -> Any:
        from mlwiki import wiki_check

        if doc_id not in table:
            problem = wiki_check.load_problem(self, folder, doc_id)
            if problem is not None:
                wiki_check.raise_load_problem(problem)
        doc = _lookup(kind, table, doc_id, self.root / folder)
        wiki_check.check_json_doc(self, doc, kind)
        return doc


def _lookup(kind: str, table: dict[str, Any], doc_id: str, folder: Path) -> Any:
    found = table.get(doc_id)
    if found is None:
        import difflib  # only for this message

        close = difflib.get_close_matches(doc_id, list(table), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise BadInput(f"{kind} {doc_id!r}: no such {kind} in {folder}{hint}")
    return found


def find_wiki_root(
    start: Optional[os.PathLike[str] | str] = None, explicit: Optional[str] = None
) -> Path:
    """Find the `_wiki` directory: --wiki, else $MLWIKI_WIKI, else from `start` upward like git.

    An explicit path may name the `_wiki` directory itself or the repository holding it.
    """
    given = explicit or os.environ.get(ENV_WIKI)
    if given:
        path = Path(given).expanduser().resolve()
        for candidate in (path, path / WIKI_DIR_NAME):
            if _is_wiki_dir(candidate):
                return candidate
        origin = "--wiki" if explicit else ENV_WIKI
        raise WikiNotFound(f"{origin}: {given} is not a wiki (no {WIKI_DIR_NAME}/schemas/ there)")
    here = Path(start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        for candidate in (directory, directory / WIKI_DIR_NAME):
            if _is_wiki_dir(candidate):
                return candidate
    raise WikiNotFound(
        f"no {WIKI_DIR_NAME}/ found in {here} or any parent; run inside the repository "
        f"or pass --wiki DIR (or set {ENV_WIKI})"
    )


def _is_wiki_dir(path: Path) -> bool:
    return path.name == WIKI_DIR_NAME and (path / SCHEMAS_DIR).is_dir()


def read_text(path: Path) -> tuple[Optional[str], Optional[LoadProblem]]:
    """Read a UTF-8 text file; unreadable, binary and non-UTF-8 files become a problem."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        return None, LoadProblem(
            "unreadable", path, 0, f"cannot read file: {error.strerror or error}"
        )
    if b"\x00" in raw:
        return None, LoadProblem("binary", path, 0, "binary file (contains NUL bytes)")
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        return None, LoadProblem("encoding", path, line, f"not valid UTF-8 at byte {error.start}")


def _parse_yaml(front: str) -> Any:
    """The frontmatter's YAML (PyYAML is imported only when a page is not in the cache)."""
    import yaml

    try:  # libyaml's loader builds the same objects as SafeLoader, ten times faster
        loader = yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - PyYAML built without libyaml
        loader = yaml.SafeLoader
    return yaml.load(front, Loader=loader)


def parse_page(
    path: Path, page_type: str, cache: Optional[FrontmatterCache] = None
) -> tuple[Optional[Page], list[LoadProblem]]:
    text, problem = read_text(path)
    if problem:
        return None, [problem]
    assert text is not None
    page_id = path.stem
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        page = Page(page_id, page_type, path, {}, text, 1)
        return page, [
            LoadProblem(
                "frontmatter-missing", path, 1, "no YAML frontmatter (file must start with '---')"
            )
        ]
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        page = Page(page_id, page_type, path, {}, text, 1)
        return page, [
            LoadProblem("frontmatter-missing", path, 1, "frontmatter is not closed by a '---' line")
        ]
    front = "\n".join(lines[1:end])
    body = "\n".join(lines[end + 1 :])
    meta = cache.get(front) if cache is not None else None
    if meta is not None:
        return Page(page_id, page_type, path, meta, body, end + 2, front), []
    import yaml

    try:
        meta = _parse_yaml(front) or {}
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = (mark.line + 2) if mark else 1
        column = (mark.column + 1) if mark else 0
        reason = getattr(error, "problem", None) or str(error)
        page = Page(page_id, page_type, path, {}, body, end + 2, front)
        return page, [
            LoadProblem("yaml", path, line, f"invalid YAML frontmatter: {reason}", column)
        ]
    if not isinstance(meta, dict):
        page = Page(page_id, page_type, path, {}, body, end + 2, front)
        return page, [LoadProblem("yaml", path, 2, "frontmatter must be a mapping of fields")]
    if cache is not None:
        cache.put(front, meta)
    return Page(page_id, page_type, path, meta, body, end + 2, front), []


def parse_json_doc(path: Path, cls: type[JsonDoc]) -> tuple[Optional[JsonDoc], list[LoadProblem]]:
    text, problem = read_text(path)
    if problem:
        return None, [problem]
    assert text is not None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, [
            LoadProblem("json", path, error.lineno, f"invalid JSON: {error.msg}", error.colno)
        ]
    if not isinstance(data, dict):
        return None, [LoadProblem("json", path, 1, "top level must be a JSON object")]
    return cls(path.stem, path, data, text), []


def _walk(directory: Path, suffix: str, problems: list[LoadProblem]) -> list[Path]:
    """Files with `suffix` under `directory`, recursively, without following symlink loops."""
    found: list[Path] = []
    if not directory.is_dir():
        return found
    seen: set[tuple[int, int]] = set()

    def visit(folder: Path) -> None:
        try:
            info = folder.stat()
        except OSError as error:
            problems.append(LoadProblem("unreadable", folder, 0, f"cannot read folder: {error}"))
            return
        if (info.st_dev, info.st_ino) in seen:
            problems.append(LoadProblem("symlink-loop", folder, 0, "symlink loop"))
            return
        seen.add((info.st_dev, info.st_ino))
        try:
            children = sorted(folder.iterdir())
        except OSError as error:
            problems.append(LoadProblem("unreadable", folder, 0, f"cannot list folder: {error}"))
            return
        for child in children:
            if child.name.startswith("."):
                continue
            try:
                is_dir = child.is_dir()
            except OSError as error:  # e.g. ELOOP on a self-referencing link
                problems.append(LoadProblem("symlink-loop", child, 0, f"cannot follow: {error}"))
                continue
            if child.is_symlink() and not child.exists():
                problems.append(LoadProblem("unreadable", child, 0, "broken or looping symlink"))
            elif is_dir:
                visit(child)
            elif child.suffix == suffix:
                found.append(child)

    visit(directory)
    return found


def load_wiki(root: Optional[Path] = None) -> Wiki:
    """Load every page, action and workflow under the `_wiki` directory `root`."""
    root = root or find_wiki_root()
    wiki = Wiki(root=root)
    seen_ids: dict[str, Path] = {}
    cache = FrontmatterCache.open()

    def register(doc_id: str, path: Path) -> bool:
        if doc_id in seen_ids:
            wiki.duplicates.append((doc_id, seen_ids[doc_id], path))
            return False
        seen_ids[doc_id] = path
        return True

    for folder, page_type in PAGE_FOLDERS.items():
        for path in _walk(root / folder, ".md", wiki.problems):
            page, problems = parse_page(path, page_type, cache)
            wiki.problems.extend(problems)
            if page and register(page.id, path):
                wiki.pages[page.id] = page
    cache.save()
    for folder, cls, target in (
        (ACTIONS_DIR, Action, wiki.actions),
        (WORKFLOWS_DIR, Workflow, wiki.workflows),
    ):
        for path in _walk(root / folder, ".json", wiki.problems):
            doc, problems = parse_json_doc(path, cls)
            wiki.problems.extend(problems)
            # Actions and workflows have their own id spaces, apart from pages.
            if doc and doc.id not in target:
                target[doc.id] = doc  # type: ignore[assignment]
            elif doc:
                wiki.duplicates.append((doc.id, target[doc.id].path, path))
    return wiki
