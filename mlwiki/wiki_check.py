"""A wiki file is checked before it is used: a broken one is bad input naming the file and field.

The linter reports every problem of a wiki (exit 1, in CI); the commands that *use* wiki files
(`run`, `action`, `troubleshoot`, `match`, the MCP tools) refuse to use a broken one (exit 2)
rather than run half of it or crash on it:
- an action or workflow asked for by id whose file did not parse: its parse problem;
- an action or workflow that breaks its JSON Schema (`_wiki/schemas/`, the single source of
  truth), or a workflow step that uses an action that does not exist (or is itself broken);
- for a diagnosis, any symptom page that did not parse, breaks the frontmatter schema, or has a
  signature that is not valid RE2.
Each document is checked once per loaded wiki, and a pass is remembered across commands by the
SHA-256 of everything the check read (`mlwiki.wiki_cache.CheckMemo`): an unchanged wiki is not
checked again; a changed file, schema or checking code is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional

import re2

from mlwiki.errors import BadInput
from mlwiki.wiki import ACTIONS_DIR, SCHEMAS_DIR, JsonDoc, LoadProblem, Page, Wiki
from mlwiki.wiki_cache import CheckMemo


def _schema_problem(
    wiki: Wiki, value: Any, name: str, definition: Optional[str] = None
) -> Optional[str]:
    from mlwiki import schemas

    found = schemas.errors(wiki.root / "schemas", name, value, definition)
    if not found:
        return None
    error = found[0]
    return f"{schemas.error_path(error)}: {error.message[:300]}"


def load_problem(wiki: Wiki, folder: str, doc_id: str) -> Optional[LoadProblem]:
    """The parse problem of `folder/<doc_id>.json` (or `.md`), if that file failed to load."""
    directory = (wiki.root / folder).resolve()
    for problem in wiki.problems:
        path = Path(problem.file)
        if path.stem == doc_id and path.parent.resolve() == directory:
            return problem
    return None


def raise_load_problem(problem: LoadProblem) -> None:
    where = f"{problem.file}:{problem.line}" if problem.line else str(problem.file)
    raise BadInput(f"{where}: {problem.message} (run `mlwiki lint` for every problem)")


def check_json_doc(wiki: Wiki, doc: JsonDoc, kind: str) -> None:
    """BadInput when `doc` (an action or workflow) breaks its schema or uses a missing action."""
    if f"{kind}:{doc.id}" in wiki.checked:
        return
    check_once(wiki, kind, doc, lambda: _check_json_doc(wiki, doc, kind))
    wiki.checked.add(f"{kind}:{doc.id}")


def check_once(wiki: Wiki, check: str, doc: JsonDoc, run: Callable[[], None]) -> None:
    """`run` the check named `check` of `doc`, unless it passed before on exactly the same
    files (`doc`, the actions a workflow uses, the schemas) and code (`CheckMemo`)."""
    memo = CheckMemo.open()
    key = memo.key(
        wiki.root / SCHEMAS_DIR, check, doc.id, str(doc.path), doc.text, *_used(wiki, doc)
    )
    if memo.passed(key):
        return
    run()
    memo.remember(key)


def _check_json_doc(wiki: Wiki, doc: JsonDoc, kind: str) -> None:
    from mlwiki import schemas

    problem = _schema_problem(
        wiki, doc.data, schemas.ACTION if kind == "action" else schemas.WORKFLOW
    )
    if problem is None and doc.data.get("id") != doc.id:
        problem = f"id: {doc.data.get('id')!r} is not the file name {doc.id!r}"
    if problem:
        raise BadInput(f"{doc.path}: {problem} (run `mlwiki lint` for every problem)")
    if kind == "workflow":
        for number, step in enumerate(doc.data.get("steps") or []):
            uses = step.get("uses")
            if uses not in wiki.actions:
                broken = load_problem(wiki, ACTIONS_DIR, str(uses))
                if broken:
                    raise_load_problem(broken)
                raise BadInput(f"{doc.path}: steps[{number}].uses: no action {uses!r} in the wiki")
            check_json_doc(wiki, wiki.actions[uses], "action")
        _check_workflow_code(doc)


def _used(wiki: Wiki, doc: JsonDoc) -> list[Any]:
    """What a workflow's check reads besides its own file: each action it uses (path, text)."""
    used: list[Any] = []
    steps = doc.data.get("steps")
    for step in steps if isinstance(steps, list) else []:
        uses = step.get("uses") if isinstance(step, dict) else None
        action = wiki.actions.get(uses) if isinstance(uses, str) else None
        used.append([uses, str(action.path), action.text] if action is not None else [uses])
    return used


