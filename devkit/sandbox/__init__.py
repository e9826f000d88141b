"""The Graph sandbox: a local, stateful emulation of the Meta Graph API subset Landed uses.

Stdlib only, no Django: see README.md in this package for the Python and HTTP control APIs.
"""

from devkit.sandbox.server import GraphSandbox

__all__ = ["GraphSandbox"]
