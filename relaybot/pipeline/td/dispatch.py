"""The TD's command lines found in a text and run (J19, D2): the one test of a command
line (:func:`command_at`), every command line of a text (:func:`find_commands`), running
them (:func:`run_commands`) and a TD's mail confirmed by mail (:func:`td_mail`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.pipeline.effects import Mail, emit, link_games, to_td
from relaybot.pipeline.td.base import COMMANDS, Command, Context, Done
from relaybot.store.models import Inbound

# The families of commands: each registers its commands as it loads, and they load here in
# the order ``td --help`` and NAMES_TEXT list them.
# isort: off
import relaybot.pipeline.td.results
import relaybot.pipeline.td.leave
import relaybot.pipeline.td.withdrawals
import relaybot.pipeline.td.go_salon
import relaybot.pipeline.td.questions  # noqa: F401
# isort: on

_NAMES = sorted(COMMANDS, key=len, reverse=True)  # "approve leave" before shorter names
COMMAND_RE = re.compile(
    r"^(?P<cmd>" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in _NAMES)
    + r")\b\s*(?P<args>.*)$", re.IGNORECASE)
NAMES_TEXT = ", ".join(dict.fromkeys(c.name for c in COMMANDS.values()))


@dataclass(frozen=True)
class CommandLine:
    """One command line found in a text: the command, its words, the text after it."""

    command: Command
    args: list[str]
    rest: str


def command_at(line: str) -> str | None:
    """The name of the command a line holds (NFKC; English or Japanese), else None: the
    one test of a command line, used by the mail's reading and by :func:`find_commands`."""
    m = COMMAND_RE.match(unicodedata.normalize("NFKC", line).strip())
    if m is None:
        return None
    return COMMANDS[" ".join(m.group("cmd").lower().split())].name


def command_game(line: str) -> str | None:
    """The one game a command line acts on as written (``forfeit <game> <side>``: the
    game's id, lower case), or None for a line that is no command, a command that is not
    about one game (leave, withdraw, answer, points) or one written with other words than
    its own (G12: what a game token may cover)."""
    m = COMMAND_RE.match(unicodedata.normalize("NFKC", line).strip())
    if m is None:
        return None
    cmd = COMMANDS[" ".join(m.group("cmd").lower().split())]
    args = m.group("args").split()
    if not cmd.game_first or not args:
        return None
    return args[0].strip().lower()


def find_commands(text: str) -> list[CommandLine]:
    """Every command line in ``text`` (NFKC; English or Japanese names), in order."""
    lines = text.splitlines()
    found = []
    for index, line in enumerate(lines):
        m = COMMAND_RE.match(unicodedata.normalize("NFKC", line).strip())
        if m is None:
            continue
        word = " ".join(m.group("cmd").lower().split())
        found.append(CommandLine(COMMANDS[word], m.group("args").split(),
                                 "\n".join(lines[index + 1:]).strip()))
    return found


def run_commands(session: Session, cfg: Config, text: str, now: datetime,
                 reply: Callable[[list[Done]], Mail] | None = None,
                 td: str | None = None) -> list[Done]:
    """Carry out every command in ``text`` as TD ``td``; ``answer`` takes the rest."""
    ctx = Context(session, cfg, now, td)
    done = []
    for line in find_commands(text):
        done.append(line.command.run(ctx, line.args, line.rest))
        if line.command.takes_rest:
            break
    if reply is not None and done:
        emit(session, cfg, reply(done), now)
    return done


def td_mail(session: Session, cfg: Config, text: str, message_id: str, references: list[str],
            now: datetime, inbound: Inbound | None = None, td: str | None = None) -> str:
    """Carry out every command in an authenticated mail from TD ``td`` (default ``[bot]
    td``) and confirm them to that TD by mail; the mail and the confirmation go in the
    export of every game the commands acted on (J19)."""
    td = (td or cfg.bot.td).strip().lower()

    def confirm(done: list[Done]) -> Mail:
        games = tuple(gid for d in done for gid in d.games)
        if inbound is not None:
            link_games(session, games, inbound.game_id, inbound=inbound)
        return Mail(kind="td_confirm", template="confirm", audience="td", to=to_td(cfg, td),
                    lang=cfg.bot.language, context={"outcomes": done},
                    in_reply_to=message_id, references=(*references, message_id),
                    auto_submitted="auto-replied", about=games)

    return ("td_command" if run_commands(session, cfg, text, now, confirm, td)
            else "td_no_command")
