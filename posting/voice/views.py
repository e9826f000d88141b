"""The customer's voice page: what we learned, in plain words, plus upload and relearn.

Mounted at ``/a/<slug>/voice/`` by the root URLconf. Changing the voice is for owners and
editors; viewers can read it.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import UploadedFile
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.access import member_required
from accounts.models import Account, Platform
from accounts.selectors import member_may_edit
from posting.composer.selectors import taught_articles
from posting.composer.services import account_compose_settings_set, taught_article_forget
from posting.voice.parsing import MAX_UPLOAD_BYTES, VoiceImportError, posts_parse
from posting.voice.selectors import past_posts_say_little, voice_platforms
from posting.voice.services import (
    VoiceNoPosts,
    voice_import,
    voice_import_from_channel,
    voice_learn_after_import,
    voice_relearn,
)
from publish.selectors import channel_connected_for


class ComposeSettingsForm(forms.Form):
    topics = forms.CharField(
        required=False,
        max_length=2000,
        help_text="What you want posts about, separated by commas (for example: vinyl, turntables, home cinema).",
    )
    use_article_images = forms.BooleanField(
        required=False,
        label="Use the article's own image",
        help_text="The image belongs to the article's publisher. Instagram posts need an image, so without this "
        "we draft for Facebook only.",
    )
    instagram_bio_link = forms.URLField(
        required=False,
        max_length=500,
        label="Your Instagram bio link",
        help_text='Only when your bio links to the articles we post may a caption say "Link in bio".',
    )


class VoiceUploadForm(forms.Form):
    platform = forms.ChoiceField(choices=Platform.choices)
    file = forms.FileField(help_text="CSV with a text column, or JSON (a list of posts).")

    def clean_file(self) -> UploadedFile:
        upload = self.cleaned_data["file"]
        # Refused on its declared size, before a byte of it is read into memory.
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(f"The file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB.")
        return upload


@require_GET
@member_required
def voice(request: HttpRequest, account: Account) -> HttpResponse:
    platforms = voice_platforms(account=account)
    context = {
        "account": account,
        "platforms": platforms,
        # Relevance reads what a business is from its posts: from a few words of them it misses
        # much of its news (docs/BENCHMARKS.md, session 10), and the topics it names count as its
        # trade's words.
        "posts_known": sum(p.post_count for p in platforms),
        "few_posts": not account.topics and past_posts_say_little(account=account),
        # What relevance looks for on its behalf meanwhile (its trade's usual topics), if anything.
        "borrowed": [] if account.topics else [str(t) for t in account.borrowed_topics or []],
        "form": VoiceUploadForm(),
        "settings_form": _settings_form(account),
        "taught": taught_articles(account=account),
        "can_edit": member_may_edit(user=request.user, account=account),
    }
    return render(request, "posting/voice.html", context)


def _settings_form(account: Account) -> ComposeSettingsForm:
    form = ComposeSettingsForm(
        initial={
            "topics": ", ".join(str(t) for t in account.topics) if isinstance(account.topics, list) else "",
            "use_article_images": account.use_article_images,
            "instagram_bio_link": account.instagram_bio_link,
        }
    )
    if not account.topics and account.borrowed_topics:
        # The trade's usual topics, shown greyed in the empty field as a starting point: an owner
        # who saves the form for another setting does not adopt them by accident.
        form.fields["topics"].widget.attrs["placeholder"] = ", ".join(str(t) for t in account.borrowed_topics)
    return form


@require_POST
@member_required
def voice_upload(request: HttpRequest, account: Account) -> HttpResponse:
    _require_editor(request, account)
    form = VoiceUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        problems = " ".join(str(error) for errors in form.errors.values() for error in errors)
        messages.error(request, f"Choose a platform and a CSV or JSON file to upload. {problems}".strip())
        return redirect("voice:voice", slug=account.slug)
    upload = form.cleaned_data["file"]
    platform = form.cleaned_data["platform"]
    try:
        posts = posts_parse(data=upload.read(), filename=upload.name or "")
        created = voice_import(account=account, platform=platform, posts=posts)
    except VoiceImportError as exc:
        messages.error(request, f"We could not import {upload.name}: {exc}")
        return redirect("voice:voice", slug=account.slug)
    _voice_after_import(request, account=account, platform=platform, created=created)
    return redirect("voice:voice", slug=account.slug)


@require_POST
@member_required
def voice_import_channel(request: HttpRequest, account: Account) -> HttpResponse:
    _require_editor(request, account)
    platform = request.POST.get("platform", "")
    channel = channel_connected_for(account_id=account.pk, platform=platform) if platform in Platform.values else None
    if channel is None:
        messages.error(request, "Connect that platform first; then we can read your past posts from it.")
        return redirect("voice:voice", slug=account.slug)
    try:
        created = voice_import_from_channel(channel=channel)
    except VoiceImportError as exc:
        messages.error(request, str(exc))
        return redirect("voice:voice", slug=account.slug)
    _voice_after_import(request, account=account, platform=channel.platform, created=created)
    return redirect("voice:voice", slug=account.slug)


@require_POST
@member_required
def voice_settings(request: HttpRequest, account: Account) -> HttpResponse:
    _require_editor(request, account)
    form = ComposeSettingsForm(request.POST)
    if not form.is_valid():
        problems = " ".join(str(error) for errors in form.errors.values() for error in errors)
        messages.error(request, f"Your settings were not saved. {problems}".strip())
        return redirect("voice:voice", slug=account.slug)
    account_compose_settings_set(
        account=account,
        topics=form.cleaned_data["topics"].split(","),
        use_article_images=form.cleaned_data["use_article_images"],
        instagram_bio_link=form.cleaned_data["instagram_bio_link"],
    )
    messages.success(request, "Saved. The next drafts follow these settings.")
    return redirect("voice:voice", slug=account.slug)


@require_POST
@member_required
def voice_taught_forget(request: HttpRequest, account: Account, taught_id: int) -> HttpResponse:
    """Stop reading one article the customer had drafted from the skipped list."""
    _require_editor(request, account)
    if not taught_article_forget(account=account, taught_id=taught_id):
        raise Http404("No such article was taught.")
    messages.success(request, "Forgotten. The next drafts no longer look for news like it.")
    return redirect(f"{reverse('voice:voice', kwargs={'slug': account.slug})}#taught")


@require_POST
@member_required
def voice_relearn_view(request: HttpRequest, account: Account) -> HttpResponse:
    _require_editor(request, account)
    if voice_relearn(account=account):
        messages.success(request, "Relearned your voice from all your imported posts.")
    else:
        messages.error(request, "There are no imported posts to learn from yet. Upload some first.")
    return redirect("voice:voice", slug=account.slug)


def _voice_after_import(request: HttpRequest, *, account: Account, platform: str, created: int) -> None:
    """Say what the import did to the voice (``voice_learn_after_import`` decides)."""
    label = Platform(platform).label
    try:
        learned = voice_learn_after_import(account=account, platform=platform)
    except VoiceNoPosts:
        messages.error(request, f"No {label} posts were found to learn from.")
        return
    if learned is not None:
        messages.success(request, f"Imported {created} {label} posts and learned your voice from them.")
    else:
        messages.success(request, f"Imported {created} new {label} posts. Press Relearn to update your voice.")


def _require_editor(request: HttpRequest, account: Account) -> None:
    if not member_may_edit(user=request.user, account=account):
        raise PermissionDenied("Viewers cannot change the voice.")
