"""Platform limits are written once (publish/limits.py) and every checker applies the same ones."""

from __future__ import annotations

import pytest

from accounts.models import Platform
from devkit.sandbox.errors import GraphError
from devkit.sandbox.graph import _caption_check
from posting.composer.llm_composer import ComposeError, _validated_post
from posting.errors import DraftInvalid
from posting.models import LLMUsage
from posting.services import draft_text_validate
from publish import limits

# 30 hashtags, then one written "##deep": 31 by the platform's count (the composer's old
# pattern saw 30 and kept a caption the edit page and the platform refuse).
OVER_HASHTAGS = " ".join(f"#tag{n}" for n in range(30)) + " ##deep"
AT_HASHTAGS = " ".join(f"#tag{n}" for n in range(30))


def test_every_platform_has_its_limits_and_only_those() -> None:
    assert set(limits.MAX_CHARS) == set(Platform.values)
    assert set(limits.MAX_HASHTAGS) | set(limits.MAX_MENTIONS) <= set(Platform.values)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "caption",
    [OVER_HASHTAGS, "x" * (limits.MAX_CHARS["instagram"] + 1), " ".join(f"@shop{n}" for n in range(21))],
)
def test_the_edit_check_the_composer_and_the_sandbox_refuse_the_same_caption(caption: str) -> None:
    with pytest.raises(DraftInvalid):
        draft_text_validate(platform=Platform.INSTAGRAM, text=caption)
    with pytest.raises(ComposeError):
        _composed(caption)
    with pytest.raises(GraphError):
        _caption_check(caption)


@pytest.mark.django_db
def test_a_caption_at_the_limits_passes_all_three() -> None:
    assert draft_text_validate(platform=Platform.INSTAGRAM, text=AT_HASHTAGS) == AT_HASHTAGS
    assert _composed(AT_HASHTAGS).text == AT_HASHTAGS
    _caption_check(AT_HASHTAGS)


def test_a_hashtag_or_mention_starts_a_word() -> None:
    assert limits.hashtags_count("a#b #one ##two") == 2
    assert limits.mentions_count("me@example.com @one @@two") == 1


def _composed(text: str):
    usage = LLMUsage.objects.create(model="test", purpose="compose")
    data = {"text": text, "claims": [{"text": "a claim", "sentences": [1]}]}
    return _validated_post(data, platform=Platform.INSTAGRAM, sentence_count=1, usage=usage)
