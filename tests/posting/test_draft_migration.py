"""0004 binds the verdicts already stored to the text they sit on, so the new constraint holds."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

from posting.models import text_sha256_of

BEFORE = ("posting", "0003_llmusage_composition_composeskip_and_more")
AFTER = ("posting", "0004_draft_text_hash_and_revisions")


@pytest.mark.django_db(transaction=True)
def test_the_migration_binds_existing_verdicts_and_leaves_drafts_in_the_gate_unbound():
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    try:
        # given drafts stored before verdicts carried a digest
        # The models are read as the database holds them: every migration still applied
        # (other apps stay migrated unless they depend on a later posting migration).
        applied = list(MigrationRecorder(connection).applied_migrations())
        apps = executor.loader.project_state(applied).apps
        account = apps.get_model("posting", "Account").objects.create(name="Old Co", slug="old-co")
        article = apps.get_model("research", "Article").objects.create(
            canonical_url="https://news.example/old", title="Old", text="The shop employs 12 mechanics."
        )
        Draft = apps.get_model("posting", "Draft")
        passed = Draft.objects.create(
            account=account,
            article=article,
            platform="facebook_page",
            text="Café: 12 mechanics 🚲",
            status="gated",
            gate_verdict="passed",
        )
        waiting = Draft.objects.create(
            account=account, article=article, platform="instagram", text="Waiting.", status="drafted"
        )

        # when the migration runs
        executor = MigrationExecutor(connection)
        executor.migrate([AFTER])

        # then each verdict is bound to its text, and a draft without one stays unbound
        Draft = executor.loader.project_state([AFTER]).apps.get_model("posting", "Draft")
        assert Draft.objects.get(pk=passed.pk).gate_text_sha256 == text_sha256_of("Café: 12 mechanics 🚲")
        assert Draft.objects.get(pk=waiting.pk).gate_text_sha256 == ""
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
