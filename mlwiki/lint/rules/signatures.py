"""Signature rules: patterns are RE2, examples match their own page, counter-examples do not
(neither their own page's signatures nor another page's, unless that page owns the line)."""

from __future__ import annotations

from collections.abc import Iterator

from mlwiki.lint.context import LintContext, applies_to, compile_re2
from mlwiki.lint.model import Finding
from mlwiki.signature_anchors import text_edge_anchor
from mlwiki.wiki import Action, Symptom

# Named groups the diagnosis reads (what a cascade points to); see SCHEMA.md.
KNOWN_GROUPS = frozenset({"task", "host", "pod", "slice", "job"})


def bad_regex(ctx: LintContext, symptom: Symptom) -> Iterator[Finding]:
    line = symptom.page.line_of("signatures")
    for index, signature in enumerate(symptom.signatures):
        error = ctx.re2_error(signature.pattern)
        if error:
            yield Finding(
                symptom.page.path, line, f"signatures[{index}].pattern is not valid RE2: {error}"
            )


def text_edge_anchor_used(ctx: LintContext, symptom: Symptom) -> Iterator[Finding]:
    line = symptom.page.line_of("signatures")
    for index, signature in enumerate(symptom.signatures):
        if text_edge_anchor(signature.pattern):
            yield Finding(
                symptom.page.path,
                line,
                f"signatures[{index}].pattern anchors at the whole text's edge (\\A, \\z or multi-line mode off): "
                "use ^ and $, or every entry is scanned on its own (mlwiki.signature_anchors)",
            )


def bad_extract(ctx: LintContext, action: Action) -> Iterator[Finding]:
    extract = action.data.get("extract")
    for name, pattern in (extract if isinstance(extract, dict) else {}).items():
        if not isinstance(pattern, str):
            continue
        regex, error = compile_re2(pattern)
        if error:
            yield Finding(
                action.path, action.line_of("extract"), f"extract.{name} is not valid RE2: {error}"
            )
        elif regex.groups != 1:
            yield Finding(
                action.path,
                action.line_of("extract"),
                f"extract.{name} must have exactly one capture group (has {regex.groups})",
            )


def unknown_group(ctx: LintContext, symptom: Symptom) -> Iterator[Finding]:
    for signature in ctx.own_signatures(symptom):
        for name in sorted(set(signature.regex.groupindex) - KNOWN_GROUPS):
            yield Finding(
                symptom.page.path,
                symptom.page.line_of("signatures"),
                f"named group '{name}' in '{signature.pattern}' is not one the diagnosis reads ({', '.join(sorted(KNOWN_GROUPS))})",
            )


def example_unmatched(ctx: LintContext, symptom: Symptom) -> Iterator[Finding]:
    line = symptom.page.line_of("examples")
    for index, example in enumerate(symptom.examples):
        matched = [s for s in ctx.matching_signatures(example.line) if s.symptom == symptom.id]
        if not any(applies_to(s.field, example.field) for s in matched):
            applicable = sum(
                applies_to(s.field, example.field) for s in ctx.own_signatures(symptom)
            )
            where = f" (field {example.field})" if example.field else ""
            yield Finding(
                symptom.page.path,
                line,
                f"examples[{index}]{where} matches none of this page's {applicable} applicable "
                f"signature(s): {example.line[:120]!r}",
            )


def counter_example_matched(ctx: LintContext, symptom: Symptom) -> Iterator[Finding]:
    line = symptom.page.line_of("counter_examples")
    for index, example in enumerate(symptom.counter_examples):
        own = [s for s in ctx.matching_signatures(example.line) if s.symptom == symptom.id]
        if own:
            yield Finding(
                symptom.page.path,
                line,
                f"counter_examples[{index}] matches this page's signature '{own[0].pattern}': "
                f"{example.line[:120]!r}",
            )


