"""Typed parameters: every type, the one-argument rules, defaults, required, `--param` parsing."""

from __future__ import annotations

import pytest

from mlwiki.engine.params import ParamSpec, parse_param_args, resolve, validate
from mlwiki.errors import BadInput

HOSTILE = ["a;rm -rf /", "--all", "$(id)", "`id`", "two words", "a\nb", "-n kube-system", "a\x00b"]


@pytest.mark.parametrize(
    ("kind", "good", "canonical"),
    [
        ("k8s_name", "gke-tpu-v5p-pool-1-abcd.x", None),
        ("project_id", "demo-project-42", None),
        ("project_id", "example.com:my-project", None),
        ("timestamp", "2024-05-01T14:00:00+02:00", "2024-05-01T12:00:00Z"),
        ("duration", "90m", "5400s"),
        ("zone", "us-east5-b", None),
        ("kube_context", "gke_demo-project_us-east5_cluster-1", None),
        ("string", "anything: with spaces", None),
    ],
)
def test_valid_values(kind: str, good: str, canonical: str) -> None:
    assert validate(ParamSpec("p", kind), good) == (canonical or good)


@pytest.mark.parametrize(
    ("kind", "bad"),
    [
        ("k8s_name", "Upper"),
        ("k8s_name", "ends-"),
        ("k8s_name", "x" * 254),
        ("project_id", "short"),
        ("project_id", "Demo-project"),
        ("timestamp", "yesterday"),
        ("duration", "soon"),
        ("zone", "us_east5"),
        ("kube_context", "ctx with space"),
    ],
)
def test_invalid_values_name_the_param(kind: str, bad: str) -> None:
    with pytest.raises(BadInput, match=r"^--param p: "):
        validate(ParamSpec("p", kind), bad)


@pytest.mark.parametrize("kind", ["k8s_name", "kube_context", "integer", "zone", "project_id"])
@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_values_are_refused(kind: str, value: str) -> None:
    with pytest.raises(BadInput, match=r"^--param p: "):
        validate(ParamSpec("p", kind), value)


@pytest.mark.parametrize("value", HOSTILE)
def test_strings_refuse_flags_and_control_characters_only(value: str) -> None:
    # A free string may hold spaces or `;`: it is passed as ONE argument, never to a shell.
    spec = ParamSpec("p", "string")
    if value.startswith("-") or not value.isprintable():
        with pytest.raises(BadInput, match=r"^--param p: "):
            validate(spec, value)
    else:
        assert validate(spec, value) == value


def test_enum_integer_and_string_pattern() -> None:
    assert validate(ParamSpec("e", "enum", values=("a", "b")), "b") == "b"
    with pytest.raises(BadInput, match="not one of a, b"):
        validate(ParamSpec("e", "enum", values=("a", "b")), "c")
    assert validate(ParamSpec("n", "integer", minimum=1, maximum=10), "7") == 7
    for bad in ("0", "11", "1.5", "x"):
        with pytest.raises(BadInput, match="--param n"):
            validate(ParamSpec("n", "integer", minimum=1, maximum=10), bad)
    spec = ParamSpec("s", "string", pattern="[a-z]+[0-9]")
    assert validate(spec, "abc1") == "abc1"
    with pytest.raises(BadInput, match="does not match"):
        validate(spec, "abc1x")  # full match, not search


def test_resolve_defaults_required_unknown_and_fill() -> None:
    specs = {
        "node": ParamSpec("node", "k8s_name", required=True),
        "tail": ParamSpec("tail", "integer", default=100),
        "project": ParamSpec("project", "project_id"),
    }
    values = resolve(specs, {"node": "n1"}, fill={"project": "demo-project"})
    assert values == {"node": "n1", "tail": 100, "project": "demo-project"}
    with pytest.raises(BadInput, match="--param node: required"):
        resolve(specs, {})
    with pytest.raises(BadInput, match="unknown parameters bogus, other"):
        resolve(specs, {"node": "n1", "bogus": "1", "other": "2"})


def test_parse_param_args() -> None:
    assert parse_param_args(["a=1", "selector=k=v=w", "empty="]) == {
        "a": "1",
        "selector": "k=v=w",
        "empty": "",
    }
    for bad in (["novalue"], ["=x"], ["a=1", "a=2"], ["Bad=1"]):
        with pytest.raises(BadInput, match="--param"):
            parse_param_args(bad)
