"""The referee's verdicts on one mail (J1, J2, J5, J15), pure and fast."""

from __future__ import annotations

import pytest

from relaybot.core.referee import PENALTY_DAYS, StoredGame, Verdict, decide
from relaybot.games.chess import RULES


def result(v: Verdict) -> str | None:
    """The verdict's outcome as chess writes it (``1-0``), None while the game goes on."""
    return RULES.format_result(v.outcome) if v.outcome is not None else None


def termination(v: Verdict) -> str | None:
    return v.outcome.termination if v.outcome is not None else None

def stored(moves: str = "") -> StoredGame:
    """A stored game after the given SAN moves, keys as the store keeps them."""
    board = RULES.start()
    plies: list[str] = []
    keys = []
    for token in moves.split():
        ply = RULES.parse(board, token)
        keys.append(RULES.ply_keys(board, ply))
        RULES.play(board, ply)
        plies.append(ply)
    return StoredGame(plies=tuple(plies), keys=tuple(keys), position=RULES.save(board))


def mail(game: StoredGame, sender: int, text: str) -> Verdict:
    return decide(RULES, game, sender, text)


def test_first_move_applied() -> None:
    v = mail(stored(), 0, "Hello!\n\n1. e4\n\nRegards")
    assert v.kind == "move"
    assert v.new_plies == ["e2e4"]
    assert v.new_texts == ["e4"]


def test_j1_whole_game_compared_sync_error_marks_first_differing_ply() -> None:
    game = stored("e4 e5 Nf3 Nc6")
    v = mail(game, 0, "1. e4 e5 2. Nf3 Nf6 3. Bb5")
    assert v.kind == "sync_error"
    assert v.diff_ply == 3
    assert v.diff_token == "Nf6"
    assert not v.new_plies and not v.applies


def test_j1_short_record_is_a_sync_error() -> None:
    game = stored("e4 e5 Nf3 Nc6")
    v = mail(game, 0, "2. Bb5")
    assert v.kind == "sync_error"


def test_j1_earlier_moves_in_other_notations_agree() -> None:
    game = stored("e4 e5 Nf3 Nc6")
    v = mail(game, 0, "1. e2-e4 5755 2. Ng1f3 Nb8-c6 3. Bb5")
    assert v.kind == "move"
    assert v.new_plies == ["f1b5"]


def test_j2_localised_letters_in_the_record_fall_back_to_parsing() -> None:
    game = stored("e4 e5 Nf3 Nc6")
    v = decide(RULES, game, 0, "1. e4 e5 2. Sf3 Sc6 3. Lb5", letters="de")
    assert v.kind == "move"
    assert v.new_plies == ["f1b5"]


def test_j5_illegal_move_costs_five_days_and_applies_nothing() -> None:
    game = stored("e4 e5")
    v = mail(game, 0, "1. e4 e5 2. Ke3")
    assert v.kind == "bad_move"
    assert v.error is not None and v.error.kind == "illegal"
    assert v.penalty_days == PENALTY_DAYS == 5
    assert not v.new_plies


def test_j4_ambiguous_move_is_refused() -> None:
    game = stored("Nf3 Nf6 d4 d5 Nbd2 Nbd7 e3 e6")
    v = mail(game, 0, "1. Nf3 Nf6 2. d4 d5 3. Nbd2 Nbd7 4. e3 e6 5. Nb3")
    assert v.kind == "move"  # only the d2 knight reaches b3
    game = stored("Nf3 Nf6 d3 d6")
    v = mail(game, 0, "1. Nf3 Nf6 2. d3 d6 3. Nd2")  # Nb1 and Nf3 both reach d2
    assert v.kind == "bad_move" and v.error is not None and v.error.kind == "ambiguous"


def test_not_your_turn() -> None:
    v = mail(stored("e4"), 0, "1. e4 e5")
    assert v.kind == "not_your_turn"


def test_one_new_move_at_a_time() -> None:
    v = mail(stored("e4"), 1, "1. e4 e5 2. Nf3 Nc6")
    assert v.kind == "too_many_moves"


def test_no_new_move() -> None:
    v = mail(stored("e4"), 1, "1. e4")
    assert v.kind == "no_move"


def test_resign_any_time() -> None:
    v = mail(stored("e4 e5"), 1, "投了します")
    assert (v.kind, result(v), termination(v)) == ("resign", "1-0", "resignation")
    v = mail(stored("e4 e5"), 0, "resign")
    assert result(v) == "0-1"


def test_draw_offer_with_move_then_accept() -> None:
    v = mail(stored("e4"), 1, "1. e4 e5\ndraw?")
    assert v.kind == "move" and v.draw_offer_by == 1
    game = StoredGame(
        plies=(*stored("e4 e5").plies,),
        keys=stored("e4 e5").keys,
        position=stored("e4 e5").position,
        draw_offer_by=1,
    )
    v = mail(game, 0, "ドロー")
    assert (v.kind, result(v), termination(v)) == ("draw_agreed", "1/2-1/2", "agreement")


