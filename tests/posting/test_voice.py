"""Voice: importing past posts, learning once, describing it in plain words, and the voice page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
import requests
from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from accounts.models import Account, Platform, Role
from devkit.sandbox import GraphSandbox
from posting.models import Draft, LLMUsage, PastPost, VoiceProfile
from posting.voice.parsing import MAX_UPLOAD_BYTES, VoiceImportError, posts_parse
from posting.voice.services import (
    VoiceNoPosts,
    voice_import,
    voice_import_from_channel,
    voice_learn,
    voice_learn_after_import,
    voices_learn_pending,
)
from posting.voice.stats import voice_describe, voice_stats
from publish.models import Channel, Publication
from publish.services import channel_bind
from tests import factories
from tests.llm_server import LLMServer, Reply, serve_llm
from tests.posting.test_composer import article_create

PAST_POSTS = [
    "New gravel bikes just landed in the shop! \U0001f6b2 Come and try one this weekend.\nSee you on the road!\n"
    "#harbourlife #gravel",
    "We fixed 40 punctures this week. Check your tyre pressure, friends! \U0001f527\nSee you on the road!\n"
    "#harbourlife",
    "Our Sunday group ride leaves at 9. Everyone welcome, no one dropped! \U0001f6b2\nSee you on the road!\n"
    "#harbourlife #ride",
    "Rain all week? We have mudguards for every bike. Drop by and we will fit them while you wait.\n"
    "See you on the road!",
    "Thanks to everyone who came to the bike maintenance evening! \U0001f64c We will run another in March.",
]
CSV_EXPORT = (
    "message,created_time\n"
    '"New gravel bikes just landed! \U0001f6b2",2024-05-01T10:00:00+0000\n'
    '"Sunday ride leaves at 9, everyone welcome",2024-05-03\n'
    '"",2024-05-04\n'
).encode()


@pytest.fixture
def editor_client(account: Account) -> Client:
    client = Client(enforce_csrf_checks=False)
    client.force_login(factories.member_create(account=account, username="editor", role=Role.EDITOR))
    return client


def test_stats_measure_length_emoji_hashtags_person_and_sign_offs() -> None:
    stats = voice_stats(PAST_POSTS)

    assert stats["post_count"] == 5
    assert stats["emoji"]["rate"] == 0.8
    assert stats["emoji"]["top"][0] == "\U0001f6b2"
    assert stats["hashtags"]["top"][0] == "#harbourlife"
    assert stats["hashtags"]["placement"] == "end"
    assert stats["person"] == "we"
    assert stats["sign_offs"] == ["See you on the road!"]
    assert stats["punctuation"]["exclamation_rate"] == 1.0
    assert stats["length"]["p25"] <= stats["length"]["median"] <= stats["length"]["p75"]


def test_a_sign_off_keeps_its_own_emoji_and_may_be_a_long_address_line() -> None:
    """The sign-off is the closing line as the business writes it (tests/data/compose/README.md):
    "Cheers from the vines 🍇" under its tags, and a shop's address and hours."""
    vineyard = [
        f"{news} 🍇\n#HollinsHillVineyard #EnglishWine\nCheers from the vines 🍇"
        for news in ("Our 2023 Bacchus is back in stock.", "Budburst on the top slope.", "Cellar door opens Thursday.")
    ]
    address = "Gaskell's Hardware, 22 Sheep Street, Tolbury · open 8 till 5.30, Monday to Saturday"
    shop = [f"{news}\n{address}" for news in ("Logs are back in.", "Frost jackets at £3.99.", "Keys cut today.")]
    # The same words under different emoji: the words are the sign-off.
    baked = (("Rye is back.", "🥖"), ("Buns.", "🥐"), ("Pies.", "🥧"))
    bakery = [f"{news}\nSee you soon {emoji}" for news, emoji in baked]

    assert voice_stats(vineyard)["sign_offs"] == ["Cheers from the vines 🍇"]
    assert len(address) > 80 and voice_stats(shop)["sign_offs"] == [address]
    assert voice_stats(bakery)["sign_offs"] == ["See you soon"]


