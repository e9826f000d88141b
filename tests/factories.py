"""Plain functions that build rows for tests; no factory framework needed yet."""

from __future__ import annotations

from django.contrib.auth.models import User

from accounts.models import Account, Membership, Role


def account_create(*, name: str = "Acme Bakery", slug: str = "acme-bakery", **fields: object) -> Account:
    fields.setdefault("industry", "cycling")
    fields.setdefault("is_paying", True)
    return Account.objects.create(name=name, slug=slug, **fields)


def member_create(*, account: Account, username: str = "owner", role: str = Role.OWNER) -> User:
    user = User.objects.create_user(username=username, password="correct horse battery staple")
    Membership.objects.create(user=user, account=account, role=role)
    return user


def article_create(
    *,
    url: str = "https://news.example/story",
    title: str = "Harbour Bikes opens a second shop",
    text: str = (
        "Harbour Bikes opened a second shop in Leith on Monday. "
        "The shop employs 12 mechanics and stocks 400 bicycles. "
        "Owner Jane Smith said demand rose 20 percent in 2025."
    ),
    **fields: object,
):
    from research.models import Article

    fields.setdefault("extraction_status", Article.Extraction.OK)
    fields.setdefault("lead_image_url", "https://news.example/lead.jpg")
    article = Article.objects.create(canonical_url=url, title=title, text=text, **fields)
    if article.source_id:
        # An account reaches an article only through a feed that delivered it.
        article.sources.add(article.source)
    return article


def draft_create(
    *,
    account: Account,
    article=None,
    platform: str = "facebook_page",
    text: str = "Harbour Bikes opened a second shop in Leith on Monday.",
    status: str = "gated",
    gate_verdict: str = "passed",
):
    from posting.models import Draft, text_sha256_of

    article = article or article_create(url=f"https://news.example/{account.slug}/{platform}")
    return Draft.objects.create(
        account=account,
        article=article,
        platform=platform,
        text=text,
        link_url=article.canonical_url,
        image_url=article.lead_image_url,
        status=status,
        gate_verdict=gate_verdict,
        # A verdict is bound to the text it judged (the draft_verdict_bound_to_text constraint).
        gate_text_sha256=text_sha256_of(text) if gate_verdict else "",
        gate_claims=[
            {
                "text": text,
                "supported": True,
                "evidence": [{"sentence": 1, "text": text}],
                "reason": "",
            }
        ]
        if gate_verdict == "passed"
        else [],
    )
