"""The one reading of a mail, made with what the store knows (issue 22).

:func:`relaybot.core.reading.read_mail` is pure; this module gives it the store's part:
the games the mail names by address or subject tag (existing ones), the sender's active
games and their J17 labels, each game's rules and keywords, and the TD command reader.
The gate (``pipeline/receive.py``), the holds, the member's commands and the referee all
take the value made here; none reads the text again.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core.reading import Reading, read_mail
from relaybot.games import kinds, rules_for
from relaybot.mail.inbound import InboundMail, tagged_ids
from relaybot.pipeline.requests import active_games
from relaybot.pipeline.td import command_at
from relaybot.store.models import Game, Member


def named_games(session: Session, cfg: Config, mail: InboundMail) -> list[Game]:
    """The existing games the mail names by plus-address or subject tag, in that order."""
    return [g for gid in tagged_ids(mail, cfg.bot.address) if (g := session.get(Game, gid))]


def read(session: Session, cfg: Config, mail: InboundMail, member: Member | None,
         mine: list[Game] | None = None, also_named: list[str] | None = None) -> Reading:
    """Read ``mail`` once for ``member`` (None: a TD who does not play; only the command
    lines and the games named count then). ``mine``: the member's active games when the
    caller has them; ``also_named``: games the mail's thread is about when the mail names
    none itself (a reply to a confirmation request)."""
    if mine is None:
        mine = active_games(session, member)
    named = named_games(session, cfg, mail)
    if not named and also_named:
        named = [g for gid in also_named if (g := session.get(Game, gid))]
    games = {g.id: g for g in [*mine, *named]}
    played = sorted({g.kind for g in mine}) or kinds()
    words: dict[str, str] = {}
    for kind in sorted({g.kind for g in mine}):
        words.update(rules_for(kind).keywords)
    return read_mail(
        mail.text,
        named=[g.id for g in named],
        labels=labels(mine, named[0] if named else None),
        rules_of={gid: rules_for(g.kind) for gid, g in games.items()},
        any_rules=[rules_for(kind) for kind in played],
        game_words=words,
        command_at=command_at,
    )


def labels(mine: list[Game], named: Game | None) -> dict[str, str]:
    """J17 section labels: every active game's id, and A, B, ... for the games against the
    opponent of the game the mail names (in the order they were created)."""
    out = {g.id: g.id for g in mine}
    if named is not None:
        pair = {named.side0_id, named.side1_id}
        for g in mine:
            if {g.side0_id, g.side1_id} == pair and g.label:
                out[g.label] = g.id
    return out
