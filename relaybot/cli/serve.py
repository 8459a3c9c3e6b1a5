"""``relaybot demo`` (a self-contained tour on local mail servers) and ``relaybot web``
(the read-only pages)."""

from __future__ import annotations

import argparse
import sys

from relaybot.cli.common import CliError, Subparsers, open_store
from relaybot.config import Config


def register(sub: Subparsers) -> None:
    demo = sub.add_parser("demo", help="a self-contained tour: two players play by mail")
    demo.add_argument("--game", default="chess", choices=["chess", "shogi", "go"],
                      help="the game the tour plays (default chess)")
    demo.set_defaults(func=cmd_demo)

    web = sub.add_parser("web", help="read-only pages: events, standings, games, players")
    web.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    web.add_argument("--port", type=_port, default=8080,
                     help="the port to listen on (1-65535, default 8080)")
    web.set_defaults(func=cmd_web)


def _port(text: str) -> int:
    """``--port``: a TCP port, refused by argparse in one line otherwise (a number out of
    range reached the socket and ended in a traceback)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1-65535, not {port}")
    return port


def _can_listen(host: str, port: int) -> None:
    """Bind ``host:port`` once before the server starts, so that a port in use or a host
    that is no address here is one line (uvicorn would log it among its start-up lines
    and exit). Raises :class:`CliError`."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise CliError(f"--host {host}: {exc.strerror}") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise CliError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


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

    store = open_store(cfg)
    _can_listen(args.host, args.port)
    serve(cfg, store, args.host, args.port)
    return 0
