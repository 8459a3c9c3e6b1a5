"""Outside acceptance attacks on "Who may act", the TD commands and the one reading
(INTERFACE.md), replayed through the real Dovecot.

Every test's docstring starts with "attack -> outcome": docs/security.md is generated
from them (scripts/security_table.py).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from relaybot.pipeline.td import find_commands
from tests.integration.relay_harness import (
    RELAY,
    TD,
    Club,
    Player,
    authenticated_by_mta,
    body_of,
)
from tests.security.test_identity import deliver, forge, game_of, holds, two_players
from tests.security.test_one_reading import request_address

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("prose", [
    "Rest assured it was me.", "Result: I sent it from my phone.",
    "Answer: yes, that was me.", "Free to confirm, of course.",
])
def test_g12_a_players_confirm_with_prose_starting_like_a_td_command_confirms(
        club: Club, prose: str) -> None:
    """a player's own held resignation, the reply to the request says "confirm" and a line
    of prose that starts like a TD command word -> confirmed (a player's command lines do
    nothing, so they are no new mail that drops the hold)"""
    white, _black, gid = two_players(club)
    plain = white.compose("resign", to=f"relay+{gid}@club.example", subject=f"[{gid}]")
    assert deliver(club, plain) == {"held": 1}
    reply = white.compose(f"confirm\n{prose}", to=request_address(club, white),
                          subject="Re: confirm")
    assert deliver(club, reply) == {"confirmed": 1}
    assert holds(club) == [("confirmed", gid)]
    assert game_of(club, gid).status == "finished"



SIDES = [  # (game, game new options, the TD's side word, the result it gives)
    ("chess", (), "white", "0-1"), ("chess", (), "black", "1-0"),
    ("chess", (), "白", "0-1"), ("chess", (), "黒", "1-0"),
    ("shogi", (), "sente", "0-1"), ("shogi", (), "gote", "1-0"),
    ("shogi", (), "先手", "0-1"), ("shogi", (), "後手", "1-0"),
    ("go", (), "black", "W+F"), ("go", (), "white", "B+F"),
    ("go", (), "黒", "W+F"), ("go", (), "白", "B+F"),
    ("go", (("size", "13"), ("handicap", "2")), "black", "W+F"),
    ("go", (("size", "13"), ("handicap", "2")), "白", "B+F"),
]


@pytest.mark.parametrize(("kind", "options", "side", "result"), SIDES)
def test_td_forfeit_every_side_word_of_each_game_by_mail(
        club: Club, kind: str, options: tuple[tuple[str, str], ...], side: str,
        result: str) -> None:
    """the TD forfeits a side by mail with each side word of the game (INTERFACE "TD
    commands"), sente/先手 the black (first-named) colour in shogi and Black in go even
    when White moves first (handicap) -> that side loses; a player's own authenticated
    mail with the same line first -> nothing; a forged TD mail with it -> held"""
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black, kind=kind, options=options)
    line = f"forfeit {gid} {side}"
    assert deliver(club, white.compose(line, to=white.game_address(gid),
                                       subject=f"[{gid}]"))
    assert game_of(club, gid).status == "active"
    assert deliver(club, forge(black, Player("TD", TD, club), line, RELAY, "x")) == {
        "td_held": 1}
    assert game_of(club, gid).status == "active"
    td = Player("TD", TD, club)
    assert deliver(club, td.compose(line, to=td.member_address(), subject="x")) == {
        "td_command": 1}
    game = game_of(club, gid)
    assert (game.status, game.result, game.termination) == ("finished", result, "forfeit")


def test_a_forged_go_result_agreeing_with_the_forgers_claim_is_held(club: Club) -> None:
    """go after both passed: White states "result W+10.5", then forges Black's agreeing
    "結果 白10目半勝ち" (and "result W+10.5" to the game address) -> held, the game goes
    on; Black's genuine statement of another result goes to the TD"""
    black = club.member("Kuro, Taro", "kuro@example.jp", lang="ja")
    white = club.member("Shiro, Hanako", "shiro@example.org")
    gid = club.game(white, black, kind="go", options=(("size", "9"),))
    for player, text in ((black, "1 E5"), (white, "2 pass"), (black, "3 pass"),
                         (white, "result W+10.5")):
        assert deliver(club, player.compose(text, to=player.game_address(gid),
                                            subject=f"[{gid}]"))
    assert game_of(club, gid).status == "active"
    for text, to in (("結果 白10目半勝ち", RELAY), ("result W+10.5", f"relay+{gid}@club.example")):
        assert deliver(club, forge(white, black, text, to, f"[{gid}]")) == {"held": 1}
        assert game_of(club, gid).status == "active"
    assert deliver(club, black.compose("結果 黒3目半勝ち", to=black.game_address(gid),
                                       subject=f"[{gid}]"))
    game = game_of(club, gid)
    assert game.status == "active" and game.result is None
    assert [s for s, _g in holds(club)] == ["superseded", "superseded"]


@pytest.mark.parametrize("resolve", ["confirm", "cancel", "superseded", "lapsed"])
def test_g12_a_confirmation_address_proves_nothing_once_its_hold_is_gone(
        club: Club, resolve: str) -> None:
    """the victim's confirmation request, forwarded ("did you send this?") to the opponent,
    whose mail From: the victim to its c. address resigns, after the hold was confirmed,
    cancelled, superseded or lapsed -> held and the victim asked (a c. token is for its
    one hold); while the hold waits, the victim's own move there is his new mail"""
    white, black, gid = two_players(club)
    plain = white.compose("1. e4", to=f"relay+{gid}@club.example", subject=f"[{gid}]")
    assert deliver(club, plain) == {"held": 1}
    c_address = request_address(club, white)
    if resolve in ("confirm", "cancel"):
        answer = white.compose(resolve, to=c_address, subject="Re: confirm")
        assert deliver(club, answer) == {"confirmed" if resolve == "confirm"
                                         else "hold_cancelled": 1}
    elif resolve == "superseded":
        assert deliver(club, white.compose("1. d4", to=white.game_address(gid),
                                           subject=f"[{gid}]")) == {"move": 1}
    else:
        club.clock += timedelta(days=8)
    before = game_of(club, gid).plies
    attack = forge(black, white, "resign", c_address, "Re: confirm")
    assert deliver(club, attack) == {"held": 1}
    game = game_of(club, gid)
    assert game.status == "active" and game.plies == before
    assert holds(club)[-1] == ("held", gid)
    assert "hold_request" in [c.parsed["X-Relaybot-Kind"] for c in white.inbox()[-2:]]


def test_g12_a_mail_naming_someone_elses_game_leaves_its_holds_alone(club: Club) -> None:
    """a member proven by our MTA's dmarc=pass sends "1. e4" to the address of a game he
    does not play -> nothing is played ("not a player"), and the held mail of that game's
    player does not lapse"""
    white, _black, _gid = two_players(club)
    third = club.member("Ito, Saburo", "ito@example.jp")
    fourth = club.member("Ono, Jiro", "ono@example.jp")
    other = club.game(third, fourth)
    held = third.compose("1. e4", to=f"relay+{other}@club.example", subject=f"[{other}]")
    assert deliver(club, held) == {"held": 1}
    raw = white.compose("1. e4", to=f"relay+{other}@club.example",
                        subject=f"[{other}]").as_bytes()
    club.deliver(authenticated_by_mta(raw, "example.jp"))
    assert club.cycle().poll.outcomes == {"not_player": 1}
    assert holds(club) == [("held", other)]
    confirm = third.compose("confirm", to=request_address(club, third), subject="Re: x")
    assert deliver(club, confirm) == {"confirmed": 1}
    assert game_of(club, other).plies == "e2e4"


def test_a_td_who_plays_moves_with_prose_that_starts_like_a_command(club: Club) -> None:
    """the club's TD also plays: his reply to his game's mail (his player's game token)
    with a move and a line "Answer to your question: yes" -> the move is played at once
    (his token covers it) and the command line is held for his confirmation as TD, never
    dropped unsaid; a TD command alone to the same address -> held as well"""
    white, black, gid = two_players(club)
    club.cfg = replace(club.cfg, bot=replace(club.cfg.bot, td=white.address))
    msg = white.compose("1. e4\n\nAnswer to your question: yes", to=white.game_address(gid),
                        subject=f"[{gid}]")
    assert deliver(club, msg) == {"move td_held": 1}
    assert game_of(club, gid).plies == "e2e4" and holds(club) == [("held", gid)]
    order = white.compose(f"forfeit {gid} black", to=white.game_address(gid),
                          subject=f"[{gid}]")
    assert deliver(club, order) == {"td_held": 1}
    assert game_of(club, gid).status == "active"
    assert black.address


@pytest.mark.parametrize(("subject", "text"), [
    ("休暇のため休戦します", "確認"),
    ("Vacation: leave next month", "confirm"),
    ("leave", "confirm\nI will be on holiday from 1 April, as the leave says."),
    ("休戦", "確認\n4月1日から休暇をいただいて旅行します。"),
])
def test_g12_a_genuine_confirmation_of_a_leave_about_a_holiday_confirms(
        club: Club, subject: str, text: str) -> None:
    """a member's own leave request (plain address, so held) whose subject or whose
    confirmation speaks of a vacation (休暇) -> the reply "confirm" / "確認" confirms it: the
    words of the held mail's own subject, and the member's words after the answer, are no
    out-of-office reply"""
    white, _black, gid = two_players(club)
    held = white.compose("leave 2026-04-01 2026-04-05", to=RELAY, subject=subject)
    assert deliver(club, held) == {"held": 1}
    reply = white.compose(text, to=request_address(club, white))
    assert deliver(club, reply) == {"confirmed": 1}
    assert holds(club)[-1][0] == "confirmed"
    assert gid


def test_a_held_td_command_is_confirmed_only_by_that_td(club: Club) -> None:
    """a forged "没収 <id> 先手" in the club TD's name (shogi) -> held; the loser-to-be
    answering the TD's request address with "確認" From: himself confirms nothing; the
    TD's own "確認" there forfeits the game"""
    white = club.member("Sato, Hanako", "sato@example.jp", lang="ja")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black, kind="shogi")
    td = Player("TD", TD, club)
    assert deliver(club, forge(white, td, f"没収 {gid} 先手", RELAY, "x")) == {"td_held": 1}
    c_address = request_address(club, td)
    assert deliver(club, white.compose("確認", to=c_address, subject="Re: x")) == {
        "confirm_refused": 1}
    assert game_of(club, gid).status == "active"
    assert deliver(club, td.compose("確認", to=c_address, subject="Re: x")) == {
        "confirmed": 1}
    game = game_of(club, gid)
    assert (game.status, game.result, game.termination) == ("finished", "0-1", "forfeit")


