"""What a command loads, as behaviour (modules in `sys.modules`), never as seconds: `mlwiki
--help`, `lint` and a troubleshoot of an offline bundle never import a Cloud client, and
redaction imports detect-secrets only for a text one of its plugins could find something in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mlwiki.redact import detector, plugin_patterns

REPO = Path(__file__).resolve().parent.parent
INCIDENT = REPO / "tests" / "incidents" / "checkpoint-gcs-403"
CLOUD = ("google.cloud", "google.auth", "googleapiclient", "grpc", "kubernetes")

# Runs the CLI in a fresh interpreter and writes what it imported to the file named first.
PROBE = """
import json, sys
from mlwiki.cli import main
try:
    code = main(sys.argv[2:])
except SystemExit as stop:
    code = stop.code
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""


def loaded(tmp_path: Path, *argv: str) -> tuple[int, list[str]]:
    """(exit code, modules imported) of `mlwiki ARGV…` run from the repository."""
    report = tmp_path / "modules.json"
    subprocess.run(
        [sys.executable, "-c", PROBE, str(report), *argv],
        cwd=REPO,
        capture_output=True,
        check=True,
        env={
            "MLWIKI_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "HOME": str(tmp_path),
            "PATH": "/usr/bin:/bin",
        },
    )
    seen = json.loads(report.read_text())
    return seen["code"], seen["modules"]


def among(modules: list[str], packages: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)]


def test_help_loads_only_the_parser(tmp_path: Path) -> None:
    code, modules = loaded(tmp_path, "--help")
    assert code == 0
    assert among(modules, (*CLOUD, "detect_secrets", "mlwiki.diagnose", "mlwiki.lint")) == []
    assert among(modules, ("jinja2", "lark", "re2", "yaml", "jsonschema")) == []


def test_lint_imports_no_cloud_client(tmp_path: Path) -> None:
    code, modules = loaded(tmp_path, "lint", "--format", "json")
    assert code in (0, 1)
    assert among(modules, (*CLOUD, "detect_secrets", "mcp", "mlwiki.diagnose")) == []


def test_an_offline_troubleshoot_imports_no_cloud_client(tmp_path: Path) -> None:
    workload = json.loads((INCIDENT / "expected.json").read_text())["workload"]
    code, modules = loaded(tmp_path, "troubleshoot", workload, "--bundle", str(INCIDENT))
    assert code == 0
    assert among(modules, (*CLOUD, "mcp", "rich")) == []
    live_plan = ("mlwiki.logs.cloud", "mlwiki.logs.live", "mlwiki.logs.plan", "mlwiki.logs.cache")
    assert among(modules, live_plan) == []  # a bundle read whole needs no live plan
    if detector.denylist() is not None:  # the stored denylists are the installed plugins'
        # Its redacted report holds nothing a detect-secrets plugin could find (see detector).
        assert among(modules, ("detect_secrets", "requests")) == []


def test_the_stored_denylists_are_the_installed_plugins_or_unused() -> None:
    if detector.installed_digest() == plugin_patterns.DIGEST:
        assert detector.plugin_patterns() == plugin_patterns.PATTERNS, (
            "run: python -m mlwiki.redact"
        )
        assert detector.denylist() is not None
    else:  # another detect-secrets: every text goes to its plugins
        assert detector.denylist() is None


def test_every_secret_the_plugins_find_passes_the_pre_check() -> None:
    """Each plugin's own kind of secret reaches the plugins through the pre-check."""
    texts = {
        "aws_access_key": "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLQ",
        "slack_token": "hook xoxb-123456789012-abcdefghijkl",
        "stripe_access_key": "stripe key sk_live_abcdefghijklmnopqrstuvwx",
        "basic_auth_credentials": "fetching https://user:s3cr3tpassw0rd@example.com/x",
        "sendgrid_api_key": "SG." + "a" * 22 + "." + "b" * 43,
    }
    for kind, text in texts.items():
        assert kind in detector.secrets_in([text]).values(), kind


@pytest.mark.parametrize(
    "text",
    [
        "step 1200 loss 0.31 (tokens/s 51200)",
        'Traceback (most recent call last):\n  File "train.py", line 3, in <module>',
        "gs://bucket/checkpoints/step_1200/ 403 Forbidden: storage.objects.get",
    ],
)
def test_a_text_no_regex_finds_anything_in_finds_nothing(text: str) -> None:
    assert detector.secrets_in([text]) == {}
    # The plugins themselves agree: the pre-check only skips what they would not find.
    found = {
        value
        for _kind, plugin in detector.plugins()
        for value in plugin.analyze_string(text)
        if isinstance(value, str) and len(value) >= detector.MIN_SECRET
    }
    assert found == set()


