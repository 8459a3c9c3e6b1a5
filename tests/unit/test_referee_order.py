"""The referee's checks run in a fixed order and the first that answers decides.

Each test sends a mail that more than one check would answer and pins which one does.
"""

from __future__ import annotations

from typing import Any

from relaybot.core.bounds import record_limit
from relaybot.core.referee import CHECKS, StoredGame, decide
from relaybot.games.chess.rules import ChessRules

RULES = ChessRules()


class Spy(ChessRules):
    """Chess that notes every position it loads and every move it parses."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def load(self, saved: str) -> Any:
        self.calls.append("load")
        return super().load(saved)

    def parse(self, position: object, token: str, letters: str = "en") -> str:
        self.calls.append(f"parse {token}")
        return super().parse(position, token, letters)


def stored(moves: str = "", *, active: bool = True,
           draw_offer_by: int | None = None) -> StoredGame:
    """A stored chess game after the given SAN moves."""
    board = RULES.start()
    plies: list[str] = []
    keys = []
    for token in moves.split():
        ply = RULES.parse(board, token)
        keys.append(RULES.ply_keys(board, ply))
        RULES.play(board, ply)
        plies.append(ply)
    return StoredGame(plies=tuple(plies), keys=tuple(keys), position=RULES.save(board),
                      active=active, draw_offer_by=draw_offer_by)


PROPOSALS = [f"if 1... {p} then 2. {a}" for p in ("a6", "b6", "c6", "d6", "e6", "f6", "g6", "h6")
             for a in ("Nf3", "Nc3", "d4", "d3", "c4", "c3", "a3")]  # more than the cap


def kind(game: StoredGame, sender: int, text: str) -> str:
    return decide(RULES, game, sender, text).kind


def long_record(plies: int) -> str:
    """A record of knights going back and forth, ``plies`` plies long."""
    moves = ["Nf3", "Nf6", "Ng1", "Ng8"]
    return " ".join((f"{i // 2 + 1}. " if i % 2 == 0 else "") + moves[i % 4]
                    for i in range(plies))


def test_a_finished_game_answers_game_over_whatever_the_mail_says() -> None:
    game = stored("e4 e5", active=False)
    proposals = "\n".join(PROPOSALS)
    for text in ("resign", "draw", "draw?", "help", "status", "1. d4 d5",
                 long_record(100), "1. e4 e5 2. Nf3\n" + proposals, "1. e4 e5 2. Ke3"):
        assert kind(game, 0, text) == "game_over", text


def test_a_resignation_stands_beside_a_record_that_disagrees() -> None:
    game = stored("e4 e5 Nf3")
    v = decide(RULES, game, 1, "1. d4 c5 2. Nf3 Qxf2\nresign")
    assert v.kind == "resign" and v.outcome is not None
    assert v.outcome.points(1) == 0 and not v.new_plies and v.diff_ply is None


def test_a_resignation_stands_beside_an_illegal_move_or_the_wrong_turn() -> None:
    game = stored("e4 e5")
    assert kind(game, 0, "1. e4 e5 2. Ke3\nresign") == "resign"
    assert kind(game, 1, "1. e4 e5 2. Nf3\nresign") == "resign"


def test_a_far_too_long_record_is_refused_before_any_move_is_read() -> None:
    spy = Spy()
    game = stored("e4")
    text = "1. d4 " + long_record(record_limit(1, 0) + 1)  # disagrees at once, and not 0's turn
    v = decide(spy, game, 0, text)
    assert v.kind == "too_long" and not v.applies
    assert spy.calls == []  # no board loaded, no move parsed


def test_too_many_proposals_are_refused_before_the_move_is_read() -> None:
    spy = Spy()
    v = decide(spy, stored(), 0, "1. Ke3\n" + "\n".join(PROPOSALS))  # an illegal move too
    assert v.kind == "too_many_conditionals"
    assert spy.calls == []


def test_a_resignation_beside_help_or_status_is_a_resignation() -> None:
    """The gate reads "help" + "resign" as a mail that acts: the referee must too."""
    game = stored("e4")
    assert kind(game, 1, "help\nresign") == "resign"
    assert kind(game, 1, "status\nresign") == "resign"
    assert kind(game, 1, "status") == "status"


def test_help_comes_first_alone_and_status_first_with_a_record() -> None:
    game = stored("e4")
    assert kind(game, 1, "help\nstatus") == "help"
    assert kind(game, 1, "1. e4\nhelp\nstatus") == "status"


def test_a_record_that_disagrees_is_answered_before_whose_turn_it_is() -> None:
    game = stored("e4")
    v = decide(RULES, game, 0, "1. d4 d5")
    assert (v.kind, v.diff_ply, v.diff_token) == ("sync_error", 0, "d4")


def test_the_wrong_turn_is_answered_before_the_move_is_read() -> None:
    spy = Spy()
    v = decide(spy, stored("e4"), 0, "1. e4 2. Ke3")
    assert v.kind == "not_your_turn"
    assert spy.calls == ["load"]  # nothing parsed


def test_accepting_a_standing_offer_draws_before_the_move_is_read() -> None:
    spy = Spy()
    game = stored("e4 e5", draw_offer_by=1)
    v = decide(spy, game, 0, "1. e4 e5 2. Ke3\ndraw")
    assert (v.kind, v.new_plies, v.penalty_days) == ("draw_agreed", [], 0)
    assert v.draw_offer_by is None and spy.calls == []


def test_a_mate_ends_the_game_whatever_draw_keyword_comes_with_it() -> None:
    game = stored("f3 e5 g4")
    for keyword in ("draw?", "draw"):
        v = decide(RULES, game, 1, f"1. f3 e5 2. g4 Qh4#\n{keyword}")
        assert v.kind == "move" and v.outcome is not None, keyword
        assert v.outcome.termination == "checkmate" and v.draw_offer_by is None
        assert "accept_without_offer" not in v.notes
    offered = stored("f3 e5 g4", draw_offer_by=0)  # but a standing offer accepted comes first
    assert kind(offered, 1, "1. f3 e5 2. g4 Qh4#\ndraw") == "draw_agreed"


def test_an_illegal_move_with_a_draw_offer_is_a_bad_move() -> None:
    v = decide(RULES, stored("e4 e5"), 0, "1. e4 e5 2. Ke3\ndraw?")
    assert v.kind == "bad_move" and v.penalty_days == 5 and v.draw_offer_by is None


def test_a_move_with_a_draw_offer_is_a_move_that_offers() -> None:
    v = decide(RULES, stored("e4"), 1, "1. e4 e5\ndraw?")
    assert (v.kind, v.new_plies, v.draw_offer_by) == ("move", ["e7e5"], 1)


def test_a_mail_with_no_new_move_and_a_td_question_is_an_aside() -> None:
    assert kind(stored("e4"), 1, "1. e4\ntd: may I take back e4?") == "aside"
    assert kind(stored("e4"), 1, "1. e4") == "no_move"


def test_the_order_of_the_chain() -> None:
    names = [check.__name__ for check in CHECKS]
    assert names[0] == "_game_over"
    assert names.index("_too_long") < names.index("_resign") < names.index("_out_of_sync")
    assert names.index("_out_of_sync") < names.index("_not_your_turn") < names.index("_bad_move")
    assert names.index("_move_ends_the_game") < names.index("_draw_offered")
    assert names.index("_move") < names.index("_aside")
    assert all(check.__doc__ for check in CHECKS)  # each names the rule it enforces