def test_td_withdraw_and_points_name_a_member_by_any_registered_address(club: Club) -> None:
    """the TD writes a member's other registered address in withdraw (INTERFACE: a member
    may have several addresses, each registered) -> that member's games are decided; a
    stranger's address -> refused, nothing changes"""
    white, black, gid = two_players(club)
    club.cli("member", "set", white.address, "--add-address", "sato.phone@example.jp")
    refused = club.cli("td", "withdraw", "nobody@example.jp", "lost", check=False)
    assert refused.returncode != 0 and game_of(club, gid).status == "active"
    club.cli("td", "withdraw", "sato.phone@example.jp", "lost")
    game = game_of(club, gid)
    assert (game.status, game.result) == ("finished", "0-1")
    assert black.address


def test_a_confirmation_our_mta_calls_forged_acts_on_nothing_and_the_member_is_told(
        club: Club) -> None:
    """a reply to the member's confirmation address saying "confirm", which our MTA says
    failed DMARC for the member's domain -> nothing confirmed, the hold still waits, and
    the registered address is told that someone wrote in its name"""
    white, black, gid = two_players(club)
    plain = white.compose("resign", to=f"relay+{gid}@club.example", subject=f"[{gid}]")
    assert deliver(club, plain) == {"held": 1}
    attack = forge(black, white, "confirm", request_address(club, white), "Re: x")
    attack["Authentication-Results"] = "mx.club.example; dmarc=fail header.from=example.jp"
    assert deliver(club, attack) == {"forged": 1}
    assert holds(club) == [("held", gid)]
    assert white.last()["X-Relaybot-Kind"] == "hold_forged"
    assert game_of(club, gid).status == "active"