def test_the_description_is_in_plain_words() -> None:
    lines = voice_describe(voice_stats(PAST_POSTS), platform_label="Facebook Page")

    text = " ".join(lines)
    assert "Learned from 5 of your Facebook Page posts." in text
    # Counted in the posts it learned from (4 of these 5), never "of 10".
    assert "You use emoji in 4 of 5 posts" in text
    assert "You mostly write as \u201cwe\u201d." in text
    assert "You often sign off with \u201cSee you on the road!\u201d." in text
    assert "{" not in text and "rate" not in text


def test_a_csv_export_is_read_with_dates_and_empty_rows_dropped() -> None:
    posts = posts_parse(data=CSV_EXPORT, filename="export.csv")

    assert [p["text"] for p in posts] == [
        "New gravel bikes just landed! \U0001f6b2",
        "Sunday ride leaves at 9, everyone welcome",
    ]
    assert posts[0]["posted_at"].isoformat() == "2024-05-01T10:00:00+00:00"
    assert posts[1]["posted_at"].isoformat() == "2024-05-03T00:00:00+00:00"


def test_a_graph_style_json_export_and_a_plain_list_are_both_read() -> None:
    graph = json.dumps({"data": [{"message": "Hello", "created_time": "not a date"}, {"story": "no text"}]})
    plain = json.dumps(["One", "Two"])

    assert posts_parse(data=graph.encode(), filename="posts.json") == [{"text": "Hello", "posted_at": None}]
    assert [p["text"] for p in posts_parse(data=plain.encode(), filename="x.json")] == ["One", "Two"]


@pytest.mark.parametrize(
    ("data", "filename", "message"),
    [
        (b"", "a.csv", "empty"),
        (b"\xff\xfe\x00garbage", "a.csv", "not UTF-8"),
        (b"date,likes\n2024-01-01,3\n", "a.csv", "header row with a column named"),
        (b'{"data": [', "a.json", "JSON could not be read"),
        (b'{"items": []}', "a.json", "must be a list"),
        (b"[1, 2, 3]", "a.json", "No posts with text"),
    ],
    ids=["empty", "binary", "no-text-column", "broken-json", "wrong-shape", "no-text"],
)
def test_bad_files_get_a_clear_error(data: bytes, filename: str, message: str) -> None:
    with pytest.raises(VoiceImportError, match=message):
        posts_parse(data=data, filename=filename)


@pytest.mark.django_db
def test_importing_the_same_posts_twice_stores_them_once(account: Account) -> None:
    posts = [{"text": t} for t in PAST_POSTS]

    assert voice_import(account=account, platform=Platform.FACEBOOK_PAGE, posts=posts) == 5
    assert voice_import(account=account, platform=Platform.FACEBOOK_PAGE, posts=posts) == 0

    assert PastPost.objects.filter(account=account).count() == 5


@pytest.mark.django_db
def test_voices_are_learned_once_and_only_relearned_on_request(account: Account, other_account: Account) -> None:
    voice_import(account=account, platform=Platform.FACEBOOK_PAGE, posts=[{"text": t} for t in PAST_POSTS])

    assert voices_learn_pending() == {"learned": 1, "failed": 0}
    profile = VoiceProfile.objects.get(account=account, platform=Platform.FACEBOOK_PAGE)
    assert profile.source_post_count == 5
    assert len(profile.exemplars) == 3
    assert profile.style_guide == ""  # no LLM configured

    # More posts arrive: the nightly job leaves the learned voice alone.
    voice_import(account=account, platform=Platform.FACEBOOK_PAGE, posts=[{"text": "A brand new post!"}])
    assert voices_learn_pending() == {"learned": 0, "failed": 0}
    profile.refresh_from_db()
    assert profile.source_post_count == 5

    # Relearning on request takes them in.
    assert voice_learn(account=account, platform=Platform.FACEBOOK_PAGE).source_post_count == 6