def _check_workflow_code(doc: JsonDoc) -> None:
    """Every `if`, output expression and `{{ }}` template of a workflow compiles (a broken one
    is found before any step runs, not when the run reaches it)."""
    from jinja2.exceptions import TemplateError

    from mlwiki.engine.expressions import Where, compile_expression, has_template
    from mlwiki.engine.render import command_environment

    def template(text: Any, place: str) -> None:
        if isinstance(text, str) and has_template(text):
            try:  # parsed only: most conclusions' summaries are never rendered (and compiled)
                command_environment().parse(text)
            except TemplateError as error:
                raise BadInput(f"{doc.path}: {place}: invalid template {text!r}: {error}") from None

    def expression(text: Any, place: str) -> None:
        if isinstance(text, str):
            compile_expression(text, Where(str(doc.path), place))

    # The places are named as the engine names them when it runs the workflow.
    for step in doc.data.get("steps") or []:
        expression(step.get("if"), f"step {step.get('id')}: if")
        for name, value in (step.get("with") or {}).items():
            template(value, f"step {step.get('id')}: with.{name}")
        for name, value in (step.get("outputs") or {}).items():
            expression(value, f"step {step.get('id')}: outputs.{name}")
    for number, conclusion in enumerate(doc.data.get("conclusions") or []):
        expression(conclusion.get("if"), f"conclusions[{number}]")
        template(conclusion.get("summary"), f"conclusions[{number}]")
    for name, value in (doc.data.get("outputs") or {}).items():
        expression(value, f"outputs.{name}")


def check_symptoms(wiki: Wiki) -> None:
    """BadInput when any symptom page cannot be used by a diagnosis (see the module docstring)."""
    if "symptoms" in wiki.checked:
        return
    from mlwiki.wiki import PAGE_FOLDERS

    folders = {(wiki.root / f).resolve() for f, kind in PAGE_FOLDERS.items() if kind == "symptom"}
    for problem in wiki.problems:
        if Path(problem.file).parent.resolve() in folders:
            raise_load_problem(problem)
    pages = wiki.pages_of_type("symptom")
    memo = CheckMemo.open()
    read = [[str(p.path), p.meta.get("role"), p.meta.get("signatures")] for p in pages]
    key = memo.key(wiki.root / SCHEMAS_DIR, "symptoms", *read)
    if not memo.passed(key):
        for page in pages:
            _check_symptom(wiki, page)
        memo.remember(key)
    wiki.checked.add("symptoms")


ROLES = ("root", "symptom", "cascade", "consequence")


def _check_symptom(wiki: Wiki, page: Page) -> None:
    """What a diagnosis reads of a symptom page: its role and its signatures (the rest of the
    frontmatter is the linter's business)."""
    from mlwiki import schemas

    role = page.meta.get("role")
    if role not in ROLES:
        raise BadInput(f"{page.path}: frontmatter role: {role!r} is not one of {', '.join(ROLES)}")
    signatures = page.meta.get("signatures")
    if not isinstance(signatures, list):
        raise BadInput(f"{page.path}: frontmatter signatures: must be a list of {{pattern, field}}")
    for number, signature in enumerate(signatures):
        problem = _schema_problem(wiki, signature, schemas.FRONTMATTER, "signature")
        if problem:
            raise BadInput(f"{page.path}: frontmatter signatures[{number}]: {problem}")
        try:
            re2.compile(signature["pattern"])
        except re2.error as error:
            raise BadInput(
                f"{page.path}: signatures[{number}].pattern is not valid RE2 ({error})"
            ) from None