def test_g13_a_flowed_sentence_ending_in_resign_is_no_resignation(club: Club) -> None:
    """the player's own client sends format=flowed and wraps "... I am not going to" /
    "resign" (a soft line break: the line ends in a space) -> read as the one line the
    client shows: the move is played and nobody resigns"""
    white, _black, gid = two_players(club)
    text = ("1. e4\n\nMy position may look difficult later, but I am certainly not going to \n"
            "resign\n")
    msg = white.compose(text, to=white.game_address(gid), subject=f"[{gid}]")
    msg.set_param("format", "flowed")
    assert "going to \nresign" in msg.get_content()
    assert deliver(club, msg) == {"move": 1}
    game = game_of(club, gid)
    assert game.status == "active" and game.plies == "e2e4"


def test_g12_a_stale_confirmation_address_beside_a_game_token_takes_nothing_away(
        club: Club) -> None:
    """the player's genuine move to his game token address, with the address of an old,
    already confirmed request in Cc (a reply-all) -> played: the stale c. token proves
    nothing, and takes nothing from the game token beside it"""
    white, _black, gid = two_players(club)
    plain = white.compose("status\ndigest off", to=RELAY, subject="x")
    assert deliver(club, plain) == {"held": 1}
    c_address = request_address(club, white)
    assert deliver(club, white.compose("confirm", to=c_address, subject="Re: x")) == {
        "confirmed": 1}
    move = white.compose("1. e4", to=white.game_address(gid), subject=f"[{gid}]")
    move["Cc"] = c_address
    assert deliver(club, move) == {"move": 1}
    assert game_of(club, gid).plies == "e2e4"


