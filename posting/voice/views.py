"""The customer's voice page: what we learned, in plain words, plus upload and relearn.

Mounted at ``/a/<slug>/voice/`` by the root URLconf. Changing the voice is for owners and
editors; viewers can read it.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from posting.access import AuthenticatedHttpRequest, member_required
from posting.composer.services import account_compose_settings_set
from posting.models import Account, Membership, PastPost, Platform, VoiceProfile
from posting.selectors import membership_role
from posting.voice.parsing import MAX_UPLOAD_BYTES, VoiceImportError, posts_parse
from posting.voice.services import (
    voice_import,
    voice_import_from_channel,
    voice_learn,
    voice_relearn,
    voice_summary,
)
from publish.models import Channel

EDITING_ROLES = {Membership.Role.OWNER, Membership.Role.EDITOR}


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


@member_required
def voice(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    profiles = {p.platform: p for p in VoiceProfile.objects.filter(account=account)}
    channels = {c.platform: c for c in _connected_channels(account)}
    platforms = [
        {
            "value": value,
            "label": label,
            "profile": profiles.get(value),
            "summary": voice_summary(profile=profiles[value]) if value in profiles else [],
            "post_count": PastPost.objects.filter(account=account, platform=value).count(),
            "channel": channels.get(value),
        }
        for value, label in Platform.choices
    ]
    context = {
        "account": account,
        "platforms": platforms,
        "form": VoiceUploadForm(),
        "settings_form": ComposeSettingsForm(
            initial={
                "topics": ", ".join(str(t) for t in account.topics) if isinstance(account.topics, list) else "",
                "use_article_images": account.use_article_images,
                "instagram_bio_link": account.instagram_bio_link,
            }
        ),
        "can_edit": membership_role(user=request.user, account=account) in EDITING_ROLES,
    }
    return render(request, "posting/voice.html", context)


@require_POST
@member_required
def voice_upload(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    _require_editor(request, account)
    form = VoiceUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        problems = " ".join(str(error) for errors in form.errors.values() for error in errors)
        messages.error(request, f"Choose a platform and a CSV or JSON file to upload. {problems}".strip())
        return redirect("voice:voice", slug=account.slug)
    upload = form.cleaned_data["file"]
    platform = form.cleaned_data["platform"]
    try:
        if upload.size > MAX_UPLOAD_BYTES:
            raise VoiceImportError(f"The file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB.")
        posts = posts_parse(data=upload.read(), filename=upload.name or "")
        created = voice_import(account=account, platform=platform, posts=posts)
    except VoiceImportError as exc:
        messages.error(request, f"We could not import {upload.name}: {exc}")
        return redirect("voice:voice", slug=account.slug)
    _learn_if_first(request, account=account, platform=platform, created=created)
    return redirect("voice:voice", slug=account.slug)


@require_POST
@member_required
def voice_import_channel(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    _require_editor(request, account)
    channel = next((c for c in _connected_channels(account) if c.platform == request.POST.get("platform")), None)
    if channel is None:
        messages.error(request, "Connect that platform first; then we can read your past posts from it.")
        return redirect("voice:voice", slug=account.slug)
    try:
        created = voice_import_from_channel(channel=channel)
    except VoiceImportError as exc:
        messages.error(request, str(exc))
        return redirect("voice:voice", slug=account.slug)
    _learn_if_first(request, account=account, platform=channel.platform, created=created)
    return redirect("voice:voice", slug=account.slug)


@require_POST
@member_required
def voice_settings(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
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
def voice_relearn_view(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    _require_editor(request, account)
    if voice_relearn(account=account):
        messages.success(request, "Relearned your voice from all your imported posts.")
    else:
        messages.error(request, "There are no imported posts to learn from yet. Upload some first.")
    return redirect("voice:voice", slug=account.slug)


def _learn_if_first(request: HttpRequest, *, account: Account, platform: str, created: int) -> None:
    label = Platform(platform).label
    if not VoiceProfile.objects.filter(account=account, platform=platform).exists():
        if not PastPost.objects.filter(account=account, platform=platform).exists():
            messages.error(request, f"No {label} posts were found to learn from.")
            return
        # The first import learns the voice straight away; later ones wait for "Relearn".
        voice_learn(account=account, platform=platform)
        messages.success(request, f"Imported {created} {label} posts and learned your voice from them.")
    else:
        messages.success(request, f"Imported {created} new {label} posts. Press Relearn to update your voice.")


def _connected_channels(account: Account) -> list[Channel]:
    return list(Channel.objects.filter(account=account, status=Channel.Status.CONNECTED).order_by("pk"))


def _require_editor(request: AuthenticatedHttpRequest, account: Account) -> None:
    if membership_role(user=request.user, account=account) not in EDITING_ROLES:
        raise PermissionDenied("Viewers cannot change the voice.")
