# Account moved to the accounts app (accounts 0001). The foreign keys already point at its
# table (posting_account, kept by db_table), so only Django's state changes here.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('posting', '0005_merge_revisions_and_relevance'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='voiceprofile',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='voice_profiles', to='accounts.account'),
                ),
                migrations.AlterField(
                    model_name='pastpost',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='past_posts', to='accounts.account'),
                ),
                migrations.AlterField(
                    model_name='draft',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='drafts', to='accounts.account'),
                ),
                migrations.AlterField(
                    model_name='llmusage',
                    name='account',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='llm_usage', to='accounts.account'),
                ),
                migrations.AlterField(
                    model_name='composeskip',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='compose_skips', to='accounts.account'),
                ),
            ],
            database_operations=[],
        ),
    ]
