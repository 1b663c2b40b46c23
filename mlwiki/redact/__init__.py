"""Redaction of secrets (and optionally e-mail addresses and IPs) before anything leaves the machine.

One package, used by `mlwiki handoff`, the MCP server and what the CLI prints for agents, so that
every path out of the tool hides the same things the same way. Two detectors find secrets:
the maintained one (detect-secrets' regex plugins, `detector.py`) and our RE2 rules for what it
lacks or cannot see (`rules.py`: GCP keys and tokens, kubeconfig, Docker auths, split key
blocks, credential names…; names in `names.py`, split blocks in `blocks.py`).

Public API (the contract other modules rely on):

- `redact_text(text, *, emails=False, ips=False) -> (str, Counter)`: the text with each secret
  replaced by a marker `[REDACTED:<kind>]`, and how many of each kind were replaced.
- `redact_obj(obj, *, emails=False, ips=False) -> (obj, Counter)`: the same over a JSON-like
  value, returning a new value: every string, dict keys included; a value under a credential
  name (`password`, `DB_PASSWORD`, `clientSecret`, `X-Api-Key`…) replaced whole; a
  service-account key dict's `private_key(_id)`; Kubernetes `{"name": "DB_PASSWORD", "value": …}`
  pairs, Kaggle `{"username", "key"}`, the item after a credential flag in an argv list
  (`["--password", "x"]`); and the lines of a private-key block split over log
  entries (any list of entries in the value; see `blocks.py`).
- `redact_excerpt(text, start, end, …) -> (str, Counter)`: the redacted form of `text[start:end]`
  as it appears inside `redact_text(text)`; a secret cut by the excerpt's edges is widened to the
  whole secret, so the result is a substring of the redacted text and no partial secret
  survives. Use it for a quote taken from a longer log line (`Redactor.quote` finds the line).
- `redact_findings(findings, entries, …) -> (findings, Counter)`: findings with every evidence
  quote redacted in the context of its cited entry (so `verify` still finds it in the redacted
  entry) and everything else redacted as by `redact_obj`.
- `Redactor(emails=…, ips=…)`: the same operations as methods, for repeated use;
  `Redactor.prepared(values)` is a redactor that also knows the secrets found anywhere in
  `values` (split blocks, values seen by the detector) and hides them wherever they recur; use
  one prepared redactor for everything that goes out together (findings + entries).
- `find_leaks(name, data) -> list[str]`: the final check of a file before it leaves (see
  `leaks.py`): each secret still visible, as `file:line: kind`, never the secret itself.

Redaction is deterministic and idempotent: the same input gives the same output, and a redacted
text is left as it is (markers are never re-counted).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any, Optional

import re2

from mlwiki.redact import detector
from mlwiki.redact.blocks import split_block_texts
from mlwiki.redact.names import (
    NOT_CREDENTIALS,
    is_credential_name,
    is_placeholder,
    looks_secret,
    normalise,
)
from mlwiki.redact.rules import EMAIL_RULE, IP_RULES, SECRET_RULES

MARKER = "[REDACTED:{kind}]"
_MARKER_RE = re2.compile(r"^\[REDACTED:[a-z0-9_]+\]$")
_MARKER_IN_TEXT = re2.compile(r"\[REDACTED:[a-z0-9_]+\]")
# A flag whose value is the next argv item: `--password`, `-token`, `--api-key`, `--auth-token`.
_CREDENTIAL_FLAG = re2.compile(
    r"(?i)^--?(?:[a-z0-9]+-)*(?:password|passwd|passphrase|pass|token|secret|api-?key|"
    r"auth-?token|auth-?key|access-?key|secret-?key|client-?secret)$"
)
# Kept for callers that list the names; `names.is_credential_name` is the rule.
CREDENTIAL_KEYS = frozenset({"password", "token", "secret", "authorization", "cookie"})
# Block texts and detector values shorter than this are not hidden where they recur.
MIN_KNOWN = 8


@dataclass(frozen=True)
class Span:
    """One secret found in a text: `text[start:end]` is replaced by the marker of `kind`."""

    start: int
    end: int
    kind: str

    @property
    def marker(self) -> str:
        return MARKER.format(kind=self.kind)


@dataclass(frozen=True)
class _Rule:
    """One RE2 rule. Its own regex is compiled when the prefilter set first says it matches:
    most texts match a few rules of ~65, and compiling them all costs ~5 ms a command."""

    kind: str
    pattern: str
    options: Any  # re2.Options

    @cached_property
    def regex(self) -> Any:
        return re2.compile(self.pattern, self.options)

    @cached_property
    def groups(self) -> tuple[int, ...]:
        """The `secret*` groups; empty: the whole match."""
        return tuple(sorted(i for n, i in self.regex.groupindex.items() if n.startswith("secret")))

    @cached_property
    def name_group(self) -> Optional[int]:
        return self.regex.groupindex.get("name")

    @cached_property
    def loose_group(self) -> Optional[int]:
        """A loose name: the value must look secret."""
        return self.regex.groupindex.get("loose")


@lru_cache(maxsize=4)
def _compiled(emails: bool, ips: bool) -> tuple[tuple[_Rule, ...], Any]:
    patterns = list(SECRET_RULES)
    if emails:
        patterns.append(EMAIL_RULE)
    if ips:
        patterns.extend(IP_RULES)
    options = re2.Options()
    options.max_mem = 64 << 20
    prefilter = re2.Set.SearchSet(options)
    for _kind, pattern in patterns:
        prefilter.Add(pattern)
    prefilter.Compile()
    return tuple(_Rule(kind, pattern, options) for kind, pattern in patterns), prefilter


# A result repeats its strings (labels, names, log lines cited in several places): a walk keeps each
# distinct string's redaction, which `Redactor.find` would compute the same every time.
_Memo = dict[str, tuple[str, Counter[str]]]


@dataclass(frozen=True)
class Redactor:
    """Finds and replaces secrets; `emails` and `ips` turn on masking of those too."""

    emails: bool = False
    ips: bool = False
    # Secret texts learnt by `prepared` (value → kind): hidden wherever they occur.
    known: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    is_prepared: bool = field(default=False, compare=False)

    # -- preparation -----------------------------------------------------------------------------

    def prepared(self, values: Iterable[Any]) -> Redactor:
        """This redactor, also knowing the secrets found anywhere in `values` (one pass)."""
        values = list(values)
        known = dict(self.known)
        for text in split_block_texts(values):
            if len(text.strip()) >= MIN_KNOWN:
                known.setdefault(text.strip(), "private_key")
        for value, kind in detector.secrets_in(_strings(values)).items():
            known.setdefault(value, kind)
        ordered = tuple(sorted(known.items(), key=lambda item: (-len(item[0]), item[0])))
        return replace(self, known=ordered, is_prepared=True)

    # -- finding ---------------------------------------------------------------------------------

    def find(self, text: str) -> list[Span]:
        """The non-overlapping spans to replace, in text order (earlier rules win overlaps).

        Markers already in the text are never part of a span, which keeps redaction idempotent.
        """
        markers = (
            [match.span() for match in _MARKER_IN_TEXT.finditer(text)]
            if "[REDACTED:" in text
            else []
        )
        candidates: list[tuple[int, int, int, str]] = []

        def add(start: int, end: int, priority: int, kind: str) -> None:
            if end > start and not any(s < end and start < e for s, e in markers):
                candidates.append((start, priority, end, kind))

        rules, prefilter = _compiled(self.emails, self.ips)
        for index in sorted(prefilter.Match(text) or ()):
            rule = rules[index]
            for match in rule.regex.finditer(text):
                if rule.name_group is not None:
                    name_start, name_end = match.span(rule.name_group)
                    if not is_credential_name(match.group(rule.name_group) or "") or any(
                        s < name_end and name_start < e for s, e in markers
                    ):
                        continue
                group = next((g for g in rule.groups if match.start(g) >= 0), None)
                if group is None and rule.groups:
                    continue
                start, end = match.span(group) if group else match.span()
                if group and is_placeholder(text[start:end]):
                    continue
                if rule.loose_group is not None and (
                    not looks_secret(text[start:end])
                    or normalise(match.group(rule.loose_group) or "") in NOT_CREDENTIALS
                ):
                    continue
                if rule.name_group is not None and _prose(
                    text, match.end(rule.name_group), start, end
                ):
                    continue
                add(start, end, index, rule.kind)
        extra = dict(self.known)
        if not self.is_prepared:
            extra.update(detector.secrets_in([text]))
        base = len(rules)
        for priority, (value, kind) in enumerate(extra.items(), start=base):
            position = text.find(value)
            while position >= 0:
                add(position, position + len(value), priority, kind)
                position = text.find(value, position + len(value))
        spans: list[Span] = []
        for start, _priority, end, kind in sorted(candidates):
            if spans and start < spans[-1].end:
                # Overlapping finds are one secret: hide their union (no tail left visible).
                if end > spans[-1].end:
                    spans[-1] = Span(spans[-1].start, end, spans[-1].kind)
                continue
            spans.append(Span(start, end, kind))
        return spans

    # -- replacing -------------------------------------------------------------------------------

    def text(self, text: str) -> tuple[str, Counter[str]]:
        return self._render(text, self.find(text), 0, len(text))

    def excerpt(self, text: str, start: int, end: int) -> tuple[str, Counter[str]]:
        """`text[start:end]` redacted as it appears in `self.text(text)` (see module docstring)."""
        spans = self.find(text)
        for span in spans:
            if span.start < start < span.end:
                start = span.start
            if span.start < end < span.end:
                end = span.end
        return self._render(text, spans, start, end)

    def quote(self, quote: str, texts: list[str]) -> tuple[str, Counter[str]]:
        """A quote taken from one of `texts` (or from them joined by newlines), redacted as it
        appears in that text's redaction; a quote found in none is redacted on its own."""
        for text in [*texts, "\n".join(texts)]:
            position = text.find(quote) if quote else -1
            if position >= 0:
                return self.excerpt(text, position, position + len(quote))
        return self.text(quote)

    def obj(self, value: Any) -> tuple[Any, Counter[str]]:
        redactor = self if self.is_prepared else self.prepared([value])
        counts: Counter[str] = Counter()
        return redactor._walk(value, counts, {}), counts

    def findings(
        self, findings: dict[str, Any], entries: dict[str, dict[str, Any]]
    ) -> tuple[dict[str, Any], Counter[str]]:
        """Findings redacted, each evidence quote in the context of `entries[evidence id]`."""
        from mlwiki.logs.entry import entry_texts

        redactor = self if self.is_prepared else self.prepared([findings, list(entries.values())])
        counts: Counter[str] = Counter()
        quotes: dict[int, str] = {}
        stripped = _copy(findings)
        for index, item in enumerate(stripped.get("evidence") or []):
            if isinstance(item, dict) and isinstance(item.get("quote"), str):
                entry = entries.get(str(item.get("id")))
                texts = [t for _, t in entry_texts(entry)] if isinstance(entry, dict) else []
                quote, found = redactor.quote(item["quote"], texts)
                counts.update(found)
                quotes[index] = quote
                item["quote"] = ""
        redacted = redactor._walk(stripped, counts, {})
        for index, quote in quotes.items():
            redacted["evidence"][index]["quote"] = quote
        return redacted, counts

    def _text(self, text: str, counts: Counter[str], memo: _Memo) -> str:
        done = memo.get(text)
        if done is None:
            done = memo[text] = self.text(text)
        if done[1]:
            counts.update(done[1])
        return done[0]

    def _walk(self, value: Any, counts: Counter[str], memo: _Memo) -> Any:
        if isinstance(value, str):
            return self._text(value, counts, memo)
        if isinstance(value, list):
            return self._walk_list(value, counts, memo)
        if isinstance(value, dict):
            return self._walk_dict(value, counts, memo)
        return value

    def _walk_list(self, value: list[Any], counts: Counter[str], memo: _Memo) -> list[Any]:
        """Items redacted; in an argv list (`["--password", "x"]`) the value after a credential
        flag too."""
        result = []
        after_flag = False
        for item in value:
            if after_flag and isinstance(item, str) and item and not _MARKER_RE.match(item):
                result.append(MARKER.format(kind="credential"))
                counts["credential"] += 1
            else:
                result.append(self._walk(item, counts, memo))
            after_flag = isinstance(item, str) and bool(_CREDENTIAL_FLAG.match(item))
        return result

    def _walk_dict(
        self, value: dict[Any, Any], counts: Counter[str], memo: _Memo
    ) -> dict[Any, Any]:
        service_account = value.get("type") == "service_account" and "private_key" in value
        secret_pair = _secret_pair(value)
        result: dict[Any, Any] = {}
        for key, item in value.items():
            name = key if isinstance(key, str) else str(key)
            whole = isinstance(item, str) and (
                key == secret_pair or (is_credential_name(name) and not is_placeholder(item))
            )
            if whole:
                kind = (
                    "service_account_key"
                    if service_account and name.startswith("private_key")
                    else "credential"
                )
                if not _MARKER_RE.match(item):
                    item = MARKER.format(kind=kind)
                    counts[kind] += 1
            else:
                item = self._walk(item, counts, memo)
            if isinstance(key, str):
                key = self._text(key, counts, memo)
                while key in result:  # two keys redacted alike: keep both values
                    key += "'"
            result[key] = item
        return result

    @staticmethod
    def _render(text: str, spans: list[Span], start: int, end: int) -> tuple[str, Counter[str]]:
        counts: Counter[str] = Counter()
        parts: list[str] = []
        position = start
        for span in spans:
            if span.end <= start or span.start >= end:
                continue
            parts.append(text[position : span.start])
            parts.append(span.marker)
            counts[span.kind] += 1
            position = span.end
        parts.append(text[position:end])
        return "".join(parts), counts