def test_the_learned_voice_knows_how_often_the_business_names_itself(account: Account) -> None:
    # From the account's own name and the names it goes by (the composer then keeps a platform
    # that speaks of the business by name in the third person).
    account.own_names = ["Harbour Kayaks"]
    account.save()
    posts = [f"{account.name} is out on the water at {hour}." for hour in (9, 10)]
    posts += ["Calm sea, 14 degrees.", "Calm sea, 15 degrees.", "Harbour Kayaks back on Friday."]
    voice_import(account=account, platform=Platform.INSTAGRAM, posts=[{"text": t} for t in posts])
    profile = voice_learn(account=account, platform=Platform.INSTAGRAM)
    assert profile.stats["names_self_rate"] == pytest.approx(0.6)
    assert profile.stats["person_rate"] == 0
    text = " ".join(voice_describe(profile.stats, platform_label="Instagram"))
    assert "You speak of your business by its name in 3 of 5 posts, never as \u201cwe\u201d or \u201cI\u201d." in text


@pytest.fixture
def llm(settings) -> Iterator[LLMServer]:
    yield from serve_llm(settings, timeout_s=0.5, max_retries=0)


@pytest.mark.django_db
def test_with_an_llm_a_style_guide_is_written_and_its_usage_recorded(llm: LLMServer, account: Account) -> None:
    llm.script(Reply.ok({"style_guide": "Warm, short, upbeat; ends with 'See you on the road!'"}))
    voice_import(account=account, platform=Platform.INSTAGRAM, posts=[{"text": t} for t in PAST_POSTS])

    profile = voice_learn(account=account, platform=Platform.INSTAGRAM)

    assert profile.style_guide.startswith("Warm, short, upbeat")
    assert LLMUsage.objects.get().purpose == "voice_style_guide"
    assert "STYLE only" in llm.requests[0].body["messages"][0]["content"]


@pytest.mark.django_db
def test_a_failing_llm_still_learns_the_voice_from_statistics(llm: LLMServer, account: Account) -> None:
    llm.script(Reply.server_error(500))
    voice_import(account=account, platform=Platform.INSTAGRAM, posts=[{"text": t} for t in PAST_POSTS])

    profile = voice_learn(account=account, platform=Platform.INSTAGRAM)

    assert profile.style_guide == ""
    assert profile.stats["post_count"] == 5
    assert LLMUsage.objects.get().status == LLMUsage.Status.SERVER_ERROR


