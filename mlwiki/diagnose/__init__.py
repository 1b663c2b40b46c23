"""The diagnosis without an LLM: `/troubleshoot` as a library.

    from mlwiki.diagnose import diagnose
    result = diagnose("llm-pretrain", bundle="_wiki/examples/llm-pretrain-oom")
    result.findings          # dict, valid against _wiki/schemas/findings.schema.json
    result.report_markdown   # the Markdown report (quotes fenced: log text is data)
    result.cited_entries     # {"E1": <the full LogEntry dict>, …}
    result.disruptions       # the triaged disruptions (failure-table rows), for callers that
                             # want more than the findings

`diagnose(workload, *, project=None, window=None, bundle=None, wiki=None)`; `window` is a
`mlwiki.timewindow.Window` (without one, a bundle is read whole). Stages, one module each:
`collect` (entries into an EntryStore) → `signatures` + `match` (one pass: every signature of
every symptom page in RE2 sets; topology facts per pod and node; `progress`: the workload's own
step lines) → `disruptions` (when the run broke, incl. a stall found from step lines that
stopped) → `triage` (root cause vs cascade, culprit hosts; `explains`: which root explains
another) → `findings` (schema-valid, every claim cited) → `report` (Markdown). `verify` checks
findings against the entries they cite.

With several disruptions, `root_cause` is the first disruption's (the first that has one) and
`culprit_hosts` the union over all disruptions, each host with the evidence of its own
disruption; the failure table has one row per disruption.
"""

from __future__ import annotations

from mlwiki.diagnose.pipeline import Diagnosis, analyse, diagnose

__all__ = ["Diagnosis", "analyse", "diagnose"]
