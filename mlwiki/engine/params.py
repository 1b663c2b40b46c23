"""Typed action and workflow parameters: declared in the wiki, validated before any use.

Every value, whatever its type, is checked to stay exactly one harmless argument: it never starts
with `-` (so it cannot become a flag), never holds NUL, a line break or another control character.
Type checks then narrow it further (a Kubernetes name, a project id, a timestamp, …). A bad value is
a `BadInput` naming where it came from, e.g. `--param node: …`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import re2

from mlwiki.errors import BadInput

Value = Union[str, int]

PARAM_TYPES = (
    "k8s_name",
    "project_id",
    "timestamp",
    "duration",
    "enum",
    "integer",
    "string",
    "zone",
    "kube_context",
)
MAX_VALUE_LENGTH = 1024

_K8S_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_K8S_NAME = re.compile(rf"{_K8S_LABEL}(\.{_K8S_LABEL})*")
_PROJECT = r"[a-z][a-z0-9-]{4,28}[a-z0-9]"
# Legacy domain-scoped project ids look like `example.com:my-project`.
_PROJECT_ID = re.compile(rf"{_PROJECT}|[a-z0-9]([-a-z0-9.]*[a-z0-9])?\.[a-z]{{2,}}:{_PROJECT}")
_ZONE = re.compile(r"[a-z]+-[a-z]+[0-9]+(-[a-z])?")
_KUBE_CONTEXT = re.compile(r"[A-Za-z0-9_.:@/-]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class ParamSpec:
    """One declared parameter (`params.NAME` of an action or workflow file)."""

    name: str
    type: str
    required: bool = False
    description: str = ""
    default: Optional[Value] = None
    values: tuple[str, ...] = ()
    pattern: Optional[str] = None
    minimum: Optional[int] = None
    maximum: Optional[int] = None

    @classmethod
    def from_json(cls, name: str, data: Mapping[str, Any]) -> ParamSpec:
        return cls(
            name=name,
            type=str(data.get("type", "string")),
            required=data.get("required") is True,
            description=str(data.get("description", "")),
            default=data.get("default"),
            values=tuple(str(v) for v in data.get("values") or ()),
            pattern=data.get("pattern"),
            minimum=data.get("minimum"),
            maximum=data.get("maximum"),
        )


def specs_of(params: Mapping[str, Mapping[str, Any]]) -> dict[str, ParamSpec]:
    """The `params` object of an action or workflow file as `ParamSpec`s."""
    return {name: ParamSpec.from_json(name, data) for name, data in params.items()}


def _fail(where: str, message: str) -> BadInput:
    return BadInput(f"{where}: {message}")


def _check_k8s_name(value: str, where: str) -> str:
    if len(value) > 253 or not _K8S_NAME.fullmatch(value):
        raise _fail(
            where,
            f"{value!r} is not a Kubernetes name (lowercase letters, digits, '-' and '.', "
            "starting and ending with a letter or digit, at most 253 characters)",
        )
    return value


def _check_project(value: str, where: str) -> str:
    if not _PROJECT_ID.fullmatch(value):
        raise _fail(
            where,
            f"{value!r} is not a Google Cloud project id (6-30 characters: lowercase letters, "
            "digits and '-', starting with a letter)",
        )
    return value


def _check_timestamp(value: str, where: str) -> str:
    from mlwiki.timewindow import format_timestamp, parse_timestamp

    return format_timestamp(parse_timestamp(value, where))


def _check_duration(value: str, where: str) -> str:
    from mlwiki.timewindow import parse_duration

    seconds = max(1, round(parse_duration(value, where).total_seconds()))
    # Seconds are understood by both kubectl (`--since=3600s`) and gcloud (`--freshness=3600s`).
    return f"{seconds}s"


def _check_zone(value: str, where: str) -> str:
    if not _ZONE.fullmatch(value):
        raise _fail(where, f"{value!r} is not a Compute Engine zone (like us-east5-b)")
    return value


def _check_context(value: str, where: str) -> str:
    if len(value) > 253 or not _KUBE_CONTEXT.fullmatch(value):
        raise _fail(
            where,
            f"{value!r} is not a kubectl context name (letters, digits and _.:@/-, "
            "at most 253 characters)",
        )
    return value


_CHECKS: dict[str, Callable[[str, str], str]] = {
    "k8s_name": _check_k8s_name,
    "project_id": _check_project,
    "timestamp": _check_timestamp,
    "duration": _check_duration,
    "zone": _check_zone,
    "kube_context": _check_context,
}


def validate(spec: ParamSpec, value: Any, where: Optional[str] = None) -> Value:
    """The checked (and for some types canonical) value of `spec`, or a `BadInput` naming it."""
    where = where or f"--param {spec.name}"
    if isinstance(value, bool):
        value = "true" if value else "false"
    text = str(value)
    if text == "":
        raise _fail(where, "empty value")
    if len(text) > MAX_VALUE_LENGTH:
        raise _fail(where, f"value longer than {MAX_VALUE_LENGTH} characters")
    if _CONTROL.search(text):
        raise _fail(where, "value contains a control character (NUL, line break, tab, …)")
    if text.startswith("-"):
        raise _fail(where, f"{text!r} starts with '-' and could be taken for a flag")
    if spec.type in _CHECKS:
        return _CHECKS[spec.type](text, where)
    if spec.type == "enum":
        if text not in spec.values:
            raise _fail(where, f"{text!r} is not one of {', '.join(spec.values)}")
        return text
    if spec.type == "integer":
        # ASCII digits only: str.isdigit() also accepts '²' and '٣', which int() refuses.
        if not (text.isascii() and text.isdigit()) or len(text) > 18:
            raise _fail(where, f"{text[:40]!r} is not a whole number (0-9, at most 18 digits)")
        number = int(text)
        if spec.minimum is not None and number < spec.minimum:
            raise _fail(where, f"{number} is below the minimum {spec.minimum}")
        if spec.maximum is not None and number > spec.maximum:
            raise _fail(where, f"{number} is above the maximum {spec.maximum}")
        return number
    if spec.type == "string":
        if spec.pattern is not None and re2.fullmatch(spec.pattern, text) is None:
            raise _fail(where, f"{text!r} does not match the pattern {spec.pattern}")
        return text
    raise _fail(where, f"unknown parameter type {spec.type!r} (known: {', '.join(PARAM_TYPES)})")


@dataclass
class Resolved:
    """Validated values by name; `missing` lists required parameters that got no value."""

    values: dict[str, Value] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)


def resolve(
    specs: Mapping[str, ParamSpec],
    given: Mapping[str, Any],
    *,
    fill: Optional[Mapping[str, Any]] = None,
    where: Callable[[str], str] = lambda name: f"--param {name}",
    owner: str = "",
) -> dict[str, Value]:
    """Validate `given` against `specs`; add `fill` values and defaults for the rest.

    Unknown names and missing required parameters are a `BadInput`; `owner` (e.g. "action
    cordon-node") is named in those messages.
    """
    resolved = resolve_partial(specs, given, fill=fill, where=where, owner=owner)
    if resolved.missing:
        names = ", ".join(resolved.missing)
        raise BadInput(f"{where(resolved.missing[0])}: required{_of(owner)}; missing: {names}")
    return resolved.values


def resolve_partial(
    specs: Mapping[str, ParamSpec],
    given: Mapping[str, Any],
    *,
    fill: Optional[Mapping[str, Any]] = None,
    where: Callable[[str], str] = lambda name: f"--param {name}",
    owner: str = "",
) -> Resolved:
    """Like `resolve`, but missing required parameters are reported in `missing`, not raised."""
    unknown = sorted(set(given) - set(specs))
    if unknown:
        known = ", ".join(sorted(specs)) or "none"
        raise BadInput(
            f"{where(unknown[0])}: unknown parameter{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(unknown)}{_of(owner)} (known: {known})"
        )
    result = Resolved()
    for name, spec in specs.items():
        if name in given and given[name] is not None:
            result.values[name] = validate(spec, given[name], where(name))
        elif fill and fill.get(name) is not None:
            result.values[name] = validate(spec, fill[name], where(name))
        elif spec.default is not None:
            result.values[name] = validate(spec, spec.default, f"{where(name)} (default)")
        elif spec.required:
            result.missing.append(name)
    return result


def _of(owner: str) -> str:
    return f" by {owner}" if owner else ""


def parse_param_args(items: Optional[Iterable[str]], flag: str = "--param") -> dict[str, str]:
    """`["k=v", "a=b=c"]` → `{"k": "v", "a": "b=c"}`; a malformed or repeated name is BadInput."""
    params: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise BadInput(f"{flag} {item!r}: expected NAME=VALUE")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise BadInput(f"{flag} {name}: parameter names are lowercase snake_case")
        if name in params:
            raise BadInput(f"{flag} {name}: given more than once")
        params[name] = value
    return params
