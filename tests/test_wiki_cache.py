"""The wiki cache: a later load gives exactly what YAML gives and never an old parse; a check
passed before is skipped only while everything it read is byte for byte the same; a template's
code comes back only for the same text in the same sandbox, from a file no one else may write; a
signature pattern found valid is not checked again, an invalid one always is; a Markdown text is
parsed once."""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jinja2 import TemplateSyntaxError
from jinja2.sandbox import SandboxedEnvironment

from mlwiki.diagnose import signatures
from mlwiki.diagnose.signatures import SignatureSet
from mlwiki.engine.render import command_environment, filter_environment
from mlwiki.errors import BadInput
from mlwiki.lint import markdown
from mlwiki.wiki import load_wiki
from mlwiki.wiki_cache import (
    _OPENED,
    CHECKED,
    TEMPLATES,
    cache_file,
    cache_folder,
    markdown_docs,
    signature_verdicts,
    template_code,
)
from mlwiki.wiki_check import check_symptoms
from tests.conftest import REPO_ROOT

PAGE = "symptoms/host-oom-killed.md"


@pytest.fixture
def wiki_copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo" / "_wiki"
    shutil.copytree(REPO_ROOT / "_wiki", root, ignore=shutil.ignore_patterns(".venv", "examples"))
    return root


def _metas(root: Path) -> dict[str, dict]:
    return {pid: page.meta for pid, page in load_wiki(root).pages.items()}