@pytest.mark.django_db
def test_the_voice_page_shows_the_profile_in_plain_words(member_client: Client, account: Account) -> None:
    voice_import(account=account, platform=Platform.FACEBOOK_PAGE, posts=[{"text": t} for t in PAST_POSTS])
    voice_learn(account=account, platform=Platform.FACEBOOK_PAGE)

    response = member_client.get(f"/a/{account.slug}/voice/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "You mostly write as \u201cwe\u201d." in page
    assert "Relearn" in page
    assert 'enctype="multipart/form-data"' in page


@pytest.mark.django_db
def test_a_new_account_s_voice_page_says_nothing_is_learned_yet(member_client: Client, account: Account) -> None:
    page = member_client.get(f"/a/{account.slug}/voice/").content.decode()

    assert "No Facebook Page posts imported yet." in page
    assert "No Instagram posts imported yet." in page


@pytest.mark.django_db
def test_uploading_a_csv_imports_and_learns_the_voice(editor_client: Client, account: Account) -> None:
    upload = SimpleUploadedFile("export.csv", CSV_EXPORT, content_type="text/csv")

    response = editor_client.post(
        f"/a/{account.slug}/voice/upload/", {"platform": Platform.INSTAGRAM, "file": upload}, follow=True
    )

    assert response.status_code == 200
    assert "Imported 2 Instagram posts and learned your voice" in response.content.decode()
    assert VoiceProfile.objects.get(account=account, platform=Platform.INSTAGRAM).source_post_count == 2


@pytest.mark.django_db
def test_a_bad_upload_gets_a_clear_message_and_imports_nothing(editor_client: Client, account: Account) -> None:
    upload = SimpleUploadedFile("export.csv", b"date,likes\n2024-01-01,3\n", content_type="text/csv")

    response = editor_client.post(
        f"/a/{account.slug}/voice/upload/", {"platform": Platform.INSTAGRAM, "file": upload}, follow=True
    )

    assert response.status_code == 200
    assert "We could not import export.csv: The CSV needs a header row" in response.content.decode()
    assert not PastPost.objects.exists()


@pytest.mark.django_db
def test_an_upload_over_the_size_limit_is_refused_before_it_is_read(editor_client: Client, account: Account) -> None:
    upload = SimpleUploadedFile("big.csv", b"text\n" + b"x" * MAX_UPLOAD_BYTES, content_type="text/csv")

    response = editor_client.post(
        f"/a/{account.slug}/voice/upload/", {"platform": Platform.INSTAGRAM, "file": upload}, follow=True
    )

    assert response.status_code == 200
    assert "The file is larger than 2 MB." in response.content.decode()
    assert not PastPost.objects.exists()


@pytest.mark.django_db
def test_the_first_import_learns_the_voice_and_later_ones_wait_for_relearn(account: Account) -> None:
    platform = Platform.FACEBOOK_PAGE
    with pytest.raises(VoiceNoPosts):
        voice_learn_after_import(account=account, platform=platform)  # nothing imported yet

    voice_import(account=account, platform=platform, posts=[{"text": t} for t in PAST_POSTS[:2]])
    first = voice_learn_after_import(account=account, platform=platform)
    assert first is not None and first.source_post_count == 2

    voice_import(account=account, platform=platform, posts=[{"text": t} for t in PAST_POSTS])
    assert voice_learn_after_import(account=account, platform=platform) is None
    assert VoiceProfile.objects.get(account=account).source_post_count == 2  # the voice did not drift

    relearned = voice_learn_after_import(account=account, platform=platform, relearn=True)
    assert relearned is not None and relearned.source_post_count == 5


@pytest.mark.django_db
def test_relearn_button_relearns_from_all_imported_posts(editor_client: Client, account: Account) -> None:
    voice_import(account=account, platform=Platform.FACEBOOK_PAGE, posts=[{"text": t} for t in PAST_POSTS[:2]])
    voice_learn(account=account, platform=Platform.FACEBOOK_PAGE)
    voice_import(account=account, platform=Platform.FACEBOOK_PAGE, posts=[{"text": t} for t in PAST_POSTS])

    response = editor_client.post(f"/a/{account.slug}/voice/relearn/", follow=True)

    assert "Relearned your voice" in response.content.decode()
    assert VoiceProfile.objects.get(account=account).source_post_count == 5


@pytest.mark.django_db
def test_the_upload_form_is_csrf_protected(member_client: Client, account: Account) -> None:
    upload = SimpleUploadedFile("export.csv", CSV_EXPORT, content_type="text/csv")

    response = member_client.post(f"/a/{account.slug}/voice/upload/", {"platform": "instagram", "file": upload})

    assert response.status_code == 403
    assert not PastPost.objects.exists()


@pytest.mark.django_db
def test_viewers_cannot_change_the_voice(account: Account) -> None:
    client = Client()
    client.force_login(factories.member_create(account=account, username="viewer", role=Role.VIEWER))

    response = client.post(f"/a/{account.slug}/voice/relearn/")

    assert response.status_code == 403


@pytest.mark.django_db
def test_members_of_another_account_cannot_see_or_change_this_voice(account: Account, other_member: User) -> None:
    client = Client()
    client.force_login(other_member)

    assert client.get(f"/a/{account.slug}/voice/").status_code == 404
    upload = SimpleUploadedFile("export.csv", CSV_EXPORT, content_type="text/csv")
    assert client.post(f"/a/{account.slug}/voice/upload/", {"platform": "instagram", "file": upload}).status_code == 404
    assert not PastPost.objects.exists()


@pytest.mark.django_db
def test_the_management_command_imports_a_file_and_learns(account: Account, tmp_path: Path) -> None:
    export = tmp_path / "posts.json"
    export.write_text(json.dumps([{"text": t} for t in PAST_POSTS]))
    out = StringIO()

    call_command("voice_import", str(export), account=account.slug, platform="facebook_page", stdout=out)

    assert "Imported 5 new posts" in out.getvalue()
    assert "Learned the Facebook Page voice from 5 posts." in out.getvalue()


@pytest.mark.django_db
def test_the_management_command_explains_a_bad_file(account: Account, tmp_path: Path) -> None:
    export = tmp_path / "posts.json"
    export.write_text('{"data": [')

    with pytest.raises(CommandError, match="JSON could not be read"):
        call_command("voice_import", str(export), account=account.slug, platform="facebook_page")


@pytest.fixture
def sandbox(settings) -> Iterator[GraphSandbox]:
    sb = GraphSandbox()
    sb.start()
    settings.GRAPH_API_BASE_URL = sb.base_url
    try:
        yield sb
    finally:
        sb.close()


def page_with_posts(sandbox: GraphSandbox, account: Account, texts: list[str]) -> tuple[Channel, list[str]]:
    """A sandbox Page with these posts, connected to the account as its Facebook channel."""
    user = sandbox.create_user()
    page = sandbox.create_page(user["id"], name="Harbour Bikes", with_instagram=False)
    feed = f"{sandbox.base_url}/{settings.GRAPH_API_VERSION}/{page['id']}/feed"
    headers = {"Authorization": f"Bearer {page['access_token']}"}
    post_ids = []
    for text in texts:
        response = requests.post(feed, data={"message": text}, headers=headers, timeout=5)
        response.raise_for_status()
        post_ids.append(response.json()["id"])
    channel = channel_bind(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        external_id=page["id"],
        name="Harbour Bikes",
        token=page["access_token"],
    )
    return channel, post_ids


@pytest.mark.django_db
def test_a_connected_page_s_own_posts_are_imported_but_not_the_ones_landed_published(
    sandbox: GraphSandbox, account: Account
) -> None:
    # given a Page with three posts of the business's own and one Landed published
    channel, post_ids = page_with_posts(sandbox, account, [*PAST_POSTS[:3], "Posted by Landed"])
    landed_post_id = post_ids[-1]
    draft_article = article_create(account)
    draft = Draft.objects.create(account=account, platform=Platform.FACEBOOK_PAGE, article=draft_article, text="x")
    Publication.objects.create(
        draft=draft, channel=channel, account=account, platform_post_id=landed_post_id, scheduled_for=timezone.now()
    )

    # when the page's history is imported
    created = voice_import_from_channel(channel=channel)

    # then the business's own posts are past posts, and Landed's is not
    assert created == 3
    assert set(PastPost.objects.values_list("text", flat=True)) == set(PAST_POSTS[:3])
    assert set(PastPost.objects.values_list("origin", flat=True)) == {"channel"}


@pytest.mark.django_db
def test_a_page_that_cannot_be_read_gives_a_clear_import_error(sandbox: GraphSandbox, account: Account) -> None:
    user = sandbox.create_user()
    page = sandbox.create_page(user["id"], with_instagram=False)
    channel = channel_bind(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        external_id=page["id"],
        name="Harbour Bikes",
        token=page["access_token"],
    )
    sandbox.expire_token(page["access_token"])

    with pytest.raises(VoiceImportError, match="Could not read your posts"):
        voice_import_from_channel(channel=channel)

    assert not PastPost.objects.exists()


@pytest.mark.django_db
def test_the_voice_page_imports_from_the_connected_page_and_learns(
    sandbox: GraphSandbox, editor_client: Client, account: Account
) -> None:
    page_with_posts(sandbox, account, PAST_POSTS)

    page = editor_client.get(f"/a/{account.slug}/voice/").content.decode()
    response = editor_client.post(
        f"/a/{account.slug}/voice/import-channel/", {"platform": Platform.FACEBOOK_PAGE}, follow=True
    )

    assert "Import past posts from Harbour Bikes" in page
    assert "Imported 5 Facebook Page posts and learned your voice" in response.content.decode()
    assert VoiceProfile.objects.get(account=account).source_post_count == 5


@pytest.mark.django_db
def test_the_management_command_reads_a_connected_page(sandbox: GraphSandbox, account: Account) -> None:
    page_with_posts(sandbox, account, PAST_POSTS[:2])
    out = StringIO()

    call_command("voice_import", account=account.slug, platform="facebook_page", from_channel=True, stdout=out)

    assert "Imported 2 new posts." in out.getvalue()
    assert "Learned the Facebook Page voice from 2 posts." in out.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data",
    [b'[{"text": "New bikes\\u0000 in the shop"}]', b'["New bikes \\ud83d in the shop"]'],
    ids=["nul", "surrogate"],
)
def test_an_upload_with_characters_the_database_refuses_is_imported_without_them(
    editor_client: Client, account: Account, data: bytes
) -> None:
    upload = SimpleUploadedFile("export.json", data, content_type="application/json")

    response = editor_client.post(
        f"/a/{account.slug}/voice/upload/", {"platform": Platform.INSTAGRAM, "file": upload}, follow=True
    )

    assert response.status_code == 200
    assert PastPost.objects.get(account=account).text.replace("  ", " ") == "New bikes in the shop"


