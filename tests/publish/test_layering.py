"""publish sits below reconcile: reconcile imports publish, publish never imports reconcile
(it hands publications over by a signal reconcile connects to)."""

from __future__ import annotations

import ast
from pathlib import Path

import publish

PUBLISH_DIR = Path(publish.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at top level or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_module_of_publish_imports_reconcile() -> None:
    files = sorted(PUBLISH_DIR.rglob("*.py"))
    assert len(files) > 20
    offenders = {
        str(path.relative_to(PUBLISH_DIR.parent)): sorted(
            name for name in _imported_modules(path) if name == "reconcile" or name.startswith("reconcile.")
        )
        for path in files
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def late():\n    from reconcile.tasks import x\n    import reconcile.services\n")

    assert _imported_modules(sample) == {"reconcile.tasks", "reconcile.services"}


def test_reconcile_listens_for_publications_awaiting_a_read() -> None:
    """The hand-off that replaced publish.tasks importing reconcile.tasks (the real-worker
    pipeline test shows the read actually happens)."""
    from publish.signals import publication_awaiting_read
    from reconcile.tasks import publication_read_enqueue

    # Entries are (lookup key, weak reference to the receiver, is async).
    receivers = [entry[1]() for entry in publication_awaiting_read.receivers]
    assert publication_read_enqueue in receivers
