"""Development and demonstration tools: never part of the product, never imported by it.

- ``devkit.sandbox``: the Graph sandbox, a local emulation of the Meta Graph API subset
  Landed uses (``python -m devkit.sandbox`` or ``manage.py graph_sandbox``).
- ``devkit.devserver`` and ``devkit.demo_feeds``: a small HTTP server and the demo feed site.
- ``devkit.demo``: the demo business ``make run`` seeds; ``devkit.embedded`` starts the
  sandbox and the feeds inside the Django process.
- management commands: ``landed_run`` (``make run``), ``landed_pipeline`` (``make
  pipeline``), ``graph_sandbox``.

It is a Django app only on the embedded default (``DJANGO_DEBUG=1`` with this package
present, see ``config/settings.py``), so its commands exist there and nowhere else. Tests
and scripts import its modules as a library. The production image leaves the folder out
(``.dockerignore``); import-linter forbids every product package from importing it, and
``tests/test_settings.py`` checks that production settings load without it.
"""
