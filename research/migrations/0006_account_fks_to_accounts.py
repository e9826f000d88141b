# Account moved to the accounts app; the foreign keys already point at its table
# (posting_account, kept by db_table), so only Django's state changes here.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('research', '0005_source_fetch_cost_and_run_skipped_feeds'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='subscription',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='subscriptions', to='accounts.account'),
                ),
                migrations.AlterField(
                    model_name='researchrun',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='research_runs', to='accounts.account'),
                ),
            ],
            database_operations=[],
        ),
    ]