def test_a_warm_load_gives_what_yaml_gives_without_importing_yaml(
    wiki_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = _metas(wiki_copy)
    assert cache_file().is_file()
    assert _metas(wiki_copy) == cold
    monkeypatch.setenv("MLWIKI_NO_CACHE", "1")
    assert _metas(wiki_copy) == cold
    monkeypatch.delenv("MLWIKI_NO_CACHE")
    probe = (
        "import sys; from pathlib import Path; from mlwiki.wiki import load_wiki; "
        f"load_wiki(Path({str(wiki_copy)!r})); print('yaml' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=os.environ
    )
    assert out.stdout.strip() == "False"


def test_an_edited_page_is_parsed_again(wiki_copy: Path) -> None:
    load_wiki(wiki_copy)
    path = wiki_copy / PAGE
    text = path.read_text()
    path.write_text(text.replace("\nrole: root\n", "\nrole: cascade\n", 1))
    assert load_wiki(wiki_copy).pages["host-oom-killed"].meta["role"] == "cascade"
    path.write_text(text.replace("\nrole: root\n", "\nrole: [not, valid\n", 1))
    wiki = load_wiki(wiki_copy)
    assert any(p.kind == "yaml" and p.file == path for p in wiki.problems)


def test_yaml_only_types_are_parsed_every_time(wiki_copy: Path) -> None:
    path = wiki_copy / PAGE
    path.write_text(path.read_text().replace("---\n", "---\nreviewed: 2026-11-30\n", 1))
    for _ in range(2):
        meta = load_wiki(wiki_copy).pages["host-oom-killed"].meta
        assert meta["reviewed"] == datetime.date(2026, 11, 30)


def test_each_load_gets_its_own_objects(wiki_copy: Path) -> None:
    load_wiki(wiki_copy)
    first = load_wiki(wiki_copy).pages["host-oom-killed"].meta
    first["role"] = "changed in memory"
    assert load_wiki(wiki_copy).pages["host-oom-killed"].meta["role"] == "root"


def test_a_file_others_may_write_or_a_broken_file_is_ignored(wiki_copy: Path) -> None:
    cold = _metas(wiki_copy)
    target = cache_file()
    planted = target.read_text().replace(r"\"role\":\"root\"", r"\"role\":\"cascade\"")
    assert planted != target.read_text()
    target.write_text(planted)
    target.chmod(0o666)
    assert _metas(wiki_copy) == cold
    target.chmod(0o600)
    target.write_bytes(b"\x00not json")
    assert _metas(wiki_copy) == cold
    assert _metas(wiki_copy) == cold  # and the file was replaced by a good one
    assert target.read_bytes().startswith(b"{")


def test_no_cache_writes_nothing(wiki_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLWIKI_NO_CACHE", "1")
    load_wiki(wiki_copy)
    assert not cache_file().exists()


WORKFLOW = "verify-host-oom-killed"
ACTION = "actions/find-host-oom-killed.json"


def _usable(root: Path) -> None:
    wiki = load_wiki(root)
    check_symptoms(wiki)
    wiki.workflow(WORKFLOW)


def test_a_passed_check_is_remembered_until_an_action_it_uses_changes(wiki_copy: Path) -> None:
    _usable(wiki_copy)
    assert (cache_folder() / CHECKED).is_file()
    probe = (
        "import sys; from pathlib import Path; from mlwiki.wiki import load_wiki; "
        "from mlwiki.wiki_check import check_symptoms; "
        f"wiki = load_wiki(Path({str(wiki_copy)!r})); check_symptoms(wiki); "
        f"wiki.workflow({WORKFLOW!r}); print('jsonschema_rs' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=os.environ
    )
    assert out.stdout.strip() == "False"  # a new command takes the pass from the memo
    path = wiki_copy / ACTION
    path.write_text(path.read_text().replace('"kind": "log_query"', '"kind": "log_query_x"'))
    with pytest.raises(BadInput, match=r"find-host-oom-killed\.json"):
        load_wiki(wiki_copy).workflow(WORKFLOW)


def test_a_broken_signature_after_a_pass_is_still_refused(wiki_copy: Path) -> None:
    _usable(wiki_copy)
    path = wiki_copy / PAGE
    path.write_text(
        path.read_text().replace("- pattern: '(?:(?:Memory", "- pattern: '((?:(?:Memory", 1)
    )
    with pytest.raises(BadInput, match="not valid RE2"):
        check_symptoms(load_wiki(wiki_copy))


def test_a_changed_schema_checks_again(wiki_copy: Path) -> None:
    _usable(wiki_copy)
    schema = wiki_copy / "schemas" / "action.schema.json"
    text = schema.read_text()
    schema.write_text(text.replace('"params"\n  ]', '"params",\n    "owner"\n  ]', 1))
    assert schema.read_text() != text
    # A new command (this process keeps the schemas it compiled).
    probe = (
        "from pathlib import Path; from mlwiki.wiki import load_wiki; "
        f"load_wiki(Path({str(wiki_copy)!r})).workflow({WORKFLOW!r})"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=os.environ
    )
    assert out.returncode != 0 and "owner" in out.stderr, out.stderr[-500:]


def test_a_memo_others_may_write_is_not_trusted(wiki_copy: Path) -> None:
    _usable(wiki_copy)
    memo = cache_folder() / CHECKED
    passed = memo.read_bytes()
    path = wiki_copy / ACTION
    path.write_text(path.read_text().replace('"kind": "log_query"', '"kind": "log_query_x"'))
    with pytest.raises(BadInput):
        load_wiki(wiki_copy).workflow(WORKFLOW)
    # Even a memo that listed this very check as passed is ignored when others may write it.
    from mlwiki.wiki_cache import CheckMemo

    wiki = load_wiki(wiki_copy)
    action = wiki.actions["find-host-oom-killed"]
    key = CheckMemo.open().key(
        wiki_copy / "schemas", "action", action.id, str(action.path), action.text
    )
    memo.write_bytes(passed[:-1] + f',"{key}":""}}'.encode())
    memo.chmod(0o664)
    with pytest.raises(BadInput):
        wiki.action("find-host-oom-killed")


TEMPLATE = "Confirmed: {{ steps.find.outputs.count }} line(s) on {{ hosts | join(',') }}"
EXPRESSION = "steps.find.status == 'ok' and steps.find.outputs.count > 0"
SCOPE = {"steps": {"find": {"status": "ok", "outputs": {"count": 2}}}, "hosts": ["a", "b"]}


def _later_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a later command starts from: the saved file, and Jinja unable to generate code
    (so whatever compiles came from the cache)."""
    template_code().save()
    _OPENED.clear()
    monkeypatch.setattr(SandboxedEnvironment, "_generate", _no_generation)


def _no_generation(*args: object, **kwargs: object) -> str:
    raise AssertionError("generated again")


def test_a_compiled_template_is_taken_from_the_cache_by_its_exact_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    command, query = command_environment(), filter_environment()
    rendered = command.from_string(TEMPLATE).render(SCOPE)
    value = command.compile_expression(EXPRESSION, undefined_to_none=False)(**SCOPE)
    quoted = query.from_string("pod={{ pod }}").render(pod="p-1")
    _later_command(monkeypatch)
    assert command.from_string(TEMPLATE).render(SCOPE) == rendered == "Confirmed: 2 line(s) on a,b"
    assert command.compile_expression(EXPRESSION, undefined_to_none=False)(**SCOPE) is value
    assert query.from_string("pod={{ pod }}").render(pod="p-1") == quoted == 'pod="p-1"'
    with pytest.raises(AssertionError, match="generated again"):
        command.from_string(TEMPLATE + " ")  # another text
    with pytest.raises(AssertionError, match="generated again"):
        command.from_string("pod={{ pod }}")  # the same text in the other sandbox


def test_a_template_cache_others_may_write_is_not_trusted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    command_environment().from_string(TEMPLATE)
    template_code().save()
    (cache_folder() / TEMPLATES).chmod(0o666)
    _later_command(monkeypatch)
    with pytest.raises(AssertionError, match="generated again"):
        command_environment().from_string(TEMPLATE)


def test_a_template_that_does_not_parse_is_refused_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for _ in range(2):
        with pytest.raises(TemplateSyntaxError):
            command_environment().from_string("{{ steps.find")
        template_code().save()
        _OPENED.clear()
    monkeypatch.setenv("MLWIKI_NO_CACHE", "1")
    command_environment().from_string(TEMPLATE)
    template_code().save()
    assert not (Path(os.environ["XDG_CACHE_HOME"]) / "mlwiki" / "wiki" / TEMPLATES).exists()


def test_a_signature_set_learns_each_valid_pattern_once(
    wiki_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = wiki_copy / PAGE
    page.write_text(
        page.read_text().replace("signatures:\n", "signatures:\n- pattern: '(?<=a)b'\n", 1)
    )
    symptoms = list(load_wiki(wiki_copy).symptoms.values())
    first = SignatureSet(symptoms)
    assert len(first.problems) == 1 and "(?<=a)b" in first.problems[0]
    signature_verdicts().save()
    _OPENED.clear()
    checked: list[str] = []
    original = signatures._checked

    def counted(pattern: str, probe: object) -> object:
        checked.append(pattern)
        return original(pattern, probe)

    monkeypatch.setattr(signatures, "_checked", counted)
    again = SignatureSet(symptoms)
    assert checked == ["(?<=a)b"]  # only the invalid one, whose problem is named again
    assert again.problems == first.problems
    assert [(m.pattern, m.named) for m in again._texts.members] == [
        (m.pattern, m.named) for m in first._texts.members
    ]
    named = next(m for m in again._texts.members if m.named)
    assert named.regex.groupindex  # compiled when first re-run, as any other signature


def test_a_markdown_file_is_parsed_once_while_its_text_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = (REPO_ROOT / "_wiki" / PAGE).read_text()
    jobs = [(page, 20), ("# Title\n\nSee [x](other.md#a).\n", 1)]
    first = markdown.parse_many(jobs)
    markdown_docs().save()
    _OPENED.clear()

    def refuse(text: str, first_line: int = 1) -> markdown.MarkdownDoc:
        raise AssertionError("parsed again")

    monkeypatch.setattr(markdown, "parse_markdown", refuse)
    assert markdown.parse_many(jobs) == first
    assert first[1].links == [markdown.Link("other.md#a", 3)]
    with pytest.raises(AssertionError, match="parsed again"):
        markdown.parse_many([(page, 21)])  # the same text starting elsewhere: other lines
