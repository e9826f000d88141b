"""What publishing tells the apps above it, without importing them.

``publish`` sits below ``reconcile``: reconcile imports publish, never the other way round.
So when a publish leaves a publication for reading back, publish sends a signal and
reconcile (which connects to it in its AppConfig.ready) enqueues the read.
"""

from __future__ import annotations

from django.dispatch import Signal

# Sent after the transaction commits, with ``publication_id``: the publication is PUBLISHED
# or UNKNOWN and should be read back from the platform straight away. Losing it is harmless,
# the reconcile sweep finds the publication on its next tick.
publication_awaiting_read = Signal()