def test_draw_declined_by_playing_on() -> None:
    base = stored("e4 e5")
    game = StoredGame(plies=base.plies, keys=base.keys, position=base.position, draw_offer_by=1)
    v = mail(game, 0, "1. e4 e5 2. Nf3")
    assert v.kind == "move" and v.draw_declined and v.draw_offer_by is None


def test_an_offer_without_a_move_lapses_with_the_offerers_next_move() -> None:
    """J15: White offers a draw without moving (the draw offer mail tells Black it lapses
    with White's next move); White's move then ends it, not as Black's refusal."""
    base = stored("e4 e5")
    game = StoredGame(plies=base.plies, keys=base.keys, position=base.position, draw_offer_by=0)
    v = mail(game, 0, "1. e4 e5 2. Nf3")
    assert v.kind == "move" and v.draw_offer_by is None and not v.draw_declined


def test_threefold_claim_with_draw_keyword() -> None:
    game = stored("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8")
    v = mail(game, 0, "draw")
    assert (v.kind, termination(v)) == ("draw_claimed", "threefold")


def test_draw_without_offer_or_claim_becomes_an_offer() -> None:
    v = mail(stored("e4 e5"), 0, "draw")
    assert v.kind == "draw_offer" and v.draw_offer_by == 0
    assert "accept_without_offer" in v.notes


def test_checkmate_ends_the_game() -> None:
    game = stored("f3 e5 g4")
    v = mail(game, 1, "1. f3 e5 2. g4 Qh4#")
    assert (v.kind, result(v), termination(v)) == ("move", "0-1", "checkmate")


def test_j2_fullwidth_is_read_and_noted() -> None:
    v = mail(stored(), 0, "１．ｅ４")
    assert v.kind == "move" and v.new_plies == ["e2e4"]
    assert "fullwidth" in v.notes


def test_finished_game_refuses() -> None:
    base = stored("e4")
    game = StoredGame(plies=base.plies, keys=base.keys, position=base.position, active=False)
    assert mail(game, 1, "1. e4 e5").kind == "game_over"


def test_greeting_words_are_not_moves() -> None:
    v = mail(stored("e4"), 1, "Thanks for the game, good luck!\n\n1. e4 c5\n\nBest wishes\nBob")
    assert v.kind == "move" and v.new_plies == ["c7c5"]


def test_j3_a_non_standard_numeric_form_is_accepted_and_named() -> None:
    """J3 (seed 000): 「5758(1)」 or 「5751」 are accepted when unambiguous, and the reply
    says they are not the standard form (57581)."""
    game = stored("e4 d5 exd5 c6 dxc6 Nf6 cxb7 Nbd7")
    for written in ("2738(2)", "2738=2", "2732"):  # bxc8=R, the standard being 27382
        v = mail(game, 0, f"1. e4 d5 2. exd5 c6 3. dxc6 Nf6 4. cxb7 Nbd7 5. {written}")
        assert v.kind == "move", (written, v.kind, v.error)
        assert v.new_plies == ["b7c8r"]
        assert v.nonstandard == [(written, "27382")] and "nonstandard" in v.notes
    standard = mail(game, 0, "1. e4 d5 2. exd5 c6 3. dxc6 Nf6 4. cxb7 Nbd7 5. 27382")
    assert standard.kind == "move" and standard.nonstandard == []


def test_j1_the_last_moves_written_first_then_the_whole_game() -> None:
    """J1/J2 (seed 000's own example writes 「A局 3. Bc4 Nf6」 before the game): the block
    that starts at move 1 is the record, not the first move-looking line."""
    game = stored("e4 e5 Nf3 Nc6 Bc4")
    v = mail(game, 1, "3... Nf6\n\nThe game so far:\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6\n")
    assert v.kind == "move" and v.new_texts == ["Nf6"]


def test_j1_a_fragment_from_a_later_move_is_named_as_such() -> None:
    """J1: only the last moves sent: the reply says the mail starts at move 3."""
    game = stored("e4 e5 Nf3 Nc6 Bc4")
    v = mail(game, 1, "Hello\n\n3. Bc4 Nf6\n")
    assert v.kind == "sync_error" and v.starts_at == 4  # ply 4: White's 3rd move
    whole = mail(game, 1, "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6")
    assert whole.kind == "move" and whole.starts_at is None


