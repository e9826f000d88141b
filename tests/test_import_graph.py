"""The product's apps import each other without a cycle, and only along the declared edges.

pyproject.toml's import contracts (``lint-imports`` in ``make test``) forbid each wrong
edge; this test reads the whole import graph once and checks what those contracts add up
to: the app-level graph is acyclic, so every app can be understood (and changed) knowing
only the apps below it.
"""

from __future__ import annotations

import itertools
from graphlib import CycleError, TopologicalSorter

import grimp

PRODUCT = ("config", "accounts", "notifications", "posting", "research", "publish", "reconcile", "cron")
# docs/ARCHITECTURE.md, "Layers": every edge a product app may have to another.
DECLARED = {
    ("config", "cron"),
    ("cron", "accounts"),
    ("cron", "posting"),
    ("cron", "research"),
    ("cron", "publish"),
    ("cron", "reconcile"),
    ("cron", "notifications"),
    ("posting", "notifications"),
    ("notifications", "accounts"),
    ("posting", "accounts"),
    ("posting", "research"),
    ("posting", "publish"),
    ("research", "accounts"),
    ("publish", "accounts"),
    ("reconcile", "accounts"),
    ("reconcile", "publish"),
}


def _app_edges() -> set[tuple[str, str]]:
    graph = grimp.build_graph(*PRODUCT)
    return {
        (importer, imported)
        for importer, imported in itertools.permutations(PRODUCT, 2)
        if graph.find_matching_direct_imports(import_expression=f"{importer}.** -> {imported}.**")
        or graph.find_matching_direct_imports(import_expression=f"{importer}.** -> {imported}")
    }


def test_the_apps_import_each_other_without_a_cycle_and_only_along_declared_edges() -> None:
    edges = _app_edges()

    assert edges - DECLARED == set(), "an undeclared import between apps (see docs/ARCHITECTURE.md, Layers)"
    sorter = TopologicalSorter({app: set() for app in PRODUCT})
    for importer, imported in edges:
        sorter.add(importer, imported)
    try:
        order = list(sorter.static_order())
    except CycleError as cycle:
        raise AssertionError(f"an import cycle between apps: {cycle.args[1]}") from None
    assert order[0] == "accounts" and order[-1] == "config"
