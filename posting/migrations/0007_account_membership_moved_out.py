# The last step of moving Account and Membership to the accounts app: forget them here, once
# every app's foreign keys point at accounts.Account. State only: the tables now belong to
# accounts (accounts 0001) and keep every row.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('posting', '0006_account_fks_to_accounts'),
        ('publish', '0007_account_fks_to_accounts'),
        ('research', '0006_account_fks_to_accounts'),
        ('cron', '0006_account_fks_to_accounts'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='Membership'),
                migrations.DeleteModel(name='Account'),
            ],
            database_operations=[],
        ),
    ]
