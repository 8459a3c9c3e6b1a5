"""The mails a player's mail causes, as effects: the relay to the opponent (J18), the
answer to the sender (ack, status, help) and the one polite error reply (J1, J5).

Built here from the referee's verdict and the game; rendered and queued only by the
effects stage.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.gamefile import GameFile
from relaybot.club.views import game_context
from relaybot.config import Config
from relaybot.core.bounds import MAX_CONDITIONALS, MAX_SECTIONS
from relaybot.core.conditionals import Conditional, format_conditional
from relaybot.core.game import moves_in, progress_of, replay_from
from relaybot.core.referee import Verdict
from relaybot.mail.inbound import InboundMail
from relaybot.mail.wording import move_error_text
from relaybot.pipeline.effects import Mail, to_member
from relaybot.pipeline.lifecycle import player_mail, thread_of
from relaybot.store.models import Game, Member


def ply_text(gf: GameFile, reader: Member, index: int) -> str:
    """One stored ply in the reader's notation (J3)."""
    notation, letters = gf.notation_for(reader)
    move = gf.moves[index]
    return moves_in(gf.rules, gf.rules.stored_move_text(move.canon, move.text, notation,
                                                        letters), reader.lang)


def new_moves(gf: GameFile, reader: Member, count: int, shown: int | None = None) -> str:
    """The newest ``count`` plies as ``12... Nf6 13. Nf3`` in the reader's notation (J3);
    only the first ``shown`` of them when given (the sender's own, without the bound
    answer the bot played after them, J16)."""
    first = len(gf.moves) - count
    out = []
    for index in range(first, first + (count if shown is None else shown)):
        text = ply_text(gf, reader, index)
        out.append(gf.rules.move_label(index, text) if index % 2 == 0 or index == first
                   else text)
    return " ".join(out)


def written_count(verdict: Verdict) -> int:
    """The new plies the sender wrote: all but the bound answer the bot played after their
    last one (J16; a reply that stops right after the predicted move)."""
    count = len(verdict.new_plies)
    while count and count <= len(verdict.auto) and verdict.auto[count - 1]:
        count -= 1
    return count


def auto_moves(gf: GameFile, reader: Member, verdict: Verdict) -> list[str]:
    """The bound answers the bot played (J16), in the reader's notation."""
    first = len(gf.moves) - len(verdict.new_plies)
    return [gf.rules.move_label(first + offset, ply_text(gf, reader, first + offset))
            for offset, auto in enumerate(verdict.auto) if auto]


def proposals(gf: GameFile, reader: Member) -> list[str]:
    """The pending proposals as the reader writes moves (JCCA shows them to both)."""
    if not gf.game.proposals:
        return []
    notation, letters = gf.notation_for(reader)
    board = gf.rules.load(gf.game.position)
    return [moves_in(gf.rules, format_conditional(gf.rules, board, Conditional(plies=tuple(line)),
                                                  notation, letters, reader.lang), reader.lang)
            for line in gf.game.proposals]


def own_words(gf: GameFile, text: str, verdict: Verdict) -> str:
    """The sender's own words: everything but the record, proposals and keyword lines (J18)."""
    record = verdict.record
    skip = set(verdict.intent.keyword_lines) | gf.rules.proposal_lines(text)
    if record.first_line >= 0:
        skip.update(range(record.first_line, record.last_line + 1))
    lines = [line for i, line in enumerate(text.splitlines()) if i not in skip]
    return quote_block("\n".join(lines).strip()[:4000])


def quote_block(words: str) -> str:
    """A player's words as the opponent reads them: every line behind "> ", so that no
    line of theirs can pass for the bot's own text (a fake "Game over" or a fake
    instruction inside a relayed mail, issue 12)."""
    if not words:
        return ""
    return "\n".join(("> " + line).rstrip() for line in words.splitlines())


def forward(cfg: Config, gf: GameFile, colour: int, kind: str,
            extra: dict[str, object]) -> Mail:
    """The mail to the opponent (side ``colour``): the move, the record, the board (J18).

    It follows up the game's last relayed mail, and becomes the one later reminders answer.
    """
    in_reply_to, refs = thread_of(gf.game, None)
    return player_mail(cfg, gf, colour, kind, extra, in_reply_to=in_reply_to,
                       references=refs, defer=True, threads_game=True)


def reply(cfg: Config, gf: GameFile, colour: int, mail: InboundMail, kind: str, *,
          verdict: Verdict | None = None, extra: dict[str, object] | None = None,
          defer: bool = False) -> Mail:
    """An answer to the sender's mail (ack, status, help), threaded under it."""
    ctx: dict[str, object] = dict(extra or {})
    if verdict is not None:
        ctx.setdefault("notes", verdict.notes)
    in_reply_to, refs = thread_of(gf.game, mail)
    return player_mail(cfg, gf, colour, kind, ctx, in_reply_to=in_reply_to, references=refs,
                       auto_submitted="auto-replied", defer=defer)


