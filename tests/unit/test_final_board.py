"""A finished game's board as text says nobody is to move (mail, web page, ``game
show``): each game's ``final_board_text``, reached through ``core.game.board_in``."""

from __future__ import annotations

import pytest

from relaybot.core.game import board_in
from relaybot.games import rules_for


@pytest.mark.parametrize(("kind", "turn_words"), [
    ("chess", ("White to move", "Black to move", "白番", "黒番")),
    ("shogi", ("to move", "先手番", "後手番")),
    ("go", ("to move", "の番")),
])
@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewer", [0, 1])
def test_a_finished_games_board_names_no_side_to_move(kind: str, turn_words: tuple[str, ...],
                                                      lang: str, viewer: int) -> None:
    rules = rules_for(kind)
    position = rules.start()
    live = board_in(rules, position, lang, viewer)
    final = board_in(rules, position, lang, viewer, over=True)
    assert any(word in live for word in turn_words)
    assert not any(word in final for word in turn_words), final
    # the same board, from the same side: only the last line (whose turn) differs
    # (chess and go drop it; shogi keeps the move count there)
    kept = final.splitlines()[:-1] if kind == "shogi" else final.splitlines()
    assert kept == live.splitlines()[:-1]


def test_a_finished_shogi_board_keeps_the_move_count() -> None:
    rules = rules_for("shogi")
    position = rules.start()
    assert board_in(rules, position, "ja", over=True).splitlines()[-1] == "手数＝0"
    assert board_in(rules, position, "en", over=True).splitlines()[-1] == "0 moves played"
    # Gote's seat: the board turned round, finished or not
    assert board_in(rules, position, "ja", 1, over=True).splitlines()[:12] == \
        board_in(rules, position, "ja", 1).splitlines()[:12]
