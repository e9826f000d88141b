"""Platform providers: one interface, one Graph client, one module per platform."""

from __future__ import annotations

from accounts.models import Platform
from publish.graph import GraphClient
from publish.providers.base import Provider
from publish.providers.facebook_page import FacebookPageProvider
from publish.providers.instagram import InstagramProvider

PROVIDERS: dict[str, type[Provider]] = {
    Platform.FACEBOOK_PAGE: FacebookPageProvider,
    Platform.INSTAGRAM: InstagramProvider,
}


def provider_for(*, platform: str, client: GraphClient, external_id: str) -> Provider:
    return PROVIDERS[platform](client=client, external_id=external_id)


__all__ = ["PROVIDERS", "FacebookPageProvider", "InstagramProvider", "Provider", "provider_for"]
