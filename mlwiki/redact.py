"""Redaction of secrets (and optionally e-mail addresses and IPs) before anything leaves the machine.

One module, used by `mlwiki handoff` and by the MCP server, so that every path out of the tool hides
the same things the same way. Public API:

- `redact_text(text, *, emails=False, ips=False) -> (str, Counter)`: the text with each secret
  replaced by a marker `[REDACTED:<kind>]`, and how many of each kind were replaced.
- `redact_obj(obj, *, emails=False, ips=False) -> (obj, Counter)`: the same over a JSON-like value
  (dicts, lists, strings; other scalars untouched), returning a new value. Besides the text patterns,
  a dict that is a service-account key (`"type": "service_account"` with `private_key`) loses its
  `private_key` and `private_key_id`, and string values under credential-like keys (`password`,
  `token`, `authorization`, `cookie`, …) are replaced whole.
- `redact_excerpt(text, start, end, …) -> (str, Counter)`: the redacted form of `text[start:end]`
  as it appears inside `redact_text(text)`; a secret cut by the excerpt's edges is widened to the
  whole secret, so the result is always a substring of the redacted text and no partial secret
  survives. Use it to redact a quote taken from a longer log line.
- `Redactor(emails=…, ips=…)`: the same operations as methods, for repeated use; `Redactor.find`
  lists the spans it would replace.

Kinds: `private_key` (PEM blocks, also cut-off ones and ones with `\\n` escapes),
`service_account_key` (`private_key_id` values), `oauth_token` (`ya29.…`), `bearer_token`
(`Authorization: Bearer …`), `basic_auth`, `jwt`, `api_key` (`AIza…`), `aws_access_key`,
`github_token`, `slack_token`, `url_password` (`scheme://user:PASSWORD@host`), `cookie`
(`Cookie:` / `Set-Cookie:` values), `credential` (`password=…`, `"client_secret": "…"`, and
values under credential-like keys), and when asked `email`, `ip`.

Redaction is deterministic and idempotent: the same input always gives the same output, and a
redacted text is left as it is (markers are never re-counted). Patterns are RE2 (linear time, so a
hostile log line cannot make redaction slow).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

import re2

MARKER = "[REDACTED:{kind}]"
_MARKER_RE = re2.compile(r"^\[REDACTED:[a-z0-9_]+\]$")
_MARKER_IN_TEXT = re2.compile(r"\[REDACTED:[a-z0-9_]+\]")

# (kind, RE2 pattern). A group named `secret` marks the part to replace (the rest is context kept
# for readability); without it the whole match is replaced. Earlier entries win overlaps.
_SECRET_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:(?s:.*?)-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----"
        r"|[A-Za-z0-9+/=\s\\]*)",
    ),
    (
        "service_account_key",
        r"private_key_id\\?[\"']\s*:\s*\\?[\"'](?P<secret>[0-9A-Za-z]{16,})",
    ),
    ("oauth_token", r"\bya29\.[0-9A-Za-z_.\-]{10,}"),
    (
        "bearer_token",
        r"(?i)\bauthorization\\?[\"']?\s*[:=]\s*\\?[\"']?\s*bearer\s+(?P<secret>[A-Za-z0-9\-._~+/]+=*)",
    ),
    (
        "basic_auth",
        r"(?i)\bauthorization\\?[\"']?\s*[:=]\s*\\?[\"']?\s*basic\s+(?P<secret>[A-Za-z0-9+/]+=*)",
    ),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("api_key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ("slack_token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("url_password", r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@\"'<>]*:(?P<secret>[^/\s@\"'<>]+)@"),
    ("cookie", r"(?i)\b(?:set-)?cookie\\?[\"']?\s*:\s*\\?[\"']?(?P<secret>[^\r\n\"\\]+)"),
    (
        "credential",
        r"(?i)\b(?:password|passwd|pwd|client_secret|secret_key|access_token|refresh_token|api_key|"
        r"apikey)\\?[\"']?\s*[=:]\s*\\?[\"']?(?P<secret>[^\s\"'&,;\\]{3,})",
    ),
)
_EMAIL_PATTERN = (
    "email",
    r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}\b",
)
_IP_PATTERNS = (
    (
        "ip",
        r"\b(?:(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\b",
    ),
    (
        "ip",
        r"\b(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\b"
        r"|\b(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4}\b",
    ),
)

# Keys whose string value is a credential whatever it looks like (compared case-insensitively,
# with `-` read as `_`).
CREDENTIAL_KEYS = frozenset(
    {
        "password",
        "passwd",
        "secret",
        "client_secret",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "api_key",
        "apikey",
        "authorization",
        "proxy_authorization",
        "cookie",
        "set_cookie",
        "private_key",
        "private_key_id",
    }
)


@dataclass(frozen=True)
class Span:
    """One secret found in a text: `text[start:end]` is replaced by the marker of `kind`."""

    start: int
    end: int
    kind: str

    @property
    def marker(self) -> str:
        return MARKER.format(kind=self.kind)


@lru_cache(maxsize=4)
def _compiled(emails: bool, ips: bool) -> tuple[tuple[str, Any, Optional[int]], ...]:
    patterns = list(_SECRET_PATTERNS)
    if emails:
        patterns.append(_EMAIL_PATTERN)
    if ips:
        patterns.extend(_IP_PATTERNS)
    compiled = []
    for kind, pattern in patterns:
        regex = re2.compile(pattern)
        compiled.append((kind, regex, regex.groupindex.get("secret")))
    return tuple(compiled)


@dataclass(frozen=True)
class Redactor:
    """Finds and replaces secrets; `emails` and `ips` turn on masking of those too."""

    emails: bool = False
    ips: bool = False

    def find(self, text: str) -> list[Span]:
        """The non-overlapping spans to replace, in text order (earlier patterns win overlaps).

        Markers already in the text are never part of a span, which keeps redaction idempotent.
        """
        markers = (
            [match.span() for match in _MARKER_IN_TEXT.finditer(text)]
            if "[REDACTED:" in text
            else []
        )
        candidates: list[tuple[int, int, int, str]] = []
        for priority, (kind, regex, group) in enumerate(_compiled(self.emails, self.ips)):
            for match in regex.finditer(text):
                start, end = match.span(group) if group else match.span()
                if end > start and not any(s < end and start < e for s, e in markers):
                    candidates.append((start, priority, end, kind))
        spans: list[Span] = []
        for start, _priority, end, kind in sorted(candidates):
            if spans and start < spans[-1].end:
                continue
            spans.append(Span(start, end, kind))
        return spans

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

    def obj(self, value: Any) -> tuple[Any, Counter[str]]:
        counts: Counter[str] = Counter()
        return self._walk(value, counts), counts

    def _walk(self, value: Any, counts: Counter[str]) -> Any:
        if isinstance(value, str):
            redacted, found = self.text(value)
            counts.update(found)
            return redacted
        if isinstance(value, list):
            return [self._walk(item, counts) for item in value]
        if isinstance(value, dict):
            service_account = value.get("type") == "service_account" and "private_key" in value
            result: dict[Any, Any] = {}
            for key, item in value.items():
                normalized = str(key).lower().replace("-", "_")
                if isinstance(item, str) and item and normalized in CREDENTIAL_KEYS:
                    if _MARKER_RE.search(item):
                        result[key] = item
                        continue
                    kind = (
                        "service_account_key"
                        if service_account and normalized.startswith("private_key")
                        else "credential"
                    )
                    result[key] = MARKER.format(kind=kind)
                    counts[kind] += 1
                else:
                    result[key] = self._walk(item, counts)
            return result
        return value

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
