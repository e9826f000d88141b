"""Connecting channels: OAuth claims, the Facebook Login flow, channel tokens."""
