"""The dashboard in a real headless Chromium (Debian's /usr/bin/chromium, driven by playwright)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mlwiki.dashboard.app import create_app
from mlwiki.dashboard.server import RunningServer, serve_in_thread
from mlwiki.dashboard.state import SnapshotSource
from tests.fakes.tpu_cluster import HOSTILE_MESSAGE, HOSTILE_REASON, realistic_cluster

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
    ),
]


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return realistic_cluster().write_snapshot(tmp_path_factory.mktemp("snap") / "tpu-cluster")


@pytest.fixture(scope="module")
def served(snapshot: Path) -> Iterator[RunningServer]:
    running = serve_in_thread(create_app(SnapshotSource(snapshot)))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, served: RunningServer) -> Iterator[Any]:
    origin = served.url.rstrip("/")
    context = browser.new_context(viewport={"width": 1500, "height": 1200})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    tab = context.new_page()
    tab.problems = []  # console errors (a CSP violation shows up here) and failed requests
    tab.on("console", lambda m: tab.problems.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: tab.problems.append(str(e)))
    tab.on(
        "response",
        lambda r: tab.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )
    yield tab
    context.close()


def _visible_rows(page: Any, section: str) -> list[str]:
    return [
        row.inner_text() for row in page.locator(f"#{section} tbody tr").all() if row.is_visible()
    ]


def test_page_renders_with_bars_and_screenshot(
    page: Any, served: RunningServer, tmp_path: Path
) -> None:
    page.goto(served.url)
    assert page.title() == "GKE Capacity & Triage"
    assert page.locator("#tile-chips").inner_text() == "76"
    assert len(_visible_rows(page, "capacity")) == 4
    assert page.locator("#capacity svg.bar rect.used").count() == 4
    assert page.locator("#workloads .badge.s-failed").inner_text() == "Failed"
    # Stylesheet applied (served as a file, allowed by the CSP): the bars have real width.
    assert page.locator("#capacity svg.bar").first.bounding_box()["width"] > 100
    shot = tmp_path / "dashboard.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    assert page.problems == []


def test_hostile_event_text_stays_inert(page: Any, served: RunningServer) -> None:
    page.goto(served.url)
    page.wait_for_load_state("load")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("img[src=x], #events svg").count() == 0
    messages = page.locator("#events td.msg").all_inner_texts()
    assert HOSTILE_MESSAGE in messages
    assert HOSTILE_REASON in page.locator("#events td.evreason").all_inner_texts()
    # Filtering re-reads text, never markup: still inert after the script ran over the rows.
    page.fill("#filter", "pwned")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert len(_visible_rows(page, "events")) == 1


def test_filter_box_hides_rows(page: Any, served: RunningServer) -> None:
    page.goto(served.url)
    assert len(_visible_rows(page, "workloads")) == 3
    page.fill("#filter", "eval-sweep")
    rows = _visible_rows(page, "workloads")
    assert len(rows) == 1 and "eval-sweep" in rows[0]
    page.fill("#filter", "")
    assert len(_visible_rows(page, "workloads")) == 3


def test_target_form_filters_on_the_server(page: Any, served: RunningServer) -> None:
    page.goto(served.url)
    page.fill("#target", "spot-finetune")
    page.click("form.controls button[type=submit]")
    page.wait_for_url("**/?target=spot-finetune")
    rows = _visible_rows(page, "workloads")
    assert len(rows) == 1 and "spot-finetune" in rows[0]
    assert len(_visible_rows(page, "node-pools")) == 1
    page.goto(f"{served.url}?target=no-such-workload")
    assert "no-such-workload" in page.locator("#notice").inner_text()


def test_refresh_rescans(page: Any, served: RunningServer, snapshot: Path) -> None:
    page.goto(served.url)
    before = page.locator("#tile-chips").inner_text()
    nodes_file = snapshot / "nodes.json"
    original = nodes_file.read_text()
    nodes = json.loads(original)
    nodes["items"] = [
        n
        for n in nodes["items"]
        if n["metadata"]["labels"]["cloud.google.com/gke-nodepool"] != "v4-slice"
    ]
    nodes_file.write_text(json.dumps(nodes))
    try:
        page.reload()
        assert page.locator("#tile-chips").inner_text() == before  # served from what was read
        page.click("#refresh")
        page.wait_for_url("**/?refresh=1")
        assert page.locator("#tile-chips").inner_text() == str(int(before) - 4)
    finally:
        nodes_file.write_text(original)
        page.goto(f"{served.url}?refresh=1")


def test_copy_button_copies_troubleshoot_command(page: Any, served: RunningServer) -> None:
    page.goto(f"{served.url}?target=spot-finetune")
    button = page.locator("#workloads button.copy").first
    button.click()
    page.wait_for_function(
        "document.querySelector('#workloads button.copy').textContent === 'Copied'"
    )
    assert page.evaluate("navigator.clipboard.readText()") == "/troubleshoot spot-finetune"


def test_csp_blocks_injected_inline_script(page: Any, served: RunningServer) -> None:
    # The policy is enforced by the browser, not only sent: an inline script added at run time
    # does not execute.
    response = page.goto(served.url)
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.__inline = 1';"
        " document.body.appendChild(s); }"
    )
    assert page.evaluate("typeof window.__inline") == "undefined"


def test_a_failed_jobset_shows_its_failed_condition_and_each_workload_its_accelerator(
    browser: Any, tmp_path: Path
) -> None:
    """What /dashboard shows: a failed JobSet's Failed condition (reason and message) even when a
    warning event came later, and every workload's accelerator and topology, also one whose
    template selects no nodes (its nodes tell)."""
    snapshot = realistic_cluster().write_snapshot(tmp_path / "cluster")
    events = json.loads((snapshot / "events.json").read_text())
    pods = json.loads((snapshot / "pods.json").read_text())["items"]
    pod = next(p for p in pods if p["metadata"]["name"].startswith("spot-finetune-"))
    later = json.loads(json.dumps(events["items"][0]))
    later["metadata"]["name"] += "-later"
    later["involvedObject"].update(kind="Pod", name=pod["metadata"]["name"])
    later.update(
        reason="BackOff",
        message="Back-off restarting failed container",
        firstTimestamp="2025-06-01T23:59:00Z",
        lastTimestamp="2025-06-01T23:59:00Z",
    )
    events["items"].append(later)
    (snapshot / "events.json").write_text(json.dumps(events))
    jobsets = json.loads((snapshot / "jobsets.json").read_text())
    for jobset in jobsets["items"]:
        if jobset["metadata"]["name"] == "eval-sweep":
            for replicated in jobset["spec"]["replicatedJobs"]:
                replicated["template"]["spec"]["template"]["spec"].pop("nodeSelector", None)
    (snapshot / "jobsets.json").write_text(json.dumps(jobsets))
    failed = next(j for j in jobsets["items"] if j["metadata"]["name"] == "spot-finetune")
    condition = next(c for c in failed["status"]["conditions"] if c["type"] == "Failed")

    running = serve_in_thread(create_app(SnapshotSource(snapshot)))
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(running.url)
        rows = {
            row.locator("td strong").inner_text(): row
            for row in tab.locator("#workloads tbody tr").all()
        }
        assert {"spot-finetune", "eval-sweep"} <= set(rows)
        row = rows["spot-finetune"]
        assert row.locator(".badge").inner_text() == "Failed"
        reason = row.locator("td.reason").inner_text()
        assert reason.startswith(f"JobSet failed: {condition['reason']}: ")
        assert condition["message"] in reason and "Back-off" not in reason
        for name, workload in rows.items():
            where = workload.locator(
                "td .sub"
            ).first.inner_text()  # namespace · accelerator topology
            assert "accelerator unknown" not in where and " · tpu-" in where, (name, where)
            assert where.rsplit(" ", 1)[-1][0].isdigit(), (name, where)  # e.g. 2x2x4
    finally:
        context.close()
        running.stop()
