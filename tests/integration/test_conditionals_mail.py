"""Conditional moves and several games in one mail, end to end (J16, J17, J5, J1)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from relaybot.store.models import Game, GameEvent, Move
from tests.integration.relay_harness import Club, Player, body_of
from tests.unit.test_conditionals import (
    LETTER_1_MARUYAMA,
    LETTER_2_KADOKAWA,
    LETTER_3_MARUYAMA,
    LETTER_4_KADOKAWA,
)

pytestmark = pytest.mark.integration


def record(club: Club, gid: str) -> str:
    from relaybot.games.chess import RULES

    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None
        return RULES.format_record(game.plies.split(), "san")


def penalties(club: Club, gid: str) -> list[tuple[int | None, int, str]]:
    with club.store.session() as s:
        return [(e.colour, e.days, str(e.detail.get("rule"))) for e in s.scalars(
            select(GameEvent).where(GameEvent.game_id == gid, GameEvent.kind == "penalty"))]


def test_seed_000_postal_example_by_email(club: Club) -> None:
    """The JCCA postal example (seed 000, 郵便戦の対局要領) re-told by email: four letters,
    games A and B in sections, proposals accepted, answered and declined."""
    maruyama = club.member("Maruyama, Taro", "maruyama@example.jp", lang="ja")
    kadokawa = club.member("Kadokawa, Jiro", "kadokawa@example.jp", lang="ja")
    game_a = club.game(maruyama, kadokawa, event="#500")
    game_b = club.game(kadokawa, maruyama, event="#500")

    maruyama.send(LETTER_1_MARUYAMA, to=maruyama.game_address(game_a), subject="#500")
    club.cycle()
    assert record(club, game_a) == "1. e4"
    forward = body_of(kadokawa.inbox()[-1])
    assert "もし 1... e5 なら 2. Nf3" in forward  # the proposal is shown to the opponent

    kadokawa.send(LETTER_2_KADOKAWA, to=kadokawa.game_address(game_a), subject="Re: #500")
    club.cycle()
    assert record(club, game_a) == "1. e4 e5 2. Nf3 Nc6"
    assert record(club, game_b) == "1. d4"
    with club.store.session() as s:
        moves = s.scalars(select(Move).where(Move.game_id == game_a).order_by(Move.ply)).all()
        # the restated bound answer 2. Nf3 counts as sent with Kadokawa's reply: 0 days (J16)
        assert moves[1].sent_at == moves[2].sent_at == moves[3].sent_at
    combined = body_of(kadokawa.inbox()[-1])
    assert combined.count("====") >= 2  # one reply listing both sections

    maruyama.send(LETTER_3_MARUYAMA, to=maruyama.game_address(game_a), subject="Re: #500")
    club.cycle()
    assert record(club, game_a) == "1. e4 e5 2. Nf3 Nc6 3. Bc4"
    assert record(club, game_b) == "1. d4 d5 2. c4 c6"

    kadokawa.send(LETTER_4_KADOKAWA, to=kadokawa.game_address(game_a), subject="Re: #500")
    club.cycle()
    assert record(club, game_a) == "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6"
    assert record(club, game_b) == "1. d4 d5 2. c4 c6 3. Nf3"
    assert penalties(club, game_a) == [] and penalties(club, game_b) == []


def plain(body: str) -> str:
    """A mail body with its lines ended as in text (mail ends them with CRLF)."""
    return body.replace("\r\n", "\n")


def two(club: Club, **kw: object) -> tuple[Player, Player, str]:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    return white, black, club.game(white, black, **kw)


def test_j16_contradicting_reply_is_refused_with_five_days(club: Club) -> None:
    white, black, gid = two(club)
    white.send("1. e4\nif 1... e5 then 2. Nf3")
    club.cycle()
    black.send("1. e4 e5 2. Bc4 Nc6")
    club.cycle()
    assert record(club, gid) == "1. e4"
    reply = body_of(black.inbox()[-1])
    # the expected answer and the cost, in plain words (no internal rule id, issue 26)
    assert "Nf3" in reply and "5 days" in reply and "J16" not in reply
    assert penalties(club, gid) == [(1, 5, "J16")]


def test_j16_optional_mode_ignored_proposal_costs_nothing(club: Club) -> None:
    white, black, gid = two(club, conditionals="optional")
    white.send("1. e4\nif 1... e5 then 2. Nf3")
    club.cycle()
    black.send("1. e4 e5")
    club.cycle()
    assert record(club, gid) == "1. e4 e5"  # the bound answer is not played
    assert penalties(club, gid) == []


def test_j16_proposal_illegal_in_its_position_is_refused_and_the_move_stands(
    club: Club,
) -> None:
    white, black, gid = two(club)
    white.send("1. e4\nif 1... e5 then 2. Ke3")
    club.cycle()
    assert record(club, gid) == "1. e4"
    ack = body_of(white.inbox()[-1])
    assert "could not be accepted" in ack and "Ke3" in ack
    assert "if 1..." not in body_of(black.inbox()[-1])


def test_j16_deep_line_accepted_in_part(club: Club) -> None:
    white, black, gid = two(club)
    white.send("1. e4\nif 1... e5 then 2. Nf3 Nc6 3. Bb5")
    club.cycle()
    black.send("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6")  # follows all of it
    club.cycle()
    assert record(club, gid) == "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"
    white.send("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4\nif 4... Nf6 then 5. O-O Be7 6. Re1")
    club.cycle()
    black.send("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6")  # stops after the predicted move
    club.cycle()
    # the bot plays the bound answer 5. O-O; the rest of the line lapses; Black to move
    assert record(club, gid) == "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O"
    assert "your move again" in body_of(black.inbox()[-1])


def test_j16_japanese_syntax_and_pgn_variation(club: Club) -> None:
    white, black, gid = two(club)
    white.send("1. e4\nもし 1... c5 なら 2. Nf3 とします")
    club.cycle()
    black.send("1. e4 c5 2. Nf3 d6")
    club.cycle()
    assert record(club, gid) == "1. e4 c5 2. Nf3 d6"
    white.send("1. e4 c5 2. Nf3 d6 3. d4 (3... cxd4 4. Nxd4)")
    club.cycle()
    black.send("1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6")
    club.cycle()
    assert record(club, gid) == "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6"


def test_j17_one_bad_section_does_not_block_the_other(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    a = club.game(white, black)
    b = club.game(white, black)
    white.send("Hello!\n\nA: 1. e4\n\nB: 1. Ke3\n", to=white.game_address(a),
               subject="two games")
    club.cycle()
    assert record(club, a) == "1. e4"
    assert record(club, b) == ""
    reply = body_of(white.inbox()[-1])
    assert "A: move relayed" in reply and "B: move not accepted" in reply


def test_j17_a_section_that_raises_sends_nothing_for_its_game(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A section's forward is queued before its acknowledgement is written; when the
    section then fails, its savepoint takes the move back and no forward of it may go
    out, not even with the next section's mail, which is relayed as usual (J17, G4)."""
    import relaybot.pipeline.commands as commands
    from relaybot.pipeline.effects import Mail

    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    a = club.game(white, black)
    b = club.game(white, black)
    before = len(black.inbox())
    real = commands.render_mail
    calls = []

    def fail_on_a(mail: Mail) -> tuple[str, str]:
        # the acknowledgement of a section is rendered after its forward was queued
        calls.append(mail.game_id)
        if mail.game_id == a:
            raise RuntimeError("boom after the forward was queued")
        return real(mail)

    monkeypatch.setattr(commands, "render_mail", fail_on_a)
    white.send("Hello!\n\nA: 1. e4\n\nB: 1. d4\n", to=white.game_address(a),
               subject="two games")
    club.cycle()
    assert calls == [a, b]
    assert record(club, a) == ""  # taken back with the section
    assert record(club, b) == "1. d4"
    forwards = [c for c in black.inbox()[before:] if c.parsed["X-Relaybot-Kind"] == "move"]
    assert [c.parsed["X-Relaybot-Game"] for c in forwards] == [b]
    assert "A: not processed" in body_of(white.inbox()[-1])


