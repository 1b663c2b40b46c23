"""Whether a signature's anchors hold when texts are matched joined by line breaks.

The diagnosis vouches for a batch of healthy entries by matching their texts joined by line
breaks once (`mlwiki.diagnose.signatures.SignatureSet.clear_of`), reading `^` and `$` in
multi-line mode. `\\A` and `\\z` (the whole text's edges) and a flag group that turns
multi-line mode off cannot be read that way: one such pattern leaves the check unable to
promise anything, and every entry of every bundle is then scanned on its own. The linter
(E607) refuses them; `^`/`$` say the same of a single text.
"""

from __future__ import annotations

import re

_NOT_MULTILINE = re.compile(r"\(\?[a-zA-Z]*-[a-zA-Z]*m")  # a flag group turning `m` off


def text_edge_anchor(pattern: str) -> bool:
    """Whether `pattern` anchors at a whole text's edge (`\\A`, `\\z`, multi-line mode off)."""
    return "\\A" in pattern or "\\z" in pattern or bool(_NOT_MULTILINE.search(pattern))
