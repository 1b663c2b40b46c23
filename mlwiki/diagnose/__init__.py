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

With several disruptions, the headline (`root_cause`, `culprit_hosts`) is the disruption that
ended the run when it ended in failure (Job/JobSet failed, max restarts reached, nothing ran after
it), else the first that has a root cause; the failure table has one row per disruption, each
with its own host (and no symptom when it has no root cause).
"""

from __future__ import annotations

from mlwiki.diagnose.pipeline import Diagnosis, analyse, diagnose

__all__ = ["Diagnosis", "analyse", "diagnose"]