@pytest.mark.django_db
def test_when_its_posts_say_little_and_no_topics_are_chosen_the_voice_page_asks_for_topics(
    member_client: Client, account: Account
) -> None:
    # Relevance misses much of a business's news when its posts say little (relevance.knows_little).
    url = f"/a/{account.slug}/voice/"
    assert "With no past posts we know too little" in member_client.get(url).content.decode()

    voice_import(account=account, platform=Platform.FACEBOOK_PAGE, posts=[{"text": t} for t in PAST_POSTS[:3]])
    assert "Your 3 past posts say too little" in member_client.get(url).content.decode()

    account.topics = ["bike repairs"]
    account.save(update_fields=["topics"])
    assert "too little" not in member_client.get(url).content.decode()

    account.topics = []
    account.save(update_fields=["topics"])
    longer = " ".join(["We serviced a touring bike today and fitted new brake pads and a chain."] * 4)
    voice_import(account=account, platform=Platform.INSTAGRAM, posts=[{"text": f"{longer} ({n})"} for n in range(4)])
    assert "too little" not in member_client.get(url).content.decode()


@pytest.mark.django_db
def test_an_account_with_no_topics_is_asked_for_them_on_the_voice_and_drafts_pages(
    member_client: Client, account: Account
) -> None:
    # Held out, an owner's topics took recall from 0.714 to 0.843 even for businesses whose posts
    # say plenty (docs/BENCHMARKS.md, "Session 11"): every account without topics is asked, on the
    # Voice page and under its drafts; a viewer, who cannot choose them, is not.
    from tests import factories

    longer = " ".join(["We serviced a touring bike today and fitted new brake pads and a chain."] * 4)
    posts = [{"text": f"{longer} ({n})"} for n in range(4)]
    voice_import(account=account, platform=Platform.FACEBOOK_PAGE, posts=posts)
    voice_page = f"/a/{account.slug}/voice/"
    drafts_page = f"/a/{account.slug}/drafts/"
    assert "Name a handful of topics" in member_client.get(voice_page).content.decode()
    assert 'id="topics-hint"' in member_client.get(drafts_page).content.decode()
    assert f'href="/a/{account.slug}/voice/#topics"' in member_client.get(drafts_page).content.decode()

    viewer = Client()
    viewer.force_login(factories.member_create(account=account, username="viewer", role=Role.VIEWER))
    assert 'id="topics-hint"' not in viewer.get(drafts_page).content.decode()

    account.topics = ["bike repairs", "cycle routes"]
    account.save(update_fields=["topics"])
    assert "Name a handful of topics" not in member_client.get(voice_page).content.decode()
    assert 'id="topics-hint"' not in member_client.get(drafts_page).content.decode()


