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

Importing detect-secrets costs ~0.2 s (it imports `requests` and its whole scanning machinery),
a fixed cost of every command that prints redacted output, though most texts hold nothing any
plugin could find. A regex plugin's `analyze_string` yields only what its `denylist` regexes
`findall` in the text (the JWT plugin then filters those), so when none of the denylist regexes
finds anything, no plugin does. `python -m mlwiki.redact` writes the denylists of the
plugins we run (each regex's source and flags) to `mlwiki/redact/plugin_patterns.py`, with the
SHA-256 of the installed detect-secrets' plugin and plugin-discovery sources. `secrets_in`
first searches the text with those very regexes, compiled by the same `re`, and imports the
plugins only when one of them finds something, which then run as always. A pre-check that says
"nothing" is therefore exact, never a guess. When the installed detect-secrets is not the one
the table was written from (an upgrade, a patched copy), the table is not used and every text
goes to the plugins, so a stale table costs time, never a secret. The table is data in the
package, read with the package's own trust (never a cache a run writes).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Optional

import re2

WINDOW = 4096
OVERLAP = 512
MIN_SECRET = 8  # shorter "secrets" are not worth hiding and hit ordinary words
_EXCLUDED = frozenset({"IPPublicDetector", "PrivateKeyDetector"})  # ours cover whole PEM blocks
# Plugins whose own `analyze_string` keeps some of what their denylist finds (JWT: the formally
# valid tokens), and so finds nothing where the denylist finds nothing.
_FILTERING = frozenset({"JwtTokenDetector"})
_SLUG = re2.compile(r"[^a-z0-9]+")


TABLE = Path(__file__).resolve().parent / "plugin_patterns.py"
# The detect-secrets sources that decide which plugins run and what their regexes are: every
# plugin module, their discovery (custom plugins come from its settings) and its importer.
SOURCES = ("plugins/*.py", "core/plugins/*.py", "settings.py", "util/importlib.py")


@lru_cache(maxsize=1)
def installed_digest() -> Optional[str]:
    """SHA-256 of the installed detect-secrets' `SOURCES` (read, not imported); None when it
    cannot be read (it is then imported to be used)."""
    try:
        spec = find_spec("detect_secrets")
    except (ImportError, ValueError):
        return None
    locations = spec.submodule_search_locations if spec is not None else None
    if not locations:
        return None
    root = Path(next(iter(locations)))
    digest = hashlib.sha256()
    try:
        for path in sorted({p for pattern in SOURCES for p in root.glob(pattern)}):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    except OSError:
        return None
    return digest.hexdigest()


@lru_cache(maxsize=1)
def denylist() -> Optional[tuple[Any, ...]]:
    """The regexes of every plugin's denylist, compiled by `re` from the stored table when it
    was written from the installed detect-secrets; else None (see the module docstring)."""
    try:
        from mlwiki.redact.plugin_patterns import DIGEST, PATTERNS
    except ImportError:
        return None
    if installed_digest() != DIGEST:
        return None
    return tuple(re.compile(pattern, flags) for pattern, flags in PATTERNS)


def plugin_patterns() -> tuple[tuple[str, int], ...]:
    """(source, flags) of every denylist regex of the plugins `secrets_in` runs; raises when a
    plugin finds secrets some other way than its denylist (the pre-check would not hold)."""
    from detect_secrets.plugins.base import RegexBasedDetector

    for _kind, plugin in plugins():
        method = type(plugin).analyze_string
        if method is not RegexBasedDetector.analyze_string and (
            type(plugin).__name__ not in _FILTERING
        ):
            raise RuntimeError(f"{type(plugin).__name__}.analyze_string is not its denylist's")
    return tuple(
        (regex.pattern, regex.flags) for _kind, plugin in plugins() for regex in plugin.denylist
    )


def write_table() -> None:
    """Write the installed plugins' denylists and the digest of their sources to `TABLE`."""
    import pprint

    TABLE.write_text(
        '"""The denylist regexes of the detect-secrets plugins mlwiki runs, generated by '
        '`python -m mlwiki.redact` (see mlwiki/redact/detector.py). Do not edit."""\n\n'
        f"DIGEST = {installed_digest()!r}\n"
        f"PATTERNS = {pprint.pformat(plugin_patterns(), width=100)}\n",
        encoding="utf-8",
    )


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
    regexes = denylist()
    if regexes is not None and not any(regex.search(joined) for regex in regexes):
        return found  # no plugin's regex finds anything: no plugin can (module docstring)
    for kind, plugin in plugins():
        for value in plugin.analyze_string(joined):
            if isinstance(value, str) and len(value) >= MIN_SECRET and "[REDACTED:" not in value:
                found.setdefault(value, kind)
    return found