def test_j2_move_numbers_without_dots_play_the_move() -> None:
    """J2: a whole game written ``1 e4 e5 2 Nf3 ...`` (English books' numbering) is the
    whole game; the same with a Japanese full stop after the new move."""
    game = stored("e4 e5 Nf3 Nc6 Bc4 Bc5")
    v = mail(game, 0, "1 e4 e5 2 Nf3 Nc6 3 Bc4 Bc5 4 c3")
    assert v.kind == "move" and v.new_plies == ["c2c3"]
    v = mail(game, 0, "1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.c3。\nよろしくお願いします。")
    assert v.kind == "move" and v.new_plies == ["c2c3"]
    fragment = mail(game, 0, "4 c3")  # J1: from move 1, and the reply says where it began
    assert fragment.kind == "sync_error" and fragment.starts_at == 6


def test_j1_a_corrected_move_below_the_record_is_refused_naming_both() -> None:
    """J1: a mail that names two different moves for the new ply ("Sorry, I meant" and
    the record again) was played with the first and the second ignored; the bot cannot
    tell which the player means, so nothing is applied and the reply names both."""
    game = stored("e4 e5 Nf3 Nc6 Bc4 Bc5")
    for text in ("1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.c3\n\nSorry, I meant:\n\n"
                 "1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.d4",
                 "1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.c3\n\nSorry, I meant:\n4.d4"):
        v = mail(game, 0, text)
        assert v.kind == "sync_error" and "two_moves" in v.notes, text
        assert (v.diff_ply, v.diff_token, v.other_token) == (6, "c3", "d4")
        assert not v.new_plies and not v.applies


@pytest.mark.parametrize("after", [
    "Our other game:\n1.d4 d5 2.c4 e6 3.Nc3 Nf6 4.Bg5",  # another game's record
    "That is:\n4.Pc2-c3",  # the same move again, spelt otherwise
    "I expect\n4...Nf6 5.d4",  # a line that only goes further
    "Tel\n090 1234 5678",
])
def test_j1_text_after_the_record_that_names_no_other_move_is_no_second_move(
        after: str) -> None:
    """J1: what follows the record counts only when it names another move for the new
    ply of this game; the move is played otherwise."""
    v = mail(stored("e4 e5 Nf3 Nc6 Bc4 Bc5"), 0,
             f"1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.c3\n\n{after}")
    assert v.kind == "move" and v.new_plies == ["c2c3"]


def test_j1_a_new_move_above_a_whole_record_that_ends_otherwise_is_not_played() -> None:
    """J1, the postal habit (new move first, the whole game below): when the two differ,
    the whole record's move was played silently; now nothing is applied."""
    from relaybot.core.reading import read_mail

    text = "4.d4\n\n1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.c3"
    (part,) = read_mail(text, named=["g"], rules_of={"g": RULES}).parts
    v = decide(RULES, stored("e4 e5 Nf3 Nc6 Bc4 Bc5"), 0, part.text, intent=part.intent)
    assert v.kind == "sync_error" and "two_moves" in v.notes and not v.new_plies
    assert (v.diff_token, v.other_token) == ("c3", "d4")
    agreeing = "4.c3\n\n1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.c3"
    (part,) = read_mail(agreeing, named=["g"], rules_of={"g": RULES}).parts
    v = decide(RULES, stored("e4 e5 Nf3 Nc6 Bc4 Bc5"), 0, part.text, intent=part.intent)
    assert v.kind == "move" and v.new_plies == ["c2c3"]


def test_j1_the_whole_game_pasted_twice_is_one_record() -> None:
    """J1: a record from move 1 below another (the game pasted twice, a blank line
    between) is a second record, not more moves of the first: the same game twice is
    the move, where it was refused as too many moves."""
    record = "1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.c3"
    v = mail(stored("e4 e5 Nf3 Nc6 Bc4 Bc5"), 0, f"{record}\n\n{record}")
    assert v.kind == "move" and v.new_plies == ["c2c3"]
    v = mail(stored("e4 e5 Nf3 Nc6 Bc4 Bc5"), 0, f"{record}\n\n{record[:-2]}d4")
    assert v.kind == "sync_error" and "two_moves" in v.notes


def test_j16_a_proposal_the_bot_cannot_read_is_named_not_silently_dropped() -> None:
    """A line that speaks of a conditional move in a form the bot does not read (予想手:,
    the seed's 「X には Y なら Z とする」) binds nobody and plays nothing; the verdict names
    it so the sender's receipt can say so. A proposal read, and a mail with no word of
    one, name nothing."""
    game = stored("e4 e5 Nf3 Nc6 Bc4")
    record = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5\n"
    for line in ("予想手: 4. c3 Nf6 5. d4", "4. c3 には 4... Nf6 なら 5. d4 とする"):
        verdict = mail(game, 1, record + line)
        assert verdict.kind == "move" and verdict.new_texts == ["Bc5"]
        assert verdict.new_conditionals == [] and verdict.unread_proposal == line
    read = mail(game, 1, record + "もし 4. c3 なら 4... Nf6")
    assert len(read.new_conditionals) == 1 and read.unread_proposal is None
    assert mail(game, 1, record + "Thanks, see you next week").unread_proposal is None
    assert mail(game, 1, record + "> 予想手: 4. c3 Nf6").unread_proposal is None  # quoted