@pytest.mark.parametrize(("lang", "subject", "listed"), [
    ("en", "Your mail for 2 games", ("A: resigned", "B: move relayed")),
    ("ja", "2局分のメールの処理結果", ("A: 投了", "B: 指し手を中継しました"))])
def test_j17_the_reply_counts_every_game_the_mail_had_a_section_for(
        club: Club, lang: str, subject: str, listed: tuple[str, str]) -> None:
    """A section whose game ended (a resignation: the game-end mail tells the rest) has no
    part of its own in the reply, but the reply's subject still counts its game."""
    white = club.member("Sato, Hanako", "sato@example.jp", lang=lang)
    black = club.member("Brown, Tom", "brown@example.org", lang=lang)
    a = club.game(white, black)
    club.game(white, black)
    white.send("A\n1. e4\n\nB\n1. d4\n", to=white.game_address(a), subject="two games")
    club.cycle()
    black.send("A\n1. e4\nresign\n\nB\n1. d4 d5\n", to=black.game_address(a),
               subject="Re: two games")
    club.cycle()
    reply = black.inbox()[-1]
    assert reply.parsed["X-Relaybot-Kind"] == "sections"
    assert str(reply.parsed["Subject"]) == subject
    text = body_of(reply)
    assert all(line in text for line in listed), text
    assert text.count("\n==== ") == 1, text  # the ended game's own mail says the rest


