"""Where the workload runs, learned from its entries, and next steps that say so.

Every GKE entry names its place: `resource.labels.project_id`, `cluster_name`, `location` (and a
Compute Engine entry its `zone`). The findings carry the most common place among the workload's
matched entries (`project`, `cluster`, `location`, and `kube_context`, the context name
`gcloud container clusters get-credentials` gives: `gke_PROJECT_LOCATION_CLUSTER`), so nothing
downstream falls back on whatever kube context or gcloud project happens to be current.

`settle_next_steps` then makes the next steps match what `troubleshoot` already did:

- a "verify with its workflow" step for a workflow the diagnosis ran is dropped when the verdict
  is in (`confirmed` or `refuted`: it is in `actions_run`), and for an `inconclusive` verdict it
  says why and asks for what would settle it, instead of asking to re-run the same thing;
- every step that proposes an action gets its exact `command`: `mlwiki action ID --param …
  --approve DIGEST` (the digest of exactly that kubectl/gcloud command, which the approval gate
  binds to), naming `--param context=…` (kubectl) or `--param project=…` (gcloud) explicitly and
  the node and pod of the failure row of the step's symptom (each row's own: its host and the
  pod its evidence names there, not the headline's); a value the logs do not give stays an
  upper-case placeholder for the user to fill in, never a guess (and then there is no digest: a
  run without one prints it).
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Iterable
from typing import Any, Optional

from mlwiki.logs.entry import entry_host
from mlwiki.wiki import Wiki

K8S_RESOURCES = ("k8s_container", "k8s_pod", "k8s_node", "k8s_cluster")


def learn_place(entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The most common project, cluster and location of the GKE entries, and zones by host.

    A noisy run's tens of thousands of matched entries name a few places: each entry's labels
    are read once into a key (the values with their types, so that `1` and `true` stay apart as
    their strings do), and the counters are fed once per distinct key, in the order the keys
    first appear (ties go to the place seen first, as when counting entry by entry)."""
    seen: dict[Any, list[Any]] = {}  # key → [resource type, labels, entries]
    zones: dict[str, Counter[str]] = {}
    for entry in entries:
        resource = entry.get("resource") or {}
        labels = resource.get("labels") or {}
        kind = resource.get("type")
        if kind == "gce_instance" and labels.get("zone"):
            host = entry_host(entry)
            if host:
                zones.setdefault(host, Counter())[str(labels["zone"])] += 1
        project, location = labels.get("project_id"), labels.get("location")
        cluster, namespace = labels.get("cluster_name"), labels.get("namespace_name")
        key: Any = (kind, project, location, cluster, namespace)
        key += (type(kind), type(project), type(location), type(cluster), type(namespace))
        try:
            counted = seen.get(key)
        except TypeError:  # a value that cannot be a key (a list…): an entry of its own
            counted, key = None, object()
        if counted is None:
            seen[key] = [kind, labels, 1]
        else:
            counted[2] += 1
    places: Counter[tuple[str, str, str]] = Counter()
    projects: Counter[str] = Counter()
    namespaces: Counter[str] = Counter()
    for kind, labels, times in seen.values():
        if labels.get("project_id"):
            projects[str(labels["project_id"])] += times
        if kind in K8S_RESOURCES and labels.get("cluster_name") and labels.get("location"):
            places[(str(labels.get("project_id") or ""), str(labels["location"]), str(labels["cluster_name"]))] += times  # fmt: skip
            if labels.get("namespace_name"):
                namespaces[str(labels["namespace_name"])] += times
    place: dict[str, Any] = {"project": None, "cluster": None, "location": None}
    if places:
        project, location, cluster = places.most_common(1)[0][0]
        place.update(project=project or None, cluster=cluster, location=location)
    if place["project"] is None and projects:
        place["project"] = projects.most_common(1)[0][0]
    place["kube_context"] = kube_context(place["project"], place["location"], place["cluster"])
    place["namespace"] = namespaces.most_common(1)[0][0] if namespaces else None
    place["zones"] = {host: counts.most_common(1)[0][0] for host, counts in zones.items()}
    return place


def kube_context(
    project: Optional[str], location: Optional[str], cluster: Optional[str]
) -> Optional[str]:
    if project and location and cluster:
        return f"gke_{project}_{location}_{cluster}"
    return None


def apply_place(findings: dict[str, Any], place: dict[str, Any]) -> None:
    """Fill the findings' place from the entries (a project given on the command line wins)."""
    findings["project"] = findings.get("project") or place["project"]
    findings["cluster"] = place["cluster"]
    findings["location"] = place["location"]
    findings["kube_context"] = place["kube_context"]


