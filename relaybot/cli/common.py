"""What the commands share: their errors (one line and an exit status), opening the store,
reading ``--now`` and dates, ``--json`` output, and the per-game rule options of ``game new``
and ``event new``.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, TypeAlias

from relaybot.config import Config, ConfigError, redact_url, url_password

if TYPE_CHECKING:
    from relaybot.store.db import Store
    from relaybot.store.models import Member

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What each group's ``register(sub)`` adds its commands to."""


class CliError(Exception):
    """Shown as ``relaybot: <message>`` with exit status 2."""

    status = 2


class Unreachable(CliError):
    """A server (IMAP, SMTP, the database) could not be reached: exit status 3, so a cron
    job or a monitor can tell "try again later" from a mistake to fix."""

    status = 3


EXIT_OK, EXIT_ERROR, EXIT_UNREACHABLE = 0, 2, 3


def parse_now(text: str | None) -> datetime | None:
    """A ``--now`` value: ISO-8601, UTC when it names no zone; None when not given."""
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise CliError(
            f"--now: not an ISO-8601 time: {text!r} (e.g. 2026-11-22T09:00:00+09:00)"
        ) from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def now_option(parser: argparse.ArgumentParser) -> None:
    """``--now ISO-8601`` on a command that changes games or members (INTERFACE.md "Output
    for scripts"): the dates it records come from it."""
    parser.add_argument("--now", metavar="ISO-8601",
                        help="the clock for the dates this command records (default: now), "
                             "e.g. 2026-11-22T09:00:00+09:00; a time without a zone is UTC")


def now_of(args: argparse.Namespace) -> datetime:
    """The moment a command acts at: its ``--now``, else the system clock (UTC)."""
    return parse_now(getattr(args, "now", None)) or datetime.now(UTC)


def json_option(parser: argparse.ArgumentParser) -> None:
    """``--json`` on a list or show command (INTERFACE.md "Output for scripts")."""
    parser.add_argument("--json", action="store_true",
                        help="one JSON document on stdout (keys in English, dates ISO 8601), "
                             "for scripts")


def _jsonable(value: object) -> Any:
    """Dates and times as ISO 8601 text for ``json.dumps``."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    raise TypeError(f"not JSON: {type(value).__name__}")


def print_json(document: object) -> None:
    """``document`` as one JSON document on stdout: UTF-8 text as it is (names in Japanese
    stay readable), dates ISO 8601."""
    sys.stdout.write(json.dumps(document, ensure_ascii=False, indent=2, default=_jsonable)
                     + "\n")


def parse_date(text: str) -> date:
    """An argparse ``type``: a ``--start`` day, YYYY-MM-DD."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date YYYY-MM-DD: {text!r}") from None


def open_store(cfg: Config) -> Store:
    """The configured database, migrated to the current schema; exit 3 when unreachable."""
    # here, not at the top: SQLAlchemy and Alembic load only for a command that opens
    # the database, so ``relaybot --help`` starts at once (issue 29)
    from sqlalchemy.exc import NoSuchModuleError, OperationalError

    from relaybot.store.db import Store, migrate

    try:
        store = Store.open(cfg.database.url)
    except (ImportError, NoSuchModuleError):
        # a driver this machine lacks (postgresql+psycopg2://) or none SQLAlchemy knows of
        scheme = cfg.database.url.split("://", 1)[0]
        raise ConfigError(f"database.url: no database driver for {scheme} is installed; "
                          "relaybot ships postgresql+psycopg") from None
    try:
        migrate(store.engine)
    except OperationalError as exc:
        reason = (str(exc.orig).strip().splitlines() or ["cannot connect"])[0]
        if "@" in (url_password(cfg.database.url) or ""):
            # SQLAlchemy ends the password at its first "@": the rest became the host
            # the driver names in its message, so that message would show a piece of it
            reason = "cannot connect: the password holds an unencoded '@' (write it as %40)"
        raise Unreachable(f"database {redact_url(cfg.database.url)}: "
                          f"{redact_url(reason)}") from None
    return store


def rule_set_options(parser: argparse.ArgumentParser) -> None:
    """The per-game rules a league may change: the grace days and leave."""
    parser.add_argument("--grace", type=int, default=None,
                        help="days of grace after a move is received before the clock "
                             "runs: 1 or 2 (default: the game's rules, 1 in chess, 2 in the "
                             "shogi league)")
    parser.add_argument("--no-leave", action="store_true",
                        help="no leave in this game: the days keep counting (as in the "
                             "shogi league)")


def member_name(member: Member) -> str:
    """A member's name in a CLI line: family first without a comma (``Hayakawa Satoru``),
    and the Japanese-script name beside it where there is one (``Hayakawa Satoru
    (早川悟)``); the operator reads both."""
    name = member.name
    return f"{name.plain()} ({name.ja})" if name.ja else name.plain()
