"""``--json`` results in the TD's words (INTERFACE.md "Output for scripts"), and the colour
of each side as ``game new`` names it."""

from __future__ import annotations

import pytest

from relaybot.cli.documents import colours, result_word
from relaybot.store.models import Game


def _game(kind: str, result: str | None, status: str = "finished",
          termination: str = "adjudication") -> Game:
    return Game(id="abc123", kind=kind, status=status, result=result, termination=termination)


@pytest.mark.parametrize(("kind", "stored", "word"), [
    ("chess", "1-0", "1-0"), ("chess", "1/2-1/2", "1/2-1/2"), ("chess", "*", None),
    ("shogi", "1-0", "sente"), ("shogi", "0-1", "gote"), ("shogi", "1/2-1/2", "draw"),
    ("shogi", "0-0", "both-lose"), ("go", "B+3.5", "B+3.5"), ("go", "W+R", "W+R"),
    ("go", "jigo", "jigo"), ("go", "Void", "void"),
])
def test_a_finished_game_s_result_in_the_td_s_words(kind: str, stored: str,
                                                     word: str | None) -> None:
    assert result_word(_game(kind, stored)) == word


def test_r4_a_void_go_game_says_void_as_the_td_wrote_it() -> None:
    """Seed 004 section 2 勝負なし: ``td adjudicate ID void`` finishes a go game that counts
    for nothing; ``game list --json`` gives the TD's word, not the null of a game that is
    still played."""
    assert result_word(_game("go", "Void")) == "void"
    assert result_word(_game("go", "void")) == "void"
    assert result_word(_game("go", "Void", status="active")) is None


def test_no_result_while_the_game_is_played() -> None:
    assert result_word(_game("chess", None, status="active", termination="")) is None


def test_side_0_is_the_colour_that_moves_first() -> None:
    assert colours(_game("chess", None)) == ("white", "black")
    assert colours(_game("shogi", None)) == ("black", "white")  # black is 先手
    assert colours(_game("go", None)) == ("black", "white")
