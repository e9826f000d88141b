"""Run the Graph sandbox standalone: ``python -m devkit.sandbox --port 8765 --state FILE --seed``."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Protocol

from devkit.sandbox.server import GraphSandbox


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m devkit.sandbox", description="Landed Graph sandbox")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--state", type=Path, default=None, help="SQLite state file (default: in memory)")
    parser.add_argument("--seed", action="store_true", help="create the demo user and page if there is no user")
    parser.add_argument("--app-id", default="landed-sandbox-app")
    parser.add_argument("--app-secret", default="landed-sandbox-secret")
    args = parser.parse_args(argv)
    sandbox = GraphSandbox(
        state_path=args.state, host=args.host, port=args.port, app_id=args.app_id, app_secret=args.app_secret
    )
    serve(sandbox, seed=args.seed, out=sys.stdout)


class Console(Protocol):
    """Where serve() prints: sys.stdout, or a management command's stdout (an OutputWrapper)."""

    def write(self, text: str, /) -> object: ...

    def flush(self) -> object: ...


def serve(sandbox: GraphSandbox, *, seed: bool, out: Console) -> None:
    """Start, print where (ids only: tokens never go to a console or log), serve until SIGTERM/^C."""
    sandbox.start()
    write = out.write
    write(f"Graph sandbox serving at {sandbox.base_url}\n")
    if seed:
        demo = sandbox.seed_demo()
        page = demo["page"]
        write(
            f"demo user {demo['user']['id']} ({demo['user']['name']}), page {page['id']} ({page['name']}), "
            f"instagram {page['instagram_id']}\n"
        )
    out.flush()

    def _stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        sandbox.close()


if __name__ == "__main__":
    main()
