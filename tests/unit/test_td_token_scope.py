"""A TD's game token covers only TD commands that act on that game (INTERFACE.md "Who may
act": a game token for that game's moves, keywords and TD commands; issue 12, G12).

The gate used to ask only whether the command line *mentioned* the token's game: a game
id written anywhere on the line (``approve leave 3 <game>``, ``answer 4 ... <game>``)
made a command that is not about that game act at once.
"""

from __future__ import annotations

import pytest

from relaybot.core.reading import read_mail
from relaybot.pipeline.identify import Grant
from relaybot.pipeline.td import command_at

MINE = "abc123"
OTHER = "zzz999"


def covers(grant: Grant, text: str, named: tuple[str, ...] = (MINE,)) -> bool:
    reading = read_mail(text, named=list(named), command_at=command_at)
    return grant.covers(reading.commands_only)


GAME_TOKEN = Grant(games=frozenset({MINE}))


@pytest.mark.parametrize("line", [
    f"forfeit {MINE} white",
    f"forfeit {MINE} 先手",
    f"没収 {MINE} 後手",
    f"adjudicate {MINE} 1/2-1/2",
    f"裁定 {MINE} 黒",
    f"result {MINE} 1-0",
    f"free {MINE}",
    f"ＦＯＲＦＥＩＴ {MINE} white",
])
def test_g12_a_game_token_covers_a_command_on_its_own_game(line: str) -> None:
    assert covers(GAME_TOKEN, line)


@pytest.mark.parametrize("line", [
    f"approve leave 3 {MINE}",
    f"refuse leave 3 {MINE}",
    f"休戦承認 3 {MINE}",
    f"answer 4 about {MINE}: yes",
    f"回答 4 {MINE}",
    f"withdraw a@example.org lost {MINE}",
    f"rest a@example.org {MINE}",
    f"points a@example.org 40 {MINE}",
    f"forfeit {OTHER} white {MINE}",
    f"forfeit {OTHER} {MINE}",
    f"adjudicate {OTHER} {MINE}",
    f"result {OTHER} 1-0 ({MINE})",
])
def test_g12_a_game_token_never_covers_a_command_on_anything_else(line: str) -> None:
    assert not covers(GAME_TOKEN, line)
    assert not covers(GAME_TOKEN, line, named=())


def test_g12_the_member_token_covers_every_command() -> None:
    member = Grant(member=True)
    assert covers(member, f"approve leave 3\nforfeit {OTHER} white", named=())
