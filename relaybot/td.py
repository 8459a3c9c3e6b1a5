"""The TD's commands, by mail from the TD address or by the CLI (J9, J12-J14, J20, D2).

Each command is one line; ``answer N`` takes the rest of the mail as the answer.
Results are values (``Done`` / ``Refused``) so the mail path and the CLI report
them the same way.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core.game import Outcome as GameOutcome
from relaybot.core.game import Termination
from relaybot.games import rules_for
from relaybot.mail.render import render
from relaybot.outbox import Recipient, queue_mail
from relaybot.store.models import Game, Leave, Member, Question

COMMAND_RE = re.compile(
    r"^(?P<cmd>forfeit|没収|adjudicate|裁定|approve\s+leave|休戦承認|refuse\s+leave|休戦却下|"
    r"withdraw|棄権|answer|回答)\b\s*(?P<args>.*)$",
    re.IGNORECASE,
)
CANON = {"没収": "forfeit", "裁定": "adjudicate", "休戦承認": "approve leave",
         "休戦却下": "refuse leave", "棄権": "withdraw", "回答": "answer"}


@dataclass(frozen=True)
class Outcome:
    """What one command did (``ok``) or why it did nothing."""

    command: str
    ok: bool
    message: str


def find_commands(text: str) -> list[tuple[str, list[str], str]]:
    """(command, arguments, rest of the text after the line) for each command line."""
    lines = text.splitlines()
    found = []
    for index, line in enumerate(lines):
        clean = unicodedata.normalize("NFKC", line).strip()
        m = COMMAND_RE.match(clean)
        if m is None:
            continue
        cmd = " ".join(m.group("cmd").lower().split())
        cmd = CANON.get(cmd, cmd)
        rest = "\n".join(lines[index + 1:]).strip()
        found.append((cmd, m.group("args").split(), rest))
    return found


def _game(session: Session, gid: str) -> Game | None:
    return session.get(Game, gid.strip().lower())


def run_command(session: Session, cfg: Config, cmd: str, args: list[str], rest: str,
                now: datetime) -> Outcome:
    """Carry out one TD command."""
    from relaybot.service import end_game, load_game

    today = now.astimezone(ZoneInfo(cfg.bot.timezone)).date()
    if cmd in ("forfeit", "adjudicate"):
        if len(args) != 2:
            return Outcome(cmd, False, f"usage: {cmd} <game> "
                           + ("<white|black>" if cmd == "forfeit" else "<1-0|0-1|1/2-1/2>"))
        game = _game(session, args[0])
        if game is None:
            return Outcome(cmd, False, f"no game {args[0]}")
        if game.status != "active":
            return Outcome(cmd, False, f"game {game.id} has already ended ({game.result})")
        rules = rules_for(game.kind)
        outcome: GameOutcome | None
        if cmd == "forfeit":
            colour = rules.side_of(args[1])
            if colour is None:
                names = " or ".join(rules.side_names("en")).lower()
                return Outcome(cmd, False, f"colour must be {names}, not {args[1]}")
            outcome = GameOutcome.loss(Termination.FORFEIT, colour)
        else:
            outcome = rules.parse_result(args[1], Termination.ADJUDICATION)
            if outcome is None or outcome.void or outcome.both_lose:
                return Outcome(cmd, False, f"result must be 1-0, 0-1 or 1/2-1/2, not {args[1]}")
        gf = load_game(session, game, now)
        end_game(session, cfg, gf, outcome, today, now)
        return Outcome(cmd, True, f"game {game.id}: {rules.format_result(outcome)} "
                                  f"({outcome.termination})")
    if cmd in ("approve leave", "refuse leave"):
        if len(args) < 1 or not args[0].isdigit():
            return Outcome(cmd, False, f"usage: {cmd} <leave number>")
        leave = session.get(Leave, int(args[0]))
        if leave is None or leave.status != "pending":
            return Outcome(cmd, False, f"no leave request {args[0]} waiting for approval")
        member = session.get(Member, leave.member_id)
        assert member is not None
        if cmd == "refuse leave":
            leave.status = "refused"
            return Outcome(cmd, True, f"leave {leave.id} of {member.name} refused")
        leave.status = "active"
        leave.extra_days = (leave.last - leave.first).days + 1
        from relaybot.requests import announce_leave

        announce_leave(session, cfg, member, leave, now)
        return Outcome(cmd, True, f"leave {leave.id} of {member.name} approved "
                       f"({leave.first} - {leave.last})")
    if cmd == "withdraw":
        return _withdraw(session, cfg, args, today, now)
    if cmd == "answer":
        if not args or not args[0].isdigit():
            return Outcome(cmd, False, "usage: answer <question number>, then the answer")
        question = session.get(Question, int(args[0]))
        if question is None or question.answered_at is not None:
            return Outcome(cmd, False, f"no open question {args[0]}")
        answer = " ".join(args[1:]) + ("\n" + rest if rest else "")
        question.answered_at = now
        question.answer = answer.strip()[:8000]
        game = session.get(Game, question.game_id)
        assert game is not None
        gf = load_game(session, game, now)
        asker = gf.player(question.colour)
        subject, body = render(asker.lang, "player", "answer", reader=asker.name,
                               game_id=game.id, question=question.text, answer=question.answer)
        queue_mail(session, cfg, kind="answer", to=Recipient(asker.name, asker.email, asker.id),
                   subject=subject, body=body, now=now, game_id=game.id,
                   dedupe_key=f"answer:{question.id}")
        from relaybot.service import refresh_due

        refresh_due(session, gf, now)
        return Outcome(cmd, True, f"answer to question {question.id} sent to {asker.name}")
    return Outcome(cmd, False, f"unknown command {cmd}")


def _withdraw(session: Session, cfg: Config, args: list[str], today: date,
              now: datetime) -> Outcome:
    """J20: the TD decides all of a withdrawing player's games: lost, void or suspended."""
    from relaybot.service import end_game, load_game

    if len(args) != 2 or args[1].lower() not in ("lost", "void", "suspended"):
        return Outcome("withdraw", False, "usage: withdraw <member address> <lost|void|suspended>")
    member = session.scalar(select(Member).where(Member.email == args[0].lower()))
    if member is None:
        return Outcome("withdraw", False, f"no member {args[0]}")
    how = args[1].lower()
    games = list(session.scalars(select(Game).where(
        Game.status == "active",
        (Game.side0_id == member.id) | (Game.side1_id == member.id))))
    for game in games:
        if how == "suspended":
            game.status = "suspended"
            game.due_at = None
            continue
        gf = load_game(session, game, now)
        colour = 0 if game.side0_id == member.id else 1
        outcome = (GameOutcome.loss(Termination.WITHDRAWAL_LOST, colour) if how == "lost"
                   else GameOutcome(Termination.WITHDRAWAL_VOID, void=True))
        end_game(session, cfg, gf, outcome, today, now)
    return Outcome("withdraw", True, f"{member.name}: {len(games)} game(s) {how}")


def td_mail(session: Session, cfg: Config, text: str, message_id: str, references: list[str],
            now: datetime) -> str:
    """Carry out every command in a mail from the TD and confirm by mail."""
    commands = find_commands(text)
    if not commands:
        return "td_no_command"
    outcomes = []
    for cmd, args, rest in commands:
        outcomes.append(run_command(session, cfg, cmd, args, rest, now))
        if cmd == "answer":
            break  # the rest of the mail is the answer
    subject, body = render(cfg.bot.language, "td", "confirm", outcomes=outcomes)
    queue_mail(session, cfg, kind="td_confirm", to=Recipient("TD", cfg.bot.td), subject=subject,
               body=body, now=now, in_reply_to=message_id, references=[*references, message_id],
               auto_submitted="auto-replied")
    return "td_command"