def test_a_stale_table_sends_every_text_to_the_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugin_patterns, "DIGEST", "0" * 64)
    detector.denylist.cache_clear()
    try:
        assert detector.denylist() is None
        found = detector.secrets_in(["export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLQ"])
        assert found == {"AKIAIOSFODNN7EXAMPLQ": "aws_access_key"}
    finally:
        monkeypatch.undo()
        detector.denylist.cache_clear()


def test_the_compiled_report_template_is_the_template_or_unused() -> None:
    import jinja2

    from mlwiki.diagnose import report, report_compiled

    if jinja2.__version__ == report_compiled.JINJA:
        assert report.template_digest() == report_compiled.DIGEST, "run: python -m mlwiki.diagnose"
        assert report.report_template().root_render_func is report_compiled.root
    else:  # another Jinja: the template is compiled as before
        assert report.report_template().root_render_func is not report_compiled.root


@pytest.mark.parametrize(
    "incident",
    ["checkpoint-gcs-403", "injected-instructions-check-failed", "healthy-with-benign-noise"],
)
def test_the_compiled_report_renders_what_jinja_compiles(incident: str) -> None:
    from mlwiki.diagnose import diagnose, report
    from mlwiki.wiki import load_wiki

    folder = REPO / "tests" / "incidents" / incident
    workload = json.loads((folder / "expected.json").read_text())["workload"]
    result = diagnose(workload, bundle=folder / "bundle.json", wiki=load_wiki(REPO / "_wiki"))
    compiled_fresh = report._environment().get_template(report.TEMPLATE)
    stored = report.report_template()
    assert stored is not compiled_fresh
    values = {
        "f": result.findings,
        "evidence": {item["id"]: item for item in result.findings["evidence"]},
        "timeline": report.timeline(result.findings),
        "healthy": result.healthy,
        "duty_strip": report.duty_strip,
    }
    assert stored.render(**values) == compiled_fresh.render(**values)
    assert report.render_report(result.findings, result.healthy) == stored.render(**values)


def test_a_stale_compiled_report_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from mlwiki.diagnose import report, report_compiled

    monkeypatch.setattr(report_compiled, "DIGEST", "0" * 64)
    report.report_template.cache_clear()
    try:
        assert report.report_template().root_render_func is not report_compiled.root
    finally:
        monkeypatch.undo()
        report.report_template.cache_clear()


def test_the_benchmarks_fits_give_the_fixed_part_with_its_error_and_residuals() -> None:
    from tests.conftest import load_benchmark

    startup = load_benchmark("bench_startup")
    line = [(x, 0.25 + 0.01 * x) for x in (1.5, 3.0, 6.0, 12.0, 24.0)]
    intercept, slope, error, residuals = startup.fit(line)
    assert (round(intercept, 9), round(slope, 9), round(error, 9)) == (0.25, 0.01, 0.0)
    assert [round(r, 9) for r in residuals] == [0.0] * 5
    bent = [*line[:-1], (24.0, 0.25 + 0.01 * 24.0 + 0.3)]  # the last size is off the line
    _, _, error, residuals = startup.fit(bent)
    assert error > 0.01 and max(abs(r) for r in residuals) > 0.03  # shown, not hidden
    growth = load_benchmark("bench_diagnose")
    fixed, per_100k, error, residuals = growth.fit(
        [(n, 0.5 + n / 100_000) for n in (25_000, 50_000, 100_000)]
    )
    assert (round(fixed, 9), round(per_100k, 9), round(error, 9)) == (0.5, 1.0, 0.0)


def test_a_signature_is_checked_as_compiling_it_would() -> None:
    """Valid and named exactly when `re2.compile` says so, for every wiki signature and for
    broken ones, though most are only parsed (`signatures._checked`)."""
    import re2

    from mlwiki.diagnose.signatures import _checked
    from mlwiki.wiki import load_wiki

    patterns = [
        s.pattern for page in load_wiki(REPO / "_wiki").symptoms.values() for s in page.signatures
    ]
    patterns += ["(", "a)", "[z-a]", "(?P<x>a)(?P<x>b)", "a{2,1}", "\\pZ+", "(?i)x++", "\\8"]
    options = re2.Options()
    probe = re2.Set.SearchSet(options)
    for pattern in patterns:
        try:
            expected = bool(re2.compile(pattern).groupindex)
        except re2.error:
            with pytest.raises(re2.error):
                _checked(pattern, probe)
            continue
        assert _checked(pattern, probe)[1] == expected, pattern
