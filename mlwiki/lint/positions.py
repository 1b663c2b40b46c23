"""Find the line of a field path (`steps[2].uses`) in YAML frontmatter or a JSON file.

Only called when a problem is reported, so the extra YAML composition costs nothing on a clean
wiki. JSON is read as YAML (a flow mapping) to get node positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional, Union

import yaml

from mlwiki.wiki import Workflow

try:  # libyaml when present: same nodes, faster
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

PathPart = Union[str, int]


def line_of_path(text: str, path: Sequence[PathPart], first_line: int = 1) -> Optional[int]:
    """The 1-based line (offset by `first_line` - 1) where the value at `path` starts, or None.

    For a missing key, the line of the deepest existing parent is returned.
    """
    try:
        node = yaml.compose(text.replace("\t", " "), Loader=_Loader)
    except yaml.YAMLError:
        return None
    if node is None:
        return None
    line = node.start_mark.line
    for part in path:
        child = _child(node, part)
        if child is None:
            break
        node, line = child
    return first_line + line


def _child(node: yaml.Node, part: PathPart) -> Optional[tuple[yaml.Node, int]]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                return value, key.start_mark.line
    if (
        isinstance(node, yaml.SequenceNode)
        and isinstance(part, int)
        and 0 <= part < len(node.value)
    ):
        item = node.value[part]
        return item, item.start_mark.line
    return None


def step_line(workflow: Workflow, step: dict[str, Any]) -> int:
    """The line of a step's `"id": "<step id>"` in its workflow file, else of the `steps` key."""
    needle = f'"{step.get("id")}"'
    for number, text in enumerate(workflow.text.splitlines(), start=1):
        if needle in text and '"id"' in text:
            return number
    return workflow.line_of("steps")