def test_j16_a_proposal_in_a_form_not_read_is_named_in_the_receipt(club: Club) -> None:
    """「予想手: 1... c5 2. Nf3」 binds nobody: the move is relayed, the opponent's mail
    says the line binds neither player, and the sender's receipt names the line and the
    form to write."""
    white, black, gid = two(club)
    white.send("1. e4\n予想手: 1... c5 2. Nf3")
    club.cycle()
    receipt = body_of(white.inbox()[-1])
    assert 'the line "予想手: 1... c5 2. Nf3" was not read as a conditional move' in receipt
    assert '"if 3... Bc5 then 4. c3"' in receipt
    relayed = body_of(black.inbox()[-1])
    assert 'The line "予想手: 1... c5 2. Nf3" was not read as a conditional move: it binds' \
        ' neither player.' in relayed and "proposals" not in relayed.lower()
    black.send("1. e4 c5")
    club.cycle()
    assert record(club, gid) == "1. e4 c5"  # no answer was played for White


def test_j16_a_proposal_cannot_be_withdrawn_or_changed_before_the_reply(club: Club) -> None:
    """Seed 000 (提案した予想手を撤回することはできません): a second mail with a changed line
    while the opponent is to move is not read, the proposer is told why, and the first
    line is the one the bot plays."""
    white, black, gid = two(club)
    white.send("1. e4\nif 1... e5 then 2. Nf3")
    club.cycle()
    white.send("1. e4\nSorry, I withdraw that.\nif 1... e5 then 2. Bc4")
    club.cycle()
    told = body_of(white.inbox()[-1])
    assert "your opponent is to move" in told and "cannot be withdrawn or changed" in told
    assert "Please write the whole game" not in told  # no move is due from White
    black.send("1. e4 e5")
    club.cycle()
    assert record(club, gid) == "1. e4 e5 2. Nf3"  # the first line, as proposed


def test_j16_shogi_same_square_line_the_bot_plays_the_bound_answer_and_says_whose_move(
    club: Club,
) -> None:
    """A shogi line with 同 (same square), binding: gote stops after the predicted △同歩,
    the bot plays ▲同飛 for sente, and each mail names the sender's own move apart from
    the bound answer the bot played (the answer is not gote's move)."""
    sente = club.member("佐藤 一郎", "sato@example.jp", lang="ja")
    gote = club.member("鈴木 二郎", "suzuki@example.jp", lang="ja")
    gid = club.game(gote, sente, kind="shogi", conditionals="binding")
    for who, text in [(sente, "1 ▲７六歩"), (gote, "2 △３四歩"), (sente, "3 ▲２六歩"),
                      (gote, "4 △４四歩"), (sente, "5 ▲２五歩"), (gote, "6 △３二銀"),
                      (sente, "7 ▲２四歩\nもし 8 △同歩 なら 9 ▲同飛 10 △２三歩 11 ▲２八飛")]:
        who.send(text)
        club.cycle()
    assert "もし 8 △同　歩 なら ▲同　飛" in body_of(gote.inbox()[-1])
    gote.send("8 △同歩")
    club.cycle()
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.plies.split()[-2:] == ["2c2d", "2h2d"]
    ack, relay = body_of(gote.inbox()[-1]), body_of(sente.inbox()[-1])
    assert "あなたの指し手 8 △同　歩 を受け付け" in ack
    assert "予告した手 9 ▲同　飛 を指しました" in ack and "再びあなたの手番です" in ack
    assert "鈴木 二郎さんの指し手は 8 △同　歩 です。" in relay
    assert "9 ▲同　飛 を指しました（消費0日）" in relay


def test_j16_the_receipt_names_the_bound_answer_apart_from_the_senders_move(
    club: Club,
) -> None:
    white, black, _ = two(club)
    white.send("1. e4\nif 1... e5 then 2. Nf3")
    club.cycle()
    assert "opponent.\nYour proposals" in plain(body_of(white.inbox()[-1]))  # a line each
    black.send("1. e4 e5\nif 2. Nf3 then 2... Nc6")
    club.cycle()
    ack, relay = plain(body_of(black.inbox()[-1])), plain(body_of(white.inbox()[-1]))
    assert "Your move 1... e5 was accepted and sent to your opponent.\n" in ack
    # the proposal sent with it binds nobody (Black is to move again), and is said so
    assert "proposals in your mail were not read" in ack and "if 2. Nf3" not in relay
    assert "the bot played the bound answer 2. Nf3" in ack
    assert "Tom Brown played 1... e5.\n" in relay
    assert "the bot played your bound answer 2. Nf3 for you (0 days)" in relay


