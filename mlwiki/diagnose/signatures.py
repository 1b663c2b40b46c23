"""Every symptom page's signatures compiled once into RE2 sets, one set per field.

Matching an entry costs one `re2.Set.Match` per message text the entry has (whatever the number
of signatures: the default signatures and those bound to a message field share one set), plus one
per other signature field the entry has; only the signatures the set reports are then re-run on
their own, to learn the span (for the quote) and the named groups (`task`, `host`, `pod`,
`slice`, `job`: what a cascade points to). A signature without named groups found in a text of
one line is not re-run: the quote is that whole line whatever the span. What to do with each
answer of the set (which signatures to re-run, which symptoms it names) is worked out once per
kind of answer, as a noisy run's thousands of matching lines are found by a few signatures.

A catch-all page (`generic: true` in its frontmatter: an uncaught exception, a fatal abort) says
only that something failed; a specific page that *explains* that failure takes its place, so
"ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer" is an HBM OOM and not also an
application exception. Which specific matches explain a catch-all (`SignatureSet.explains`) is
one rule wherever the two meet — one entry, one written record, lines of a stream moments apart:
- a specific root or cascade page anywhere in the same text or record: the root names the cause
  (an OOM report under the traceback), the cascade says the failure was another task's;
- a symptom or consequence page only on a line the catch-all matches too: the exception's own
  message is then the symptom ("RuntimeError: … Barrier timed out"). Elsewhere in the record a
  symptom or consequence reports the failure's *effect* — a launcher's `EXIT_CODE=1` summary
  under the traceback, a status row — and is no rival: both stand, and the catch-all stays the
  record's root (a root and a symptom answer different questions).

A signature bound to `textPayload` is about what a container printed. A container whose logger
writes JSON lines has the same text in `jsonPayload.message` (`msg`, `error`, `err`: zap, logr,
klog's JSON), so on a `k8s_container` entry without `textPayload` those fields answer for it.

An entry's kind (its audit `methodName`, its event `reason`) yields to its own message: when a
page matches only the kind and another page of the same role matches the message text, the
message names the cause — a system event recorded as `compute.instances.preempted` whose status
says "Instance terminated during Compute Engine maintenance." is host maintenance.

The pass first matches a batch of entries' message texts at once (`clear_of`): joined by line
breaks, they are searched by the same set, and by a small set of the signatures holding `^` or
`$` compiled in multi-line mode (there `^` and `$` also hold at each joined text's ends, where
they held in the text alone; `\\b` sees a line break as it sees a text's edge), so a signature
that matches one of the texts alone matches the joined ones. When nothing matches, no entry of
the batch needs a set match of its own (most batches of a healthy run: one set match per
batch instead of one per text); else each is matched on its own as above. A text holding a
line break (see below) and an entry of unusual shape are always matched on their own.

A message text holding line breaks is matched a second time in its flowed view (every run of
whitespace with a line break read as one space: a wrapped message as the line it was, see
`mlwiki.diagnose.flowed`), for the pages the text as written did not match; the quote is the
written line(s) holding the match.

A non-ASCII message text is matched with its typographic quotes and no-break spaces read as
their ASCII characters, one for one (coreutils and some loggers print a typographic `‘file’`
where others print `'file'`; an exclusion such as "not followed by a double quote" must see the
program's quote).

A message text that logging wrapped (terminal escapes, a CRLF line end, typographic quotes, tabs,
an escaped string, a launcher's, runtime's or logger's prefix: `mlwiki.diagnose.unwrapped`) is
matched a second time in its unwrapped view, for the pages neither view above matched: against
every message-text signature, or, when only prefixes were taken off, against those anchored at a
line start alone (the only ones a prefix can hide a message from). The quote is the written
line(s) holding the match, as for the flowed view.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import re2

from mlwiki.diagnose.flowed import Flowed, flowed, flowed_text
from mlwiki.diagnose.flowed import span as written_span
from mlwiki.diagnose.unwrapped import (
    PLAIN_BREAKERS,
    STARTS,
    TYPOGRAPHIC_ONLY,
    Unwrapped,
    line_anchored,
    unwrapped,
)
from mlwiki.diagnose.unwrapped import span as unwrapped_span
from mlwiki.logs.entry import EntryFacts, facts_of, field_value, split_path
from mlwiki.signature_anchors import text_edge_anchor
from mlwiki.wiki import EXPLAINING_ROLES, MESSAGE_FIELDS, Symptom
from mlwiki.wiki_cache import signature_verdicts

DEFAULT_FIELD = ""  # the entry's message text fields (see `entry_texts`)
# A signature bound to `textPayload` is about what a container printed; a container whose logger
# writes JSON lines prints it into one of these fields of `jsonPayload` instead (GKE's agent
# parses the line), so on such a container entry they answer for `textPayload` signatures too.
CONTAINER_TEXT = "textPayload"
STRUCTURED_TEXT = frozenset(
    {"jsonPayload.message", "jsonPayload.msg", "jsonPayload.error", "jsonPayload.err"}
)
# Fields that name what kind of record an entry is (an audit method, an event reason), not what
# happened to this instance: the entry's own message says that (see the module docstring).
KIND_FIELDS = frozenset({"protoPayload.methodName", "jsonPayload.reason"})
MAX_QUOTE = 2000  # characters; a longer matching line is cut around the match
MAX_PLANS = 4096  # distinct (field, signatures found) pairs a set remembers, per table
LONG_PATTERN = 2000  # characters; a longer signature is compiled to be checked (`_checked`)
NAMED, PLAIN = "named", "plain"  # a valid pattern's verdict: it has named groups, or none
_last_set: Optional[tuple[tuple[Any, ...], SignatureSet]] = None  # see `signature_set`


@dataclass(frozen=True)
class CompiledSignature:
    symptom: str
    role: str
    layer: str
    pattern: str
    field: Optional[str]
    named: bool = False  # it has named groups (what a match captures)

    @functools.cached_property
    def regex(self) -> Any:
        """The signature alone (re2._Regexp), compiled when a match is first re-run for its span
        or groups: most signatures of a run are only ever answered by their set."""
        return re2.compile(self.pattern)


def _checked(pattern: str, probe: Any) -> tuple[Optional[Any], bool]:
    """(the compiled regex if it was compiled now, whether it has named groups) of a pattern
    that is valid RE2; raises re2.error as `re2.compile` does for one that is not.

    Compiling each of a wiki's ~500 signatures alone costs ~0.07 s a run, parsing them ~0.006 s,
    so only a pattern that parsing cannot vouch for is compiled here: one that may name a group
    (RE2 spells a named group `(?P<` or `(?<`: without either it has none) and one whose program
    might exceed RE2's default memory (which only a compiler finds): a counted repetition or a
    code point written `\\x{…}` (spelled with `{`), a Unicode class (`\\p`, `\\P`: hundreds of
    byte ranges each), or a pattern over `LONG_PATTERN` characters. Any other pattern compiles
    to a few instructions per character (at most a few dozen for a class of non-ASCII
    characters), far below that memory, so it is valid exactly when it parses (`probe.Add`: a
    set never compiled).

    A valid pattern's verdict (named groups or none) is kept in the user cache
    (`mlwiki.wiki_cache.signature_verdicts`, under the pattern, this module's source and the
    installed RE2), so a later command neither parses nor compiles it to learn that again: the
    ~70 compiled here cost ~0.015 s a run. An invalid one is checked every time (its message
    is a problem the report names)."""
    if (
        "{" in pattern
        or "\\p" in pattern
        or "\\P" in pattern
        or "(?P<" in pattern
        or "(?<" in pattern
        or len(pattern) > LONG_PATTERN
    ):
        regex = re2.compile(pattern)
        return regex, bool(regex.groupindex)
    try:
        probe.Add(pattern)
    except re2.error:
        regex = re2.compile(pattern)  # raises with RE2's own message (what `problems` quotes)
        return regex, bool(regex.groupindex)
    return None, False


@dataclass
class RawMatch:
    """One signature found in one field of one entry."""

    signature: CompiledSignature
    field: str  # the field searched (`textPayload`, …, or the signature's own field)
    quote: str  # the matching line(s): an exact substring of that field's text
    captures: dict[str, str]
    incomplete: bool = False  # a signature with named groups matched, naming nothing


@dataclass
class _FieldSet:
    path: list[str]
    options: Any  # re2.Options
    members: list[CompiledSignature] = field(default_factory=list)
    _matcher: Any = None  # re2.Set

    @property
    def matcher(self) -> Any:
        """The members' RE2 set, compiled when first used: the default and per-field sets
        serve entries of an unusual shape and record texts, which many runs never read."""
        if self._matcher is None:
            self._matcher = _compiled_set(self.members, self.options)
        return self._matcher


def signature_set(symptoms: Iterable[Symptom]) -> SignatureSet:
    """The `SignatureSet` of `symptoms`, the one built for the last call when their pages read
    the same (`_reads`): a process that diagnoses again (the MCP server, an evaluation, the
    tests) neither compiles its RE2 sets again (~0.06 s) nor warms their DFAs again (~0.1 s
    on a run's first entries). What a set keeps besides (what each answer of a set means, the
    prefixed views' answers) depends only on those pages, so a later diagnosis finds exactly
    what a fresh set would."""
    global _last_set
    pages = list(symptoms)
    key = tuple(_reads(symptom) for symptom in pages)
    last = _last_set
    if last is not None and last[0] == key:
        return last[1]
    built = SignatureSet(pages)
    _last_set = (key, built)
    return built


def _reads(symptom: Symptom) -> tuple[Any, ...]:
    """All a `SignatureSet` reads of a page, `query_patterns` included."""
    return (
        symptom.id,
        str(symptom.page.path),
        symptom.role,
        symptom.layer,
        symptom.generic,
        tuple((signature.pattern, signature.field) for signature in symptom.signatures),
        tuple(example.line for example in symptom.examples),
    )


class SignatureSet:
    """All signatures of the given symptom pages, ready to scan entries."""

    def __init__(self, symptoms: Iterable[Symptom]) -> None:
        self.problems: list[str] = []  # signatures that do not compile: skipped and reported
        self._broken: set[str] = set()  # pages with such a signature
        self.symptoms: dict[str, Symptom] = {}
        self.generic: frozenset[str] = frozenset()  # catch-all pages (see the module docstring)
        self._sets: dict[str, _FieldSet] = {}
        options = re2.Options()
        options.max_mem = 64 << 20
        probe = re2.Set.SearchSet(options)  # parses the patterns (see `_checked`)
        verdicts = signature_verdicts()  # what earlier commands' checks found (see `_checked`)
        for symptom in symptoms:
            self.symptoms[symptom.id] = symptom
            for signature in symptom.signatures:
                verdict = verdicts.get(signature.pattern)
                if verdict is not None:  # valid, as checked by an earlier command
                    regex, named = None, verdict == NAMED
                else:
                    try:
                        regex, named = _checked(signature.pattern, probe)
                    except re2.error as error:
                        self._broken.add(symptom.id)
                        self.problems.append(
                            f"{symptom.page.path}: signature {signature.pattern!r} is not valid "
                            f"RE2 ({error}); skipped"
                        )
                        continue
                    verdicts.put(NAMED if named else PLAIN, signature.pattern)
                key = signature.field or DEFAULT_FIELD
                group = self._sets.setdefault(
                    key, _FieldSet(split_path(key) if key else [], options)
                )
                member = CompiledSignature(
                    symptom.id,
                    symptom.role,
                    symptom.layer,
                    signature.pattern,
                    signature.field,
                    named,
                )
                if regex is not None:  # compiled already: kept
                    member.__dict__["regex"] = regex
                group.members.append(member)
        self.generic = frozenset(sid for sid, page in self.symptoms.items() if page.generic)
        self._catch_all: Optional[Any] = None  # RE2 set of the catch-all pages' signatures
        # The message texts an entry of the usual shape has are read once and matched by one
        # set holding the default signatures and those of the message fields (each answering
        # for its own field only); the per-field sets read entries of unusual shape.
        self._default = self._sets.get(DEFAULT_FIELD) or _FieldSet([], options)
        self._fields = [(key, group) for key, group in self._sets.items() if key != DEFAULT_FIELD]
        self._texts = _FieldSet([], options, list(self._default.members))
        self._text_fields: list[Optional[str]] = [None] * len(self._default.members)
        for key, group in self._fields:
            if key in MESSAGE_FIELDS:
                self._texts.members.extend(group.members)
                self._text_fields.extend([key] * len(group.members))
        self._match_texts = _set_match(self._texts.matcher)
        # The message-text signatures a prefix can break (`unwrapped.line_anchored`): the set an
        # unwrapped view that only lost prefixes is matched against, by index into `_texts`.
        self._anchored_index = [
            i for i, m in enumerate(self._texts.members) if line_anchored(m.pattern)
        ]
        self._anchored = _FieldSet(
            [], options, [self._texts.members[i] for i in self._anchored_index]
        )
        self._anchored_answers: dict[str, list[int]] = {}  # view text → `_anchored`'s answer
        # (text field, the set's answer) → what to do with it: a run's matching lines are of a
        # few kinds (every survivor's abort banner), found by the same few signatures.
        self._plans: dict[tuple[str, tuple[int, ...]], tuple[_Plan, _Plan]] = {}
        # (text field, the set's answer) → the pages it names (`pages`: records' texts).
        self._pages: dict[tuple[Optional[str], tuple[int, ...]], frozenset[str]] = {}
        # The fields a regular entry's texts do not answer for (read from the entry itself).
        self._other_fields = [(k, g) for k, g in self._fields if k not in MESSAGE_FIELDS]
        self._others_of: dict[frozenset[str], bool] = {}  # see `_others_in`

    def __len__(self) -> int:
        return sum(len(group.members) for group in self._sets.values())

    def scan(self, entry: dict[str, Any]) -> list[RawMatch]:
        """Every signature found in the entry (at most one match per symptom and field)."""
        facts = facts_of(entry)
        return self.specific(self.scan_all(facts)) if facts is not None else []

    def clear_of(self, batch: list[EntryFacts]) -> list[bool]:
        """For each entry of `batch`, whether its message texts match no signature of the text
        set, learned for all of them at once (`scan_all`'s `clear`): their texts joined by line
        breaks are matched once (module docstring). An irregular entry, or one whose texts hold
        a line break (matched in its flowed view too), are not ASCII (matched with typographic
        quotes read as ASCII) or have an unwrapped view (`mlwiki.diagnose.unwrapped`: matched
        in it too), is never clear: its other views are not in the joined text.

        The usual batch (regular entries of plain one-line ASCII texts, none starting like an
        envelope prefix) is vouched for all at once by substring tests over the joined text,
        run in C (`_plain_batch`), instead of each text on its own (~0.3 µs an entry of a
        healthy run). Any other batch is tested entry by entry."""
        texts = [text for facts in batch for _, text in facts.texts]
        joined = "\n".join(texts)
        if _plain_batch(batch, texts, joined):
            clear = [True] * len(batch)
        else:
            clear = [
                facts.regular and all(_only_written(text) for _, text in facts.texts)
                for facts in batch
            ]
            texts = [text for facts, fits in zip(batch, clear) if fits for _, text in facts.texts]
            joined = "\n".join(texts)
        precheck = self._precheck
        if texts and (precheck is None or precheck(joined.encode())):
            return [False] * len(batch)  # a match somewhere: each entry is scanned on its own
        return clear

    @functools.cached_property
    def _precheck(self) -> Optional[Callable[[bytes], bool]]:
        """Whether some signature of the text set matches somewhere in texts joined by line
        breaks, true at least whenever one matches one of the texts alone; None when the set's
        patterns cannot promise that (a `\\A` or `\\z`, a `-m` flag). The text set itself
        answers for the patterns without `^` or `$` (a match in one text is a match in the
        joined ones: `\\b` sees a line break as it sees the text's edge); a small set of the
        others, compiled in multi-line mode (`^` and `$` at each text's ends too), for the rest."""
        members = self._texts.members
        if any(text_edge_anchor(m.pattern) for m in members):
            return None  # the linter refuses these (E607)
        anchored = [m for m in members if "^" in m.pattern.replace("[^", "[") or "$" in m.pattern]
        texts = self._match_texts
        if not anchored:
            return lambda data: bool(texts(data))
        lines = re2.Set.SearchSet(self._texts.options)
        for member in anchored:
            lines.Add("(?m)" + member.pattern)
        lines.Compile()
        match_lines = _set_match(lines)
        return lambda data: bool(texts(data) or match_lines(data))

    def texts_only(self, facts: EntryFacts) -> bool:
        """Whether only the entry's message texts can hold a match: its fields are known
        (`EntryFacts.fields`: a text line's) and none of them holds another signature field.
        Then an entry whose texts are clear (`clear_of`) matches nothing: `scan_all` is not
        needed (the pass asks this of every clear entry first)."""
        fields = facts.fields
        return fields is not None and not self._others_in(fields)

    def scan_all(self, facts: EntryFacts, clear: bool = False) -> list[RawMatch]:
        """Every signature found in the texts the pass already read, catch-all pages included
        (`specific` drops them where a specific page matched too); a signature field of unusual
        shape makes the entry irregular (see `EntryFacts.regular`).

        The message texts of an entry of the usual shape are matched by one set holding the
        default signatures and those of the message fields (each answering for its own field
        only): one set match per text. The default signatures' matches come first, then each
        field's in the order of the fields, as the per-field sets (which read entries of an
        unusual shape) would find them. `clear` says that `clear_of` found none of them in the
        texts: only the other fields are read."""
        found: list[RawMatch] = []
        by_field: dict[str, list[RawMatch]] = {}
        regular = facts.regular
        if clear:
            # Only the other fields can match, and an entry of known fields may have none of
            # them (a text line: `texts_only`).
            if self.texts_only(facts):
                return found
        elif regular:
            matcher, fields = self._match_texts, self._text_fields
            members, default = self._texts.members, len(self._default.members)
            plans = self._plans
            for name, text in facts.texts:
                data = text.encode() if text.isascii() else _typographic(text, facts)
                indices = matcher(data)
                if "\n" in text:  # a wrapped message: its flowed view (module docstring)
                    self._match_flowed(name, text, indices, found, by_field)
                view = unwrapped(text)
                if view is not None:  # a wrapped line: its unwrapped view (module docstring)
                    self._match_unwrapped(name, text, view, indices, found, by_field)
                if not indices:
                    continue
                key = (name, tuple(indices))
                plan = plans.get(key)
                if plan is None:
                    ordered = sorted(indices)
                    own = [i for i in ordered if i < default]
                    field = [i for i in ordered if i >= default and fields[i] == name]
                    # A structured container line's message answers for `textPayload` too.
                    alias = (
                        [i for i in ordered if i >= default and fields[i] == CONTAINER_TEXT]
                        if name in STRUCTURED_TEXT
                        else []
                    )
                    plan = (_plan(members, own), _plan(members, field), _plan(members, alias))
                    if len(plans) < MAX_PLANS:
                        plans[key] = plan
                own_plan, field_plan, alias_plan = plan
                if own_plan is not None:
                    found.extend(_found(members, own_plan, name, text, data))
                if field_plan is not None:
                    by_field[name] = _found(members, field_plan, name, text, data)
                if alias_plan is not None and _structured_container(facts):
                    by_field.setdefault(CONTAINER_TEXT, []).extend(
                        _found(members, alias_plan, name, text, data)
                    )
        else:
            for name, text in facts.texts:
                found.extend(_scan_text(self._default, name, text))
        # Without a field match in the texts, only the other fields can add one.
        for key, group in self._fields if by_field or not regular else self._other_fields:
            # Already matched with the texts when the entry was regular as the scan began (its
            # typographic reading makes it irregular for queries, not for this match).
            if key in MESSAGE_FIELDS and regular:
                found.extend(by_field.get(key, ()))
                continue
            if facts.top(group.path[0]) is None:
                continue  # the object the field is in is missing: so is the field
            plain, value = field_value(facts.entry, group.path)
            if not plain:
                facts.regular = False
            if value is not None:
                for text in _field_strings(value):
                    found.extend(_scan_text(group, key, text))
        return found

    def _others_in(self, fields: frozenset[str]) -> bool:
        """Whether a field set other than the message texts' is in an object among `fields`."""
        known = self._others_of.get(fields)
        if known is None:
            known = self._others_of[fields] = any(
                group.path[0] in fields for _, group in self._other_fields
            )
        return known

    def _match_flowed(
        self,
        name: str,
        text: str,
        written: Optional[list[int]],
        found: list[RawMatch],
        by_field: dict[str, list[RawMatch]],
    ) -> None:
        """Add the matches of `text`'s flowed view of the message-text signatures whose pages
        the text as written (its set's `written` indices) did not match."""
        data = flowed_text(text).encode()
        members, fields = self._texts.members, self._text_fields
        known = {members[i].symptom for i in written or ()}
        more = sorted(
            i for i in self._texts.matcher.Match(data) or () if members[i].symptom not in known
        )
        if not more:
            return
        view = flowed(text)
        own = [i for i in more if fields[i] is None]
        field = [i for i in more if fields[i] == name]
        found.extend(_matches(members, own, name, text, data, view))
        if field:
            by_field.setdefault(name, []).extend(_matches(members, field, name, text, data, view))

    def _unwrapped_indices(
        self, view: Unwrapped, field: Optional[str], known: set[str]
    ) -> list[int]:
        """The message-text signatures (indices into `_texts`) of the `field` the text is from
        that `view` matches, of pages not in `known`: all of them, or only the line-anchored
        ones when the view only lost prefixes (module docstring)."""
        data = view.text.encode()
        members, fields = self._texts.members, self._text_fields
        if view.prefixes_only:
            if not self._anchored_index:
                return []
            # A noisy run's prefixed lines repeat (every thread's LOG(FATAL) line, its header
            # aside): the anchored set's answer is kept per view text.
            found = self._anchored_answers.get(view.text)
            if found is None:
                found = [self._anchored_index[i] for i in self._anchored.matcher.Match(data) or ()]
                if len(self._anchored_answers) >= MAX_PLANS:
                    self._anchored_answers.clear()
                self._anchored_answers[view.text] = found
        else:
            found = list(self._texts.matcher.Match(data) or ())
        return sorted(
            i
            for i in found
            if (fields[i] is None or fields[i] == field) and members[i].symptom not in known
        )

    def _match_unwrapped(
        self,
        name: str,
        text: str,
        view: Unwrapped,
        written: Optional[list[int]],
        found: list[RawMatch],
        by_field: dict[str, list[RawMatch]],
    ) -> None:
        """Add the matches of `text`'s unwrapped view of the pages neither the text as written
        (its set's `written` indices) nor its flowed view (already in `found`) matched."""
        members, fields = self._texts.members, self._text_fields
        known = {members[i].symptom for i in written or ()}
        known.update(m.signature.symptom for m in found)
        known.update(m.signature.symptom for m in by_field.get(name, ()))
        more = self._unwrapped_indices(view, name, known)
        if not more:
            return
        data = view.text.encode()
        own = [i for i in more if fields[i] is None]
        field = [i for i in more if fields[i] == name]
        found.extend(_matches(members, own, name, text, data, view))
        if field:
            by_field.setdefault(name, []).extend(_matches(members, field, name, text, data, view))

    def explains(self, role: str, quote: str) -> bool:
        """Whether a specific page's match of `role`, quoted `quote`, explains a catch-all match
        of the same text or record (module docstring): a root or cascade does; a symptom or
        consequence only when a catch-all signature matches its own quoted line(s) too, as
        written or unwrapped (`mlwiki.diagnose.unwrapped`)."""
        if role in EXPLAINING_ROLES:
            return True
        if self._catch_all is None:
            members = [m for m in self._default.members if m.symptom in self.generic]
            self._catch_all = _compiled_set(members, re2.Options()) if members else False
        if not self._catch_all:
            return False
        if self._catch_all.Match(quote.encode()):
            return True
        view = unwrapped(quote)  # a prefixed or coloured line: as the program wrote it
        return view is not None and bool(self._catch_all.Match(view.text.encode()))

    def without_explained(self, found: list[RawMatch]) -> list[RawMatch]:
        """`found` (of one text) without its catch-all matches when a specific match in it
        explains them (`explains`)."""
        if not self.generic or all(m.signature.symptom in self.generic for m in found):
            return found
        if any(
            m.signature.symptom not in self.generic and self.explains(m.signature.role, m.quote)
            for m in found
        ):
            return [m for m in found if m.signature.symptom not in self.generic]
        return found

    def specific(self, found: list[RawMatch]) -> list[RawMatch]:
        """`found` without catch-all matches a specific page of the entry explains, and
        without matches on the entry's kind alone that its own message contradicts."""
        if len(found) < 2:
            return found  # a lone match is neither explained by another nor contradicted
        found = self.without_explained(found)
        told = {
            (m.signature.role, m.signature.symptom) for m in found if m.field not in KIND_FIELDS
        }
        if not told:
            return found
        return [
            m
            for m in found
            if m.field not in KIND_FIELDS
            or (m.signature.role, m.signature.symptom) in told
            or not any(role == m.signature.role for role, _ in told)
        ]

    def query_patterns(self) -> dict[tuple[tuple[str, ...], str], tuple[str, ...]]:
        """The `FIELD=~"regex"` clauses `symptom_match("id")` renders for the pages of the
        set whose signatures all compiled, each with the page ids rendering it: an entry
        matching such a clause (in a field of the usual shape) is one the scan found one of
        those pages in."""
        return dict(self._query_patterns)

    @functools.cached_property
    def _query_patterns(self) -> dict[tuple[tuple[str, ...], str], tuple[str, ...]]:
        from mlwiki.engine.render import symptom_regexes
        from mlwiki.errors import BadInput

        patterns: dict[tuple[tuple[str, ...], str], tuple[str, ...]] = {}
        for symptom in self.symptoms.values():
            if symptom.id in self._broken:
                continue
            try:
                regexes = symptom_regexes(symptom)
            except BadInput:
                continue  # no signatures, or a field that is not a path: never rendered either
            for path, regex in regexes.items():
                key = (tuple(split_path(path)), regex)
                patterns[key] = (*patterns.get(key, ()), symptom.id)
        return patterns

    def names(self, symptom: str, text: str) -> dict[str, str]:
        """The named groups the symptom's message-text signatures find in `text` (the first
        value of each name wins)."""
        default = self._sets.get(DEFAULT_FIELD)
        members = [m for m in default.members if m.symptom == symptom] if default else []
        for raw in _matches(members, range(len(members)), "textPayload", text, text.encode()):
            return raw.captures
        return {}

    def pages(self, text: str, field: Optional[str] = None) -> frozenset[str]:
        """The pages whose message-text signatures (those without a field, and those bound to
        the message `field` the text is from) match `text` as written: one set match, no span
        or group is read (`scan_text` reads them). What an answer of the set names is worked
        out once per kind of answer (a noisy run's records are of a few kinds)."""
        indices = self._match_texts(text.encode())
        if not indices:
            return frozenset()
        key = (field, tuple(indices))
        pages = self._pages.get(key)
        if pages is None:
            members, fields = self._texts.members, self._text_fields
            pages = frozenset(
                members[i].symptom for i in indices if fields[i] is None or fields[i] == field
            )
            if len(self._pages) < MAX_PLANS:
                self._pages[key] = pages
        return pages

    def scan_text(
        self, text: str, known: frozenset[str] = frozenset(), field: Optional[str] = None
    ) -> list[RawMatch]:
        """The message-text signatures (those without a field, and those bound to the message
        `field` the text is from) over one text (a record's joined lines, an example line),
        without the catch-all matches a specific one explains (`without_explained`); the pages
        in `known` (already found in the record's lines) are not matched again, and the caller
        weighs them (`continuation`)."""
        members, fields = self._texts.members, self._text_fields
        matcher = self._texts.matcher
        data = text.encode()
        indices = sorted(
            i for i in matcher.Match(data) or () if fields[i] is None or fields[i] == field
        )
        symptoms = {members[i].symptom for i in indices}
        # A wrapped message: its flowed view (see the module docstring).
        view_data = flowed_text(text).encode() if "\n" in text else b""
        again = sorted(
            i
            for i in (matcher.Match(view_data) if view_data else None) or ()
            if (fields[i] is None or fields[i] == field) and members[i].symptom not in symptoms
        )
        symptoms.update(members[i].symptom for i in again)
        name = field or "textPayload"
        written = [i for i in indices if members[i].symptom not in known]
        found = list(_matches(members, written, name, text, data))
        wanted = [i for i in again if members[i].symptom not in known]
        if wanted:
            view = flowed(text)
            found.extend(_matches(members, wanted, name, text, view_data, view))
        # A wrapped line: its unwrapped view (see the module docstring).
        unwrapped_view = unwrapped(text)
        if unwrapped_view is not None:
            more = self._unwrapped_indices(unwrapped_view, field, symptoms | set(known))
            data = unwrapped_view.text.encode()
            found.extend(_matches(members, more, name, text, data, unwrapped_view))
        return self.without_explained(found)


_REGULAR = operator.attrgetter("regular")
_FIRST = operator.itemgetter(slice(None, 1))  # a text's first character ("" for none)


def _plain_batch(batch: list[EntryFacts], texts: list[str], joined: str) -> bool:
    """Whether every entry of `batch` is regular and every one of its message `texts` (joined
    by line breaks in `joined`) is matched as written only (`_only_written`): no text holds a
    line break (`joined` has one per join), all are ASCII, none holds what the unwrapped view
    undoes (`unwrapped.PLAIN_BREAKERS`) or starts with a character an envelope prefix starts
    with (`unwrapped.STARTS`): then `unwrapped` has no view of any of them."""
    return (
        bool(texts)
        and all(map(_REGULAR, batch))
        and joined.count("\n") == len(texts) - 1
        and joined.isascii()
        and not any(mark in joined for mark in PLAIN_BREAKERS)
        and STARTS.isdisjoint(map(_FIRST, texts))
    )


def _only_written(text: str) -> bool:
    """Whether `text` is matched as written only: no line break (a flowed view), nothing
    non-ASCII (a typographic reading) and no unwrapped view (`mlwiki.diagnose.unwrapped`)."""
    return "\n" not in text and text.isascii() and unwrapped(text) is None


def _typographic(text: str, facts: EntryFacts) -> bytes:
    """The UTF-8 bytes a non-ASCII text is matched as: with its typographic quotes and no-break
    spaces read as ASCII (`unwrapped.TYPOGRAPHIC_ONLY`, one character for one, so spans and
    quotes are the text's own). A signature that tells a JSON key from a word by its `"` must see
    the program's quote, not the locale's; an entry so read is irregular, as a query's regex sees
    the quotes as written (`EntryFacts.regular`)."""
    read = text.translate(TYPOGRAPHIC_ONLY)
    if read != text:
        facts.regular = False
    return read.encode()


def _structured_container(facts: EntryFacts) -> bool:
    """A container line a structured logger wrote (JSON, kept as `jsonPayload`): what the
    container printed is its message field, not `textPayload` (see `STRUCTURED_TEXT`)."""
    return facts.resource_type == "k8s_container" and "textPayload" not in facts.entry


def _field_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield str(value)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, str):
                yield item


def _set_match(matcher: Any) -> Any:
    """The set's match function, called for every text of every entry: the C-level one that
    google-re2's Python wrapper calls (its result: a possibly empty list) when the wrapper has
    one, without the wrapper's frame; else the wrapper's (None when nothing matched)."""
    inner = getattr(matcher, "_set", None)
    return getattr(inner, "Match", None) or matcher.Match


def _compiled_set(members: list[CompiledSignature], options: Any) -> Any:
    matcher = re2.Set.SearchSet(options)
    for member in members:
        matcher.Add(member.pattern)
    matcher.Compile()
    return matcher


def _scan_text(group: _FieldSet, name: str, text: str) -> Iterator[RawMatch]:
    data = text.encode()
    indices = group.matcher.Match(data)
    return _matches(group.members, sorted(indices), name, text, data) if indices else iter(())


# The signatures of one text to re-run (indices into the members, in order) and, when none has
# named groups, the first of each symptom: on a text of one line those are the matches, quoted
# whole, without running anything again (see `_matches`). None: no signature of the group.
_Plan = Optional[tuple[list[int], Optional[list[CompiledSignature]]]]


def _plan(members: list[CompiledSignature], indices: list[int]) -> _Plan:
    if not indices:
        return None
    if any(members[i].named for i in indices):
        return indices, None
    firsts: dict[str, CompiledSignature] = {}
    for index in indices:
        firsts.setdefault(members[index].symptom, members[index])
    return indices, list(firsts.values())


def _found(
    members: list[CompiledSignature],
    plan: tuple[list[int], Optional[list[CompiledSignature]]],
    name: str,
    text: str,
    data: bytes,
) -> list[RawMatch]:
    indices, firsts = plan
    if firsts is not None and "\n" not in text and len(text) <= MAX_QUOTE:
        return [RawMatch(signature, name, text, {}) for signature in firsts]
    return list(_matches(members, indices, name, text, data))


def _matches(
    members: list[CompiledSignature],
    indices: Iterable[int],
    name: str,
    text: str,
    data: bytes,
    view: Optional[Union[Flowed, Unwrapped]] = None,
) -> Iterator[RawMatch]:
    """One match per symptom: the captures of all its signatures found in the text, merged.

    A digest often holds a headline and, lines below, the line naming the host; the quote is the
    line of the first signature that names something (else of the first one found), and the
    named groups of every matching signature are kept (the first value of each name wins).
    Each signature runs once, on the text's UTF-8 bytes (`data`, encoded once for all of them);
    its byte span is the text's character span when the text is ASCII, and is converted
    otherwise. With `view`, `data` is the text's flowed or unwrapped view
    (`mlwiki.diagnose.flowed`, `mlwiki.diagnose.unwrapped`): each span is mapped back to the
    text as written, which the quote is cut from. A signature without
    named groups in a text of one line (not cut for length) is not run again: the set already
    proved it matches, and whatever its span the quote is the whole text.
    """
    ascii_text = (view.text if view is not None else text).isascii()
    whole = (0, len(text)) if "\n" not in text and len(text) <= MAX_QUOTE else None
    found: dict[str, list[tuple[CompiledSignature, dict[str, str], tuple[int, int]]]] = {}
    for index in indices:
        signature = members[index]
        if whole is not None and not signature.named:
            found.setdefault(signature.symptom, []).append((signature, {}, whole))
            continue
        match = signature.regex.search(data)
        if match is None:  # cannot happen: the set said it matches
            continue
        captures = (
            {k: v.decode() for k, v in match.groupdict().items() if v} if signature.named else {}
        )
        start, end = match.span()
        if not ascii_text:
            start, end = len(data[:start].decode()), len(data[:end].decode())
        if isinstance(view, Unwrapped):
            start, end = unwrapped_span(view, start, end)
        elif view is not None:
            start, end = written_span(view, start, end)
        found.setdefault(signature.symptom, []).append((signature, captures, (start, end)))
    for matches in found.values():
        merged: dict[str, str] = {}
        for _, captures, _ in matches:
            for key, value in captures.items():
                merged.setdefault(key, value)
        signature, _, span = next((m for m in matches if m[1]), matches[0])
        incomplete = not merged and any(m[0].named for m in matches)
        yield RawMatch(signature, name, quote_of(text, *span), merged, incomplete)


def quote_of(text: str, start: int, end: int) -> str:
    """The whole line(s) holding text[start:end], cut around the match when very long."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    if line_end < 0:
        line_end = len(text)
    if line_end - line_start > MAX_QUOTE:
        margin = max(0, (MAX_QUOTE - (end - start)) // 2)
        line_start = max(line_start, start - margin)
        line_end = min(line_end, end + margin)
    return text[line_start:line_end]
