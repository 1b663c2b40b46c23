"""Where the workload runs, learned from the matched entries (`context.learn_place`): the most
common GKE place, counted once per distinct set of labels but weighed by every entry, so the
answer is the one counting entry by entry gives (ties go to the place seen first)."""

from __future__ import annotations

from typing import Any

from mlwiki.diagnose.context import learn_place
from mlwiki.logs.entry import NODE_LABEL


def _entry(kind: str = "k8s_container", **labels: Any) -> dict[str, Any]:
    return {"resource": {"type": kind, "labels": labels}}


def _pod(project: Any, cluster: str, namespace: str = "default") -> dict[str, Any]:
    return _entry(
        project_id=project, location="us-east5", cluster_name=cluster, namespace_name=namespace
    )


def test_the_place_most_entries_name_wins_and_a_tie_goes_to_the_first_seen() -> None:
    entries = [_pod("p", "b"), _pod("p", "a"), _pod("p", "a"), _pod("p", "b"), _pod("p", "c")]
    place = learn_place(entries)
    assert (place["project"], place["cluster"], place["location"]) == ("p", "b", "us-east5")
    assert place["kube_context"] == "gke_p_us-east5_b"
    entries.append(_pod("p", "a", namespace="ml"))
    place = learn_place(entries)
    assert place["cluster"] == "a"
    assert place["namespace"] == "default"  # five entries against one


def test_label_values_of_other_types_count_as_their_strings_do() -> None:
    # `1` and `true` are equal as keys but not as strings: each is its own project.
    entries = [_pod(1, "c"), _pod(True, "c"), _pod(True, "c")]
    assert learn_place(entries)["project"] == "True"
    # A value that cannot be a key is counted all the same, in its turn.
    entries = [_pod(["x"], "c"), _pod("p", "d")]
    place = learn_place(entries)
    assert (place["project"], place["cluster"]) == ("['x']", "c")


def test_a_project_without_a_cluster_and_zones_by_host() -> None:
    vm = {**_entry("gce_instance", project_id="q", zone="us-east5-a"), "labels": {NODE_LABEL: "h"}}
    other = {**_entry("gce_instance", zone="us-east5-b"), "labels": {NODE_LABEL: "h"}}
    place = learn_place([vm, other, vm, _entry("gce_instance", zone="us-east5-c")])
    assert place["project"] == "q" and place["cluster"] is None and place["kube_context"] is None
    assert place["zones"] == {"h": "us-east5-a"}
    assert learn_place([])["project"] is None