def test_j16_go_a_bound_pass_that_ends_play_asks_for_the_result_not_a_move(
    club: Club,
) -> None:
    """Go: "if 2 pass then 3 pass" followed; the bot's pass is the second, so both have
    passed: neither mail may tell the player to send a next move (the result is due)."""
    black = club.member("Ito, Ken", "ito@example.jp")
    white = club.member("Kato, Yu", "kato@example.jp", lang="ja")
    gid = club.game(white, black, kind="go", options=(("size", "9"),))
    black.send("1 E5\nif 2 pass then 3 pass")
    club.cycle()
    white.send("2 パス")
    club.cycle()
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and len(game.plies.split()) == 3
    ack, relay = plain(body_of(white.inbox()[-1])), plain(body_of(black.inbox()[-1]))
    assert "予告した手 3 パス を打ちました" in ack and "結果を1行で申告" in ack
    assert "再びあなたの手番です" not in ack and "次の着手を送ってください" not in ack
    assert "bound answer 3 pass for you (0 days)" in relay and "states the result" in relay
    assert "move again" not in relay


def test_j16_game_show_names_the_pending_proposals_and_the_bound_answers(
    club: Club,
) -> None:
    """What binds the proposer, and which ply the bot played for them, as the TD sees the
    game (`relaybot game show`, text and --json)."""
    import json

    white, black, gid = two(club)
    white.send("1. e4\nif 1... e5 then 2. Nf3\nif 1... c5 then 2. c3")
    club.cycle()
    shown = club.cli("game", "show", gid).stdout
    assert "proposals by White (binding, until the reply):" in shown
    assert "if 1... e5 then 2. Nf3" in shown and "if 1... c5 then 2. c3" in shown
    doc = json.loads(club.cli("game", "show", gid, "--json").stdout)
    assert doc["proposals_by"] == "white" and len(doc["proposals"]) == 2
    black.send("1. e4 e5")
    club.cycle()
    shown = club.cli("game", "show", gid).stdout
    assert "proposals by" not in shown  # spent by the reply
    assert [line for line in shown.splitlines() if "bound answer" in line] == [
        next(line for line in shown.splitlines() if line.strip().startswith("ply   3"))]
    doc = json.loads(club.cli("game", "show", gid, "--json").stdout)
    assert [m["auto"] for m in doc["moves"]] == [False, False, True]
    assert doc["proposals"] == [] and doc["proposals_by"] is None


def test_j16_a_bound_answer_that_mates_ends_the_game_and_both_mails_say_so(
    club: Club,
) -> None:
    """Black proposes "if 2. g4 then 2... Qh4#"; White plays 2. g4: the bot plays the mate
    for Black, the game ends, and each game-over mail says the bound answer ended it."""
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org", lang="ja")
    gid = club.game(white, black)
    white.send("1. f3")
    club.cycle()
    black.send("1. f3 e5\nもし 2. g4 なら 2... Qh4#")
    club.cycle()
    white.send("1. f3 e5 2. g4")
    club.cycle()
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.status == "finished" and game.result == "0-1"
    to_white, to_black = plain(body_of(white.inbox()[-1])), plain(body_of(black.inbox()[-1]))
    assert "the bot played their bound answer 2... Qh4#, and it ended the game" in to_white
    assert "予告した手 2... Qh4# を指しました（消費0日）。この手で対局が終わりました。" in to_black


def test_j16_optional_mode_another_answer_is_refused_without_cost_or_binding_words(
    club: Club,
) -> None:
    white, black, gid = two(club, conditionals="optional")
    white.send("1. e4\nif 1... e5 then 2. Nf3")
    club.cycle()
    black.send("1. e4 e5 2. Nc3 Nc6")
    club.cycle()
    assert record(club, gid) == "1. e4"
    reply = plain(body_of(black.inbox()[-1]))
    assert "free to ignore proposals" in reply and "the predicted move alone" in reply
    assert "binds you" not in reply and "days are added" not in reply.replace("no days", "")
    assert [days for _, days, _ in penalties(club, gid)] == [0]  # logged, at no cost


def test_j16_a_game_without_proposals_says_a_proposal_was_not_read(club: Club) -> None:
    white, black, gid = two(club, conditionals="off")
    white.send("1. e4\nif 1... e5 then 2. Nf3")
    club.cycle()
    assert "takes no conditional proposals" in plain(body_of(white.inbox()[-1]))
    assert "if 1... e5" not in body_of(black.inbox()[-1])
    black.send("1. e4 e5")
    club.cycle()
    assert record(club, gid) == "1. e4 e5"  # nothing bound White
