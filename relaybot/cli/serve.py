"""``relaybot demo`` (a self-contained tour on local mail servers) and ``relaybot web``
(the read-only pages)."""

from __future__ import annotations

import argparse
import sys

from relaybot.cli.common import Subparsers, open_store
from relaybot.config import Config


def register(sub: Subparsers) -> None:
    demo = sub.add_parser("demo", help="a self-contained tour: two players play by mail")
    demo.add_argument("--game", default="chess", choices=["chess", "shogi", "go"],
                      help="the game the tour plays (default chess)")
    demo.set_defaults(func=cmd_demo)

    web = sub.add_parser("web", help="read-only pages: events, standings, games, players")
    web.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    web.add_argument("--port", type=int, default=8080, help="the port to listen on")
    web.set_defaults(func=cmd_web)


# what `pip install relaybot` leaves out: the demo's own mail servers (the demo extra)
_DEMO_SERVERS = ("aiosmtpd", "pymap")


def cmd_demo(cfg: Config, args: argparse.Namespace) -> int:
    """The tour on local mail servers; without the demo extra, one line on how to add it."""
    try:
        from relaybot.app.demo import run_demo
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in _DEMO_SERVERS:
            raise
        print("relaybot demo needs its mail servers: pip install 'relaybot[demo]' "
              "(pipx: pipx inject relaybot aiosmtpd pymap) / デモ用のメールサーバーを"
              "入れてください: pip install 'relaybot[demo]'", file=sys.stderr)
        return 2
    return run_demo(game=getattr(args, "game", "chess"))


def cmd_web(cfg: Config, args: argparse.Namespace) -> int:
    """The read-only web pages (issue 15) until interrupted."""
    from relaybot.web import serve

    serve(cfg, open_store(cfg), args.host, args.port)
    return 0
