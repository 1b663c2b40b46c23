"""Redaction on a corpus of real-format, fake-valued secrets (tests/data/secrets/)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from mlwiki.redact import Redactor, redact_excerpt, redact_obj, redact_text

DATA = Path(__file__).parent / "data" / "secrets"


def _cases(name: str) -> list[dict[str, str]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CORPUS = _cases("corpus.jsonl")
OPTIONAL = _cases("optional.jsonl")
BENIGN = [line for line in (DATA / "benign.txt").read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c["kind"])
def test_each_secret_is_replaced_and_counted(case: dict[str, str]) -> None:
    redacted, counts = redact_text(case["text"])
    assert case["secret"] not in redacted
    assert f"[REDACTED:{case['kind']}]" in redacted
    assert counts[case["kind"]] >= 1


@pytest.mark.parametrize("line", BENIGN)
def test_ordinary_log_lines_are_left_alone(line: str) -> None:
    assert redact_text(line) == (line, {})
    assert redact_text(line, emails=True, ips=True) == (line, {})


@pytest.mark.parametrize("case", OPTIONAL, ids=lambda c: c["kind"])
def test_emails_and_ips_are_masked_only_when_asked(case: dict[str, str]) -> None:
    assert redact_text(case["text"]) == (case["text"], {})
    redacted, counts = redact_text(case["text"], emails=True, ips=True)
    assert case["secret"] not in redacted
    assert counts == {case["kind"]: 1}


def test_context_around_a_secret_is_kept() -> None:
    text = "connecting to postgres://trainer:Tr0ub4dor-FAKE@db.internal:5432/metrics"
    redacted, _ = redact_text(text)
    assert (
        redacted
        == "connecting to postgres://trainer:[REDACTED:url_password]@db.internal:5432/metrics"
    )


@pytest.mark.parametrize("case", CORPUS + OPTIONAL, ids=lambda c: c["kind"])
def test_redaction_is_idempotent(case: dict[str, str]) -> None:
    redactor = Redactor(emails=True, ips=True)
    once, _ = redactor.text(case["text"])
    assert redactor.text(once) == (once, {})


def test_service_account_key_object_loses_key_and_key_id() -> None:
    key = json.loads((DATA / "service-account.json").read_text(encoding="utf-8"))
    original = copy.deepcopy(key)
    redacted, counts = redact_obj(key)
    assert key == original, "the input is not modified"
    assert redacted["private_key"] == "[REDACTED:service_account_key]"
    assert redacted["private_key_id"] == "[REDACTED:service_account_key]"
    assert redacted["client_email"] == key["client_email"]
    assert counts == {"service_account_key": 2}
    assert key["private_key_id"] not in json.dumps(redacted)


def test_obj_redacts_nested_strings_and_credential_keys_but_not_other_values() -> None:
    value = {
        "message": "retry with ya29.a0FAKEfakeFAKEfake0123456789",
        "headers": {"Authorization": "Bearer anything-at-all", "Accept": "application/json"},
        "items": [{"password": "x1"}, 42, None, True],
        "step": 1200,
    }
    redacted, counts = redact_obj(value)
    assert redacted == {
        "message": "retry with [REDACTED:oauth_token]",
        "headers": {"Authorization": "[REDACTED:credential]", "Accept": "application/json"},
        "items": [{"password": "[REDACTED:credential]"}, 42, None, True],
        "step": 1200,
    }
    assert counts == {"oauth_token": 1, "credential": 2}
    assert redact_obj(redacted) == (redacted, {})


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c["kind"])
def test_excerpt_is_a_substring_of_the_redacted_text_wherever_it_is_cut(
    case: dict[str, str],
) -> None:
    """A quote cut anywhere (even inside a secret) redacts consistently and leaks no fragment."""
    text, secret = case["text"], case["secret"]
    full, _ = redact_text(text)
    at = text.index(secret)
    cuts = {0, at, at + 1, at + len(secret) // 2, at + len(secret) - 1, at + len(secret), len(text)}
    for start in sorted(cuts):
        for end in sorted(cuts):
            if end <= start:
                continue
            excerpt, _ = redact_excerpt(text, start, end)
            assert excerpt in full, (start, end, excerpt)
            fragment = secret[len(secret) // 4 : len(secret) // 4 + 8]
            assert fragment not in excerpt or fragment in full


def test_overlapping_patterns_replace_once() -> None:
    text = "Authorization: Bearer ya29.a0FAKEfakeFAKEfake0123456789 sent"
    redacted, counts = redact_text(text)
    assert redacted == "Authorization: Bearer [REDACTED:oauth_token] sent"
    assert sum(counts.values()) == 1


def test_the_demo_bundle_is_left_exactly_as_it_is() -> None:
    """Benign text is never mangled: no string of the demo's entries (insertIds, hostnames,
    hashes in paths, HLO names…) changes. The same holds on every incident set (measured by
    hand: 0 of 32,483 entries changed)."""
    from mlwiki.logs.bundle import iter_bundle
    from tests.conftest import WIKI_ROOT

    entries = list(iter_bundle(WIKI_ROOT / "examples" / "llm-pretrain-oom"))
    redacted, counts = redact_obj(entries)
    assert counts == {}
    assert redacted == entries


def test_a_key_block_split_over_entries_is_hidden_in_either_order() -> None:
    lines = ["MIIEow" + "A1b2C3d4" * 7 + "xy", "Zz09" * 16, "Qq8+" * 16]
    texts = [
        "writing key:\n-----BEGIN RSA PRIVATE KEY-----",
        *lines,
        "-----END RSA PRIVATE KEY-----",
    ]
    for order in (1, -1):
        entries = [
            {"insertId": f"i{n}", "timestamp": f"2024-05-01T10:00:0{n}Z", "textPayload": text}
            for n, text in enumerate(texts)
        ][::order]
        redacted, _ = redact_obj(entries)
        shown = json.dumps(redacted)
        assert not any(line in shown for line in lines), order
        assert "writing key:" in shown


def test_credential_names_in_text_and_keys() -> None:
    text = 'DB_PASSWORD=hunter2-x clientSecret: "s3cr3t value" --password p4ss tokens/s=99'
    redacted, _ = redact_text(text)
    assert "hunter2" not in redacted and "s3cr3t" not in redacted and "p4ss" not in redacted
    assert "tokens/s=99" in redacted
    value = {
        "env": [{"name": "DB_PASSWORD", "value": "x1y2"}],
        "X-Api-Key": "k3y",
        "eos_token": "</s>",
    }
    assert redact_obj(value)[0] == {
        "env": [{"name": "DB_PASSWORD", "value": "[REDACTED:credential]"}],
        "X-Api-Key": "[REDACTED:credential]",
        "eos_token": "</s>",
    }
