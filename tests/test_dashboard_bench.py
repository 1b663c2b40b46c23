"""The dashboard's performance budget: a 2,000-node, 10,000-pod cluster in under 1 s."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from tests.conftest import REPO_ROOT


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_dashboard", REPO_ROOT / "benchmarks" / "bench_dashboard.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_large_cluster_summarised_and_rendered_within_budget() -> None:
    bench = _bench()
    figures = bench.measure(nodes=2000, pods=10000, repeat=2)
    assert (figures.nodes, figures.pods) == (2000, 10000)
    assert figures.summarise_and_render < bench.BUDGET_SECONDS
    assert figures.http_get < bench.BUDGET_SECONDS
    # The summary is cheaper than merely parsing the same objects from JSON.
    assert figures.summarise_and_render < figures.json_loads
