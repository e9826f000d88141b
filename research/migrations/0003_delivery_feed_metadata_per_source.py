"""Feed-given metadata moves from the shared Article to one Delivery per (feed, story).

Existing links become deliveries carrying what the article held; links that only existed
because a near-duplicate pointed its subscribers at another page are dropped (an account
now reaches only pages its own feeds listed, and near-duplicates are folded per account).
"""

import django.db.models.deletion
from django.db import migrations, models


def links_to_deliveries(apps, schema_editor):
    Article = apps.get_model("research", "Article")
    Delivery = apps.get_model("research", "Delivery")
    Link = Article.sources.through
    borrowed = set()
    for duplicate_id, original_id in Article.objects.filter(duplicate_of__isnull=False).values_list(
        "pk", "duplicate_of_id"
    ):
        for source_id in Link.objects.filter(article_id=duplicate_id).values_list("source_id", flat=True):
            borrowed.add((original_id, source_id))
    articles = Article.objects.in_bulk(set(Link.objects.values_list("article_id", flat=True)))
    batch = []
    for article_id, source_id in Link.objects.values_list("article_id", "source_id").iterator():
        article = articles[article_id]
        if (article_id, source_id) in borrowed and article.source_id != source_id:
            continue
        batch.append(
            Delivery(
                source_id=source_id,
                article_id=article_id,
                entry_id=article.entry_id if article.source_id == source_id else "",
                title=article.title,
                summary=article.summary,
                author=article.author,
                link=article.canonical_url,
                published_at=article.published_at,
            )
        )
    Delivery.objects.bulk_create(batch, batch_size=1000, ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [
        ("research", "0002_article_sources_run_details"),
    ]

    operations = [
        migrations.CreateModel(
            name="Delivery",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("entry_id", models.CharField(blank=True, max_length=1000)),
                ("title", models.CharField(blank=True, max_length=1000)),
                ("summary", models.TextField(blank=True)),
                ("author", models.CharField(blank=True, max_length=300)),
                ("link", models.URLField(blank=True, max_length=2000)),
                ("published_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "article",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="deliveries", to="research.article"
                    ),
                ),
                (
                    "source",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="deliveries", to="research.source"
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "deliveries",
                "indexes": [models.Index(fields=["source", "entry_id"], name="research_de_source__9496d3_idx")],
                "constraints": [models.UniqueConstraint(fields=("source", "article"), name="delivery_unique")],
            },
        ),
        migrations.RunPython(links_to_deliveries, migrations.RunPython.noop),
        migrations.RemoveField(model_name="article", name="sources"),
        migrations.RemoveField(model_name="article", name="entry_id"),
        migrations.RemoveField(model_name="article", name="summary"),
        migrations.RemoveField(model_name="article", name="duplicate_of"),
        migrations.AddField(
            model_name="article",
            name="sources",
            field=models.ManyToManyField(
                blank=True, related_name="listed_articles", through="research.Delivery", to="research.source"
            ),
        ),
    ]