def test_j16_proposal_cannot_be_withdrawn_a_changed_line_without_a_move_is_not_read() -> None:
    """Seed 000 (提案した予想手を撤回することはできません): the proposer writes again while the
    opponent is to move, with a different line; nothing is read or stored, and the verdict
    says the opponent is to move and the proposals in the mail were not read."""
    v = mail(stored("e4"), 0, "1. e4\nI withdraw that.\nif 1... e5 then 2. Bc4")
    assert v.kind == "no_move" and not v.applies
    assert v.new_conditionals == [] and not v.proposals_cleared
    assert "opponent_to_move" in v.notes and "proposals_not_read" in v.notes


def test_j16_proposals_without_a_move_from_the_side_to_move_are_not_read() -> None:
    v = mail(stored("e4"), 1, "1. e4\nif 2. Nf3 then 2... Nc6")
    assert v.kind == "no_move" and v.new_conditionals == []
    assert "proposals_not_read" in v.notes and "opponent_to_move" not in v.notes
    # a mail with no proposal keeps the plain answer
    assert "proposals_not_read" not in mail(stored("e4"), 1, "1. e4").notes


def test_j16_proposals_with_a_reply_the_bot_answers_are_said_not_read() -> None:
    """The reply stops after the predicted move: the bot plays the bound answer and the
    sender moves again, so the proposals sent with it bind nobody, and the verdict says
    they were not read (the receipt tells the sender to send them with the next move)."""
    from relaybot.core.conditionals import Conditional

    bound = [Conditional(("e7e5", "g1f3"))]
    v = decide(RULES, stored("e4"), 1, "1. e4 e5\nif 2. Nf3 then 2... Nc6", conditionals=bound)
    assert v.kind == "move" and v.new_plies == ["e7e5", "g1f3"] and v.sender_to_move
    assert v.new_conditionals == [] and "proposals_not_read" in v.notes
    plain_reply = decide(RULES, stored("e4"), 1, "1. e4 e5", conditionals=bound)
    assert "proposals_not_read" not in plain_reply.notes


def test_j16_optional_mode_contradiction_is_said_not_to_bind_and_costs_nothing() -> None:
    """Seed 002 rule 16 (それを有効とするかどうかは、相手の自由): where proposals are optional,
    writing another answer for the proposer is refused (the bot plays only what the proposer
    wrote) at no cost, and the verdict says the line does not bind (``proposal_optional``);
    in binding mode it is the JCCA's 5 days and no such note."""
    from relaybot.core.conditionals import Conditional

    bound = [Conditional(("e7e5", "g1f3"))]
    v = decide(RULES, stored("e4"), 1, "1. e4 e5 2. Nc3 Nc6", conditionals=bound,
               mode="optional", line_near=False)
    assert v.kind == "contradiction" and v.penalty_days == 0
    assert "proposal_optional" in v.notes and not v.applies
    v = decide(RULES, stored("e4"), 1, "1. e4 e5 2. Nc3 Nc6", conditionals=bound)
    assert v.kind == "contradiction" and v.penalty_days == 5
    assert "proposal_optional" not in v.notes


def test_j16_proposals_in_a_game_without_them_are_said_not_read() -> None:
    """A game whose ``conditionals`` is ``off``: a proposal sent with a move binds nobody,
    and the verdict says so (``proposals_off``) rather than drop it in silence."""
    v = decide(RULES, stored(), 0, "1. e4\nif 1... e5 then 2. Nf3", mode="off")
    assert v.kind == "move" and v.new_plies == ["e2e4"] and v.new_conditionals == []
    assert "proposals_off" in v.notes
    assert "proposals_off" not in decide(RULES, stored(), 0, "1. e4", mode="off").notes


def test_j1_a_record_numbered_with_parentheses_is_the_record() -> None:
    """``1) e4 e5 2) Nf3`` is the game from move 1, as ``1. e4 e5 2. Nf3`` is: the new
    move is played; a record that differs is still a sync error."""
    v = mail(stored("e4 e5"), 0, "1) e4 e5 2) Nf3")
    assert v.kind == "move" and v.new_plies == ["g1f3"]
    v = mail(stored("e4 e5"), 0, "1) d4 e5 2) Nf3")
    assert v.kind == "sync_error" and v.diff_ply == 0
    v = mail(stored("e4 e5"), 0, "2) Nf3")
    assert v.kind == "sync_error" and v.starts_at == 2