def _nail_studio_composed(account: Account, *, industry: str, captions: list[str]) -> None:
    """The account as a nail studio with these Instagram captions and no topics, after a compose run
    over one article of its trade."""
    from posting.composer.services import drafts_compose_for_account
    from tests.posting.test_composer import article_create

    account.industry = industry
    account.save(update_fields=["industry"])
    voice_import(account=account, platform=Platform.INSTAGRAM, posts=[{"text": t} for t in captions])
    article_create(account, title="Salons warned over acrylic nail chemicals")
    drafts_compose_for_account(account=Account.objects.get(pk=account.pk))


@pytest.mark.django_db
def test_the_voice_page_shows_the_topics_borrowed_from_the_trade_until_the_owner_names_some(
    member_client: Client, account: Account
) -> None:
    # A nail studio of three captions and no topics: the night's relevance borrows its trade's
    # usual topics (relevance.topic_build); the Voice page says which, so the owner can do better.
    from posting.composer.services import drafts_compose_for_account

    captions = ["Fresh gel set for Saturday \U0001f485 #polishpot", "Chrome tips, bold colour.", "December diary open."]
    _nail_studio_composed(account, industry="nail salon", captions=captions)

    assert Account.objects.get(pk=account.pk).borrowed_topics == ["manicures", "pedicures", "gel", "acrylic nails"]
    page = member_client.get(f"/a/{account.slug}/voice/").content.decode()
    assert "we look for what your trade usually posts about: manicures, pedicures, gel, acrylic nails." in page
    # The empty topics field shows them greyed as a starting point, never as a value a save would keep.
    assert 'placeholder="manicures, pedicures, gel, acrylic nails"' in page
    assert 'name="topics" value=' not in page

    account.topics = ["gel nails", "nail art"]
    account.save(update_fields=["topics"])
    page = member_client.get(f"/a/{account.slug}/voice/").content.decode()
    assert "usually posts about" not in page and 'placeholder="manicures' not in page
    drafts_compose_for_account(account=Account.objects.get(pk=account.pk))
    assert Account.objects.get(pk=account.pk).borrowed_topics == []


@pytest.mark.django_db
def test_the_voice_page_shows_borrowed_topics_to_an_account_with_no_industry_however_much_it_posts(
    member_client: Client, account: Account
) -> None:
    # Eighteen captions say plenty, but no industry line was given: relevance borrows the trade's
    # usual topics all the same (relevance.told_little), and the page's ask for topics says which.
    captions = ["Fresh set for Saturday \U0001f485 #polishpot", "Chrome tips, bold colour.", "December diary open."]
    said = [
        f"{caption} Our nail technicians shape, file and paint nails for every occasion, {day}."
        for caption in captions
        for day in ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays")
    ]
    _nail_studio_composed(account, industry="", captions=said)

    assert Account.objects.get(pk=account.pk).borrowed_topics == ["manicures", "pedicures", "gel", "acrylic nails"]
    page = member_client.get(f"/a/{account.slug}/voice/").content.decode()
    assert "Name a handful of topics" in page
    assert "we look for what your trade usually posts about: manicures, pedicures, gel, acrylic nails." in page