def error(
    session: Session, cfg: Config, member: Member, mail: InboundMail, kind: str, *,
    game: GameFile | None, verdict: Verdict | None = None,
    extra: dict[str, Any] | None = None,
) -> Mail:
    """One polite reply in the member's language saying what was wrong (J5, J1), capped
    per address and day (G7); ``extra``: what the reason's own words need."""
    ctx: dict[str, Any] = {"kind": kind, "reader": member.name, "notes": [],
                           "subject": mail.subject, "caps": _caps(game, verdict),
                           **(extra or {})}
    if game is not None:
        ctx.update(game_context(cfg, game, member))
    if verdict is not None:
        ctx.update(_verdict_context(game, member, verdict))
    if game is None:
        active = session.scalars(select(Game).where(
            Game.status == "active",
            (Game.side0_id == member.id) | (Game.side1_id == member.id))).all()
        ctx["games"] = [{"id": g.id, "address": cfg.bot.game_address(g.id)} for g in active]
    gid = game.game.id if game else None
    return Mail(kind=f"error_{kind}", template="error", audience="player",
                to=to_member(member), lang=member.lang, context=ctx, game_id=gid,
                via_game=gid is not None, in_reply_to=mail.message_id,
                references=(*mail.references, mail.message_id), auto_submitted="auto-replied",
                capped=True)


def _caps(game: GameFile | None, verdict: Verdict | None) -> dict[str, int]:
    """The per-mail caps a refusal names (issue 12 item 10); a record's length and the
    game's in moves as the game's players count them (chess: 60 moves, not 120 plies)."""
    written = len(verdict.record.tokens) if verdict is not None else 0
    played = len(game.plies) if game is not None else 0
    if game is not None:
        written, played = (progress_of(game.rules, n).move for n in (written, played))
    return {"conditionals": MAX_CONDITIONALS, "sections": MAX_SECTIONS,
            "written": written, "played": played}


def _verdict_context(game: GameFile | None, member: Member, verdict: Verdict) -> dict[str, Any]:
    """What went wrong, for the error template: the bad token, the first difference (J1)."""
    ctx: dict[str, Any] = {"notes": verdict.notes}
    if verdict.error is not None:
        # why, in the reader's language (a game's reason value, core.reasons)
        ctx.update(error_kind=verdict.error.kind, error_token=verdict.error.token,
                   error_detail=move_error_text(verdict.error, member.lang),
                   penalty_days=verdict.penalty_days,
                   candidates=list(verdict.error.candidates))
    if verdict.diff_ply is not None and game is not None:
        notation, letters = game.notation_for(member)
        plies = game.plies
        ctx["expected"] = ""
        if verdict.diff_ply < len(plies):
            before = replay_from(game.rules, game.game.position, plies[: verdict.diff_ply])
            ctx["expected"] = moves_in(game.rules, game.rules.move_label(
                verdict.diff_ply, game.rules.format_ply(before, plies[verdict.diff_ply],
                                                        notation, letters)), member.lang)
        ctx["diff_number"] = game.rules.move_number(verdict.diff_ply, member.lang)
        ctx["diff_token"] = verdict.diff_token or ""
        if "unnumbered" in verdict.notes:  # the line to write: the move with its number
            ctx["numbered_example"] = game.rules.move_label(verdict.diff_ply,
                                                            verdict.diff_token or "")
        if verdict.written_side is not None:  # J1: the colour written, the one it is
            sides = game.rules.side_names(member.lang)
            ctx["written_colour"] = sides[verdict.written_side]
            ctx["right_colour"] = sides[1 - verdict.written_side]
            # the line to write: the record's own move, else the move with its number alone
            ctx["numbered_example"] = ctx["expected"] or moves_in(
                game.rules, game.rules.move_label(verdict.diff_ply, verdict.diff_token or ""),
                member.lang)
    # J1: the other move the mail names for the same ply ("two_moves")
    ctx["other_token"] = verdict.other_token or ""
    # no move found: the line where a move stood among words, quoted back
    ctx["unread_line"] = verdict.unread_line or ""
    # J1: a fragment from a later move: where it starts, as the game numbers moves
    ctx["starts_at"] = (game.rules.move_number(verdict.starts_at, member.lang)
                        if verdict.starts_at and game is not None else "")
    if verdict.kind == "contradiction":
        ctx.update(expected=verdict.expected or "", diff_token=verdict.diff_token or "",
                   penalty_days=verdict.penalty_days)
    return ctx
