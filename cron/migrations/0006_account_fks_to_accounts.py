# Account moved to the accounts app; the foreign keys already point at its table
# (posting_account, kept by db_table), so only Django's state changes here.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('cron', '0005_daily_metric_passed'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='alarm',
                    name='account',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, to='accounts.account'),
                ),
                migrations.AlterField(
                    model_name='approvaldigest',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.account'),
                ),
                migrations.AlterField(
                    model_name='dailymetric',
                    name='account',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.account'),
                ),
            ],
            database_operations=[],
        ),
    ]