def settle_next_steps(wiki: Wiki, findings: dict[str, Any], place: dict[str, Any]) -> None:
    """See the module docstring."""
    verdicts: dict[str, dict[str, Any]] = {}
    for run in findings.get("actions_run") or []:
        verdicts.setdefault(str(run.get("workflow")), run)
    hosts = _culprits_by_symptom(findings)
    settled: list[dict[str, Any]] = []
    for step in findings.get("next_steps") or []:
        workflow = step.get("workflow")
        run = verdicts.get(str(workflow)) if workflow else None
        if run is not None:
            if run.get("verdict") in ("confirmed", "refuted"):
                continue  # done by troubleshoot: actions_run has it
            step = {
                **step,
                "step": f"{workflow} ran and was inconclusive ({run.get('summary', '')}); "
                "settle it with more data (a wider --start/--end, the missing sources) rather "
                "than by re-running it on the same data",
            }
        if step.get("action"):
            culprit = hosts.get(str(step.get("symptom")), {})
            step = {**step, "command": action_command(wiki, str(step["action"]), place, culprit)}
        settled.append(step)
    findings["next_steps"] = settled


def _culprits_by_symptom(findings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The node and pod each symptom's first failure row names: its own host, and the pod of
    its own evidence on that host, else of the culprit entry that row cites (`culprit_hosts` are
    the headline's only: another row's host may have run another pod, or none of them)."""
    evidence = {item.get("id"): item for item in findings.get("evidence") or []}
    culprits = findings.get("culprit_hosts") or []
    found: dict[str, dict[str, Any]] = {}
    for failure in findings.get("failures") or []:
        host = failure.get("host")
        if not failure.get("symptom") or not host or failure["symptom"] in found:
            continue
        ids = set(failure.get("evidence") or [])
        cited = (evidence.get(i) or {} for i in failure.get("evidence") or [])
        pod = next((e["pod"] for e in cited if e.get("host") == host and e.get("pod")), None)
        if pod is None:  # the row's culprit: the culprit entry on its host citing its evidence
            pod = next(
                (
                    c.get("pod")
                    for c in culprits
                    if c.get("host") == host and ids.intersection(c.get("evidence") or [])
                ),
                None,
            )
        found[failure["symptom"]] = {"node": host, "pod": pod}
    return found


def action_command(
    wiki: Wiki, action_id: str, place: dict[str, Any], culprit: dict[str, Any]
) -> str:
    """`mlwiki action ID --param … --approve` with every value the findings know, the place
    named explicitly, and an upper-case placeholder for what they do not."""
    action = wiki.actions.get(action_id)
    if action is None:
        return f"mlwiki action {action_id} --approve"
    node = culprit.get("node")
    known = {
        "node": node,
        "pod": culprit.get("pod"),
        "context": place.get("kube_context"),
        "project": place.get("project"),
        "cluster": place.get("cluster"),
        "location": place.get("location"),
        "zone": (place.get("zones") or {}).get(node) if node else None,
        "namespace": place.get("namespace"),
        "node_pool": _node_pool(node, place.get("cluster")),
    }
    argv = ["mlwiki", "action", action_id]
    given: dict[str, Any] = {}
    placeholders = False
    for name, spec in action.params.items():
        value = known.get(name)
        place_param = name in ("context", "project")
        if value is None and not (spec.get("required") or place_param):
            continue
        placeholders = placeholders or value is None
        argv += ["--param", f"{name}={value if value is not None else name.upper()}"]
        if value is not None:
            given[name] = value
    digest = None if placeholders else _digest(wiki, action, given)
    return shlex.join(argv + (["--approve", digest] if digest else []))


def _digest(wiki: Wiki, action: Any, values: dict[str, Any]) -> Optional[str]:
    """The digest `--approve` takes for exactly this command (`mlwiki.engine.approval`), or None
    when the values do not render (the user then runs it once to see the command and digest)."""
    from mlwiki.engine.actions import render, resolve_action_params
    from mlwiki.engine.approval import SHOWN_DIGEST, argv_digest
    from mlwiki.errors import BadInput

    try:
        rendered = render(action, resolve_action_params(action, values), wiki)
    except BadInput:
        return None
    return argv_digest(rendered)[:SHOWN_DIGEST] if isinstance(rendered, list) else None


def _node_pool(node: Optional[str], cluster: Optional[str]) -> Optional[str]:
    """`gke-CLUSTER-POOL-HASH-SUFFIX` → POOL (GKE's node naming), else None."""
    prefix = f"gke-{cluster}-" if cluster else None
    if not node or not prefix or not node.startswith(prefix):
        return None
    parts = node[len(prefix) :].split("-")
    return "-".join(parts[:-2]) or None if len(parts) > 2 else None
