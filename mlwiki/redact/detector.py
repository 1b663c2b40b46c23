"""The maintained detector: detect-secrets' regex plugins (Yelp), run on our text, never online.

detect-secrets keeps up with vendors' token formats; we use every one of its regex-based plugins
(found at run time, so an upgrade brings new formats in) except the public-IP one (IPs are
masked only on request, by our own rule). Its entropy plugins and its keyword plugin are left
out: the first flag insertIds, hashes and HLO names in benign logs, the second costs twenty times
the rest and our RE2 name rules cover the same assignments.

Only `analyze_string` is called — never `analyze_line`/`verify`, which may send a found secret to
its vendor to check it. The plugins use Python's `re`, so each text is cut into lines of at most
`WINDOW` characters (overlapping, so no secret is lost at a cut) to keep their time bounded on a
hostile line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

import re2

WINDOW = 4096
OVERLAP = 512
MIN_SECRET = 8  # shorter "secrets" are not worth hiding and hit ordinary words
_EXCLUDED = frozenset({"IPPublicDetector", "PrivateKeyDetector"})  # ours cover whole PEM blocks
_SLUG = re2.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=1)
def plugins() -> tuple[tuple[str, Any], ...]:
    """(kind, plugin) for every regex plugin of the installed detect-secrets."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    found = []
    for secret_type, plugin_class in sorted(get_mapping_from_secret_type_to_class().items()):
        if issubclass(plugin_class, RegexBasedDetector) and plugin_class.__name__ not in _EXCLUDED:
            kind = _SLUG.sub("_", secret_type.lower()).strip("_")
            found.append((kind, plugin_class()))
    return tuple(found)


def _windows(text: str) -> Iterator[str]:
    for line in text.splitlines():
        if len(line) <= WINDOW:
            yield line
            continue
        for start in range(0, len(line), WINDOW - OVERLAP):
            yield line[start : start + WINDOW]


def secrets_in(texts: Iterable[str]) -> dict[str, str]:
    """Every secret value the plugins find in `texts` → its kind (first plugin wins)."""
    # Each distinct text once: a secret in a text is found in any copy of it, and a result repeats
    # most of its strings (a 100k-entry run's result: 4.6M strings, 276k distinct).
    joined = "\n".join(window for text in dict.fromkeys(texts) for window in _windows(text))
    found: dict[str, str] = {}
    if not joined:
        return found
    for kind, plugin in plugins():
        for value in plugin.analyze_string(joined):
            if isinstance(value, str) and len(value) >= MIN_SECRET and "[REDACTED:" not in value:
                found.setdefault(value, kind)
    return found
