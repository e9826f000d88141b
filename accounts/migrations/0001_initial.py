# Account and Membership move here from posting. The tables stay where they are (the models
# keep their names with db_table), so this migration only tells Django's state about them:
# no row is copied, no table is locked. Content types (and with them permissions and admin
# log entries) are relabelled so they keep pointing at the same models.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED = ("account", "membership")


def relabel_content_types(apps, schema_editor, *, old: str, new: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    for model in MOVED:
        if ContentType.objects.using(db).filter(app_label=new, model=model).exists():
            continue  # already there (created by a later post_migrate): leave both, nothing to move
        ContentType.objects.using(db).filter(app_label=old, model=model).update(app_label=new)


def forwards(apps, schema_editor):
    relabel_content_types(apps, schema_editor, old="posting", new="accounts")


def backwards(apps, schema_editor):
    relabel_content_types(apps, schema_editor, old="accounts", new="posting")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('posting', '0005_merge_revisions_and_relevance'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Account',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=200)),
                        ('slug', models.SlugField(max_length=80, unique=True)),
                        ('industry', models.CharField(blank=True, max_length=80)),
                        ('timezone', models.CharField(default='UTC', max_length=64)),
                        ('is_paying', models.BooleanField(default=False)),
                        ('paused', models.BooleanField(default=False)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('onboarding_grace_hours', models.PositiveIntegerField(default=72)),
                        ('cadence_per_day', models.PositiveSmallIntegerField(default=1)),
                        ('own_names', models.JSONField(blank=True, default=list)),
                        ('topics', models.JSONField(blank=True, default=list)),
                        ('use_article_images', models.BooleanField(default=False)),
                        ('instagram_bio_link', models.URLField(blank=True, max_length=500)),
                    ],
                    options={
                        'db_table': 'posting_account',
                        'ordering': ['name'],
                    },
                ),
                migrations.CreateModel(
                    name='Membership',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('role', models.CharField(choices=[('owner', 'Owner'), ('editor', 'Editor'), ('viewer', 'Viewer')], default='owner', max_length=16)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('account', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='accounts.account')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'posting_membership',
                        'constraints': [models.UniqueConstraint(fields=('user', 'account'), name='membership_unique_user_account')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(forwards, backwards),
    ]