_WORD = re2.compile(r"^[a-z]+$")


def _prose(text: str, name_end: int, start: int, end: int) -> bool:
    """`service account token: context deadline exceeded` is an error message, not a secret:
    after `NAME:` (no `=`), an unquoted lower-case word is the start of a sentence."""
    between = text[name_end:start]
    return (
        ":" in between
        and "=" not in between
        and not between.rstrip().endswith(("'", '"'))
        and bool(_WORD.match(text[start:end]))
    )


def _secret_pair(value: dict[Any, Any]) -> Optional[str]:
    """The key of a dict's secret half: Kubernetes `{"name": "DB_PASSWORD", "value": …}` pairs
    hide `value`, Kaggle's `{"username": …, "key": …}` hides `key`."""
    name = value.get("name")
    if isinstance(name, str) and isinstance(value.get("value"), str) and is_credential_name(name):
        return "value"
    if isinstance(value.get("username"), str) and isinstance(value.get("key"), str):
        return "key"
    return None


def _strings(values: Any) -> Iterable[str]:
    stack = [values]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def redact_text(text: str, *, emails: bool = False, ips: bool = False) -> tuple[str, Counter[str]]:
    """`text` with its secrets replaced, and the count of replacements per kind."""
    return Redactor(emails, ips).text(text)


def redact_obj(value: Any, *, emails: bool = False, ips: bool = False) -> tuple[Any, Counter[str]]:
    """A redacted copy of a JSON-like value, and the count of replacements per kind."""
    return Redactor(emails, ips).obj(value)


def redact_excerpt(
    text: str, start: int, end: int, *, emails: bool = False, ips: bool = False
) -> tuple[str, Counter[str]]:
    """`text[start:end]` redacted consistently with `redact_text(text)`."""
    return Redactor(emails, ips).excerpt(text, start, end)


def redact_findings(
    findings: dict[str, Any],
    entries: dict[str, dict[str, Any]],
    *,
    emails: bool = False,
    ips: bool = False,
) -> tuple[dict[str, Any], Counter[str]]:
    """Findings redacted for output; `entries` maps evidence ids to the entries they quote."""
    return Redactor(emails, ips).findings(findings, entries)


def find_leaks(name: str, data: bytes, redactor: Optional[Redactor] = None) -> list[str]:
    """See `mlwiki.redact.leaks.find_leaks`."""
    from mlwiki.redact.leaks import find_leaks as find

    return find(name, data, redactor or Redactor())
