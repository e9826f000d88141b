"""Reconcile owns no rows of its own yet: it reads the platform and moves Publications
through publish's services. Engagement snapshots will live here."""
