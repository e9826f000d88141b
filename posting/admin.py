from django import forms
from django.contrib import admin
from django.http import HttpRequest

from posting import services
from posting.errors import DraftInvalid
from posting.models import ComposeSkip, Draft, DraftRevision, LLMUsage, PastPost, TaughtArticle, VoiceProfile


class DraftRevisionInline(admin.TabularInline):
    """Every write of the draft's text: read-only, the record is the point."""

    model = DraftRevision
    extra = 0
    can_delete = False
    # A tuple, so that readonly_fields (typed narrower than fields in the stubs) can be the same one.
    fields = ("created_at", "source", "editor", "previous_text_sha256", "text")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Draft | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Draft | None = None) -> bool:
        return False


class DraftAdminForm(forms.ModelForm):
    """Only the text is editable, and only through the same checks a customer's edit gets."""

    class Meta:
        model = Draft
        fields = ["text"]

    def clean_text(self) -> str:
        if self.instance.status not in services.EDITABLE_STATUSES:
            raise forms.ValidationError("This draft was approved or rejected; its text is final.")
        try:
            return services.draft_text_validate(platform=self.instance.platform, text=self.cleaned_data["text"])
        except DraftInvalid as exc:
            raise forms.ValidationError(str(exc)) from exc


@admin.register(Draft)
class DraftAdmin(admin.ModelAdmin):
    """Staff may read everything and correct the text; the gate alone writes a verdict.

    A text edit goes through ``posting.services.draft_edit``: the verdict is cleared, the
    draft goes back to the gate and the change is recorded as a staff revision.
    """

    form = DraftAdminForm
    list_display = ["pk", "account", "platform", "status", "gate_verdict", "composer", "created_at"]
    list_filter = ["status", "gate_verdict", "platform", "composer"]
    search_fields = ["text", "account__name"]
    readonly_fields = [
        "account",
        "platform",
        "article",
        "link_url",
        "image_url",
        "composer",
        "status",
        "gate_verdict",
        "gate_reason",
        "gate_claims",
        "gate_text_sha256",
        "gated_at",
        "decided_by",
        "decided_at",
        "edited_at",
        "created_at",
    ]
    fields = ["text", *readonly_fields]
    inlines = [DraftRevisionInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Drafts come from the composer, with their article and their first revision.
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Draft | None = None) -> list[str]:
        if obj is not None and obj.status not in services.EDITABLE_STATUSES:
            return ["text", *self.readonly_fields]  # approved or rejected: the text is final
        return list(self.readonly_fields)

    def save_model(self, request: HttpRequest, obj: Draft, form: forms.ModelForm, change: bool) -> None:
        if "text" not in form.changed_data:
            return
        # ``obj`` already carries the new text in memory; the service reads the stored row.
        # The admin serves signed-in staff only: the editor is always a User (the check narrows the type).
        editor = request.user if request.user.is_authenticated else None
        services.draft_edit(draft=obj, text=form.cleaned_data["text"], editor=editor, source=DraftRevision.Source.STAFF)
        obj.refresh_from_db()


@admin.register(DraftRevision)
class DraftRevisionAdmin(admin.ModelAdmin):
    """Read-only: who changed which draft's text, when, and from where."""

    list_display = ["created_at", "draft", "source", "editor", "previous_text_sha256"]
    list_filter = ["source"]
    search_fields = ["text", "draft__account__name"]
    raw_id_fields = ["draft", "editor"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: DraftRevision | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: DraftRevision | None = None) -> bool:
        return False


@admin.register(VoiceProfile)
class VoiceProfileAdmin(admin.ModelAdmin):
    list_display = ["account", "platform", "source_post_count", "learned_at"]


@admin.register(PastPost)
class PastPostAdmin(admin.ModelAdmin):
    list_display = ["account", "platform", "posted_at", "origin"]
    list_filter = ["platform", "origin"]


@admin.register(LLMUsage)
class LLMUsageAdmin(admin.ModelAdmin):
    """Read-only: which key (fingerprint, organisation) is in use, what it costs, how often it is throttled."""

    list_display = [
        "created_at",
        "account",
        "purpose",
        "model",
        "status",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
        "throttled_responses",
        "key_fingerprint",
        "organization",
    ]
    list_filter = ["status", "purpose", "model", "key_fingerprint", "organization"]
    date_hierarchy = "created_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: LLMUsage | None = None) -> bool:
        return False


@admin.register(ComposeSkip)
class ComposeSkipAdmin(admin.ModelAdmin):
    list_display = ["created_at", "account", "platform", "article", "reason"]
    list_filter = ["reason", "platform"]
    raw_id_fields = ["article"]


@admin.register(TaughtArticle)
class TaughtArticleAdmin(admin.ModelAdmin):
    """What customers taught by "Draft it anyway": read-only here (they forget one on the Voice page)."""

    list_display = ["created_at", "account", "title", "taught_by"]
    raw_id_fields = ["article"]
    readonly_fields = ["account", "article", "title", "text", "taught_by", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