def counter_example_elsewhere(ctx: LintContext, symptom: Symptom) -> Iterator[Finding]:
    """A look-alike that some other page's signature fires on is a false alarm waiting on real
    logs (a FailedScheduling about an unbound claim blamed on TPU capacity), unless the line is
    that page's own: `belongs_to` names the pages allowed to match it."""
    line = symptom.page.line_of("counter_examples")
    for index, counter in enumerate(symptom.counter_examples):
        for owner in counter.belongs_to:
            if owner not in ctx.wiki.symptoms:
                yield Finding(
                    symptom.page.path,
                    line,
                    f"counter_examples[{index}].belongs_to names '{owner}', which is not a symptom page",
                )
        others = sorted(
            {
                s.symptom
                for s in ctx.matching_signatures(counter.line)
                if s.symptom != symptom.id
                and s.symptom not in counter.belongs_to
                and applies_to(s.field, None)
            }
        )
        if others:
            yield Finding(
                symptom.page.path,
                line,
                f"counter_examples[{index}] is matched by {', '.join(others)} (not in its belongs_to): "
                f"{counter.line[:120]!r}",
            )


def example_overlap(ctx: LintContext, symptom: Symptom) -> Iterator[Finding]:
    line = symptom.page.line_of("examples")
    for index, example in enumerate(symptom.examples):
        others = sorted(
            {
                s.symptom
                for s in ctx.matching_signatures(example.line)
                if s.symptom != symptom.id and applies_to(s.field, example.field)
            }
        )
        if others:
            yield Finding(
                symptom.page.path,
                line,
                f"examples[{index}] also matches {', '.join(others)}: make sure the roles tell them apart",
            )


# Cloud Logging refuses a filter longer than this; the values a caller passes (a host list, a
# long workload name) need room too, as in the live plan.
LOGGING_FILTER_LIMIT = 20_000
VALUE_ROOM = 1_000
_SAMPLE_VALUES = {
    "timestamp": "2025-01-01T00:00:00Z",
    "duration": "1h",
    "integer": 1,
    "zone": "us-central1-a",
    "project_id": "my-project-123456",
}


def filter_too_long(ctx: LintContext, action: Action) -> Iterator[Finding]:
    """`symptom_match()` writes a page's signatures into the query once per message field the
    query can select (`mlwiki.engine.render`), so a log query OR-ing several pages grows with
    the knowledge past Cloud Logging's limit. A live run then sends it in parts cut at its
    longest OR (`mlwiki.logs.split`); what no cut brings under the limit (one page's clauses
    too long with the rest of the query, or no OR to cut) is caught here, where a signature is
    added, instead of in a live run."""
    from mlwiki.engine.params import ParamSpec
    from mlwiki.engine.render import render_filter
    from mlwiki.errors import BadInput, MlwikiError
    from mlwiki.logs.split import split_filter

    if action.data.get("kind") != "log_query" or not isinstance(action.data.get("filter"), str):
        return
    values = {}
    for name, data in (action.data.get("params") or {}).items():
        spec = ParamSpec.from_json(name, data if isinstance(data, dict) else {})
        default = spec.default if spec.default is not None else None
        values[name] = default or (spec.values[0] if spec.values else None)
        if values[name] is None:
            values[name] = _SAMPLE_VALUES.get(spec.type, "a")
    try:
        rendered = render_filter(action, values, ctx.wiki)
    except MlwikiError:
        return  # a filter that does not render is another rule's finding
    try:
        split_filter(rendered, LOGGING_FILTER_LIMIT - VALUE_ROOM)
    except BadInput as error:
        yield Finding(
            action.path,
            action.line_of("filter"),
            f"the filter renders to {len(rendered):,} characters with its signatures and cannot "
            f"be sent in parts under Cloud Logging's {LOGGING_FILTER_LIMIT:,} (the values need "
            f"about {VALUE_ROOM:,}): {str(error).split(': ', 1)[-1]}",
        )
