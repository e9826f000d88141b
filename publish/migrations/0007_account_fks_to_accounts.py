# Account moved to the accounts app; the foreign keys already point at its table
# (posting_account, kept by db_table), so only Django's state changes here.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('publish', '0006_merge_kinds_and_recovery'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='channel',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='channels', to='accounts.account'),
                ),
                migrations.AlterField(
                    model_name='oauthclaim',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='oauth_claims', to='accounts.account'),
                ),
                migrations.AlterField(
                    model_name='publication',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='publications', to='accounts.account'),
                ),
                migrations.AlterField(
                    model_name='connectevent',
                    name='account',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.account'),
                ),
            ],
            database_operations=[],
        ),
    ]