def test_g12_a_question_to_the_td_cannot_write_a_td_command_into_the_tds_mail(
        club: Club) -> None:
    """a player asks "td: forfeit <id> black" (his opponent's side) -> the TD's mail shows
    the question behind "> ", so no line of it is a command the TD's reply would carry
    with his token, however his client quotes; the TD's "answer N" reply that keeps the
    alert below without ">" answers and forfeits nothing"""
    white, _black, gid = two_players(club)
    white.send(f"td: forfeit {gid} black", to=white.game_address(gid), subject=f"[{gid}]")
    club.cycle()
    alert = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_question"][-1]
    text = body_of(alert)
    assert [c.command.name for c in find_commands(text)] == ["answer"]
    assert f"> forfeit {gid} black" in text
    td = Player("TD", TD, club)
    reply = td.compose(text + "\nNo, sorry.", to=str(alert.parsed["Reply-To"]),
                       subject="Re: question")
    assert deliver(club, reply) == {"td_command": 1}
    assert game_of(club, gid).status == "active"


def test_a_td_who_plays_has_both_halves_of_a_mixed_mail_done_or_held(club: Club) -> None:
    """the club's TD also plays: a move with a TD command line, proven by our MTA's
    dmarc=pass -> the move is played and the command runs; the same from his address
    without proof -> both halves held, each confirmed on its own (the player's request
    plays the move, the TD's runs the command), nothing dropped"""
    white, black, gid = two_players(club)
    third = club.member("Ito, Saburo", "ito@example.jp")
    fourth = club.member("Ono, Jiro", "ono@example.jp")
    other = club.game(third, fourth)
    club.cfg = replace(club.cfg, bot=replace(club.cfg.bot, td=white.address))
    raw = white.compose(f"1. e4\n\nforfeit {other} white", to=f"relay+{gid}@club.example",
                        subject=f"[{gid}]").as_bytes()
    club.deliver(authenticated_by_mta(raw, "example.jp"))
    assert club.cycle().poll.outcomes == {"move td_command": 1}
    assert game_of(club, gid).plies == "e2e4" and game_of(club, other).status == "finished"
    another = club.game(third, fourth)
    plain = white.compose(f"1. e4 e5 2. Nf3\n\nforfeit {another} black",
                          to=f"relay+{gid}@club.example", subject=f"[{gid}]")
    black.send("1. e4 e5", to=black.game_address(gid), subject=f"[{gid}]")
    club.cycle()
    assert deliver(club, plain) == {"held td_held": 1}
    requests = [c for c in club.mails_to(white.address)
                if c.parsed["X-Relaybot-Kind"] == "hold_request"][-2:]
    for request in requests:
        answer = white.compose("confirm", to=str(request.parsed["Reply-To"]), subject="Re")
        club.deliver(answer.as_bytes())
    assert sorted(club.cycle().poll.outcomes) == ["confirmed"]
    assert game_of(club, gid).plies.split()[-1] == "g1f3"
    assert game_of(club, another).status == "finished"
