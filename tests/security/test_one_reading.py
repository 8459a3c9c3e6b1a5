"""One reading of each mail decides what it may do (issue 22; INTERFACE.md "Who may act").

Each attack an opponent or a stranger tried while the gate, the section splitter, the
referee and the confirmation check each read the mail their own way, replayed through the
real Dovecot: the gate now judges the very reading that acts, so each is held, refused or
harmless.

Every test's docstring starts with "attack -> outcome": docs/security.md is generated
from them (scripts/security_table.py).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from relaybot.core.tokens import UNSUBSCRIBE_SCOPE, format_address, issue
from relaybot.store.models import Game, Hold, Member
from tests.integration.relay_harness import RELAY, SECRET, Club, Player, body_of
from tests.security.test_identity import deliver, forge, game_of, holds, kinds, two_players

pytestmark = pytest.mark.integration


def request_address(club: Club, player: Player) -> str:
    """The c. address of the newest confirmation request ``player`` received."""
    request = [c for c in club.mails_to(player.address)
               if c.parsed["X-Relaybot-Kind"] in ("hold_request", "hold_again")][-1]
    return str(request.parsed["Reply-To"])


def member_id(club: Club, address: str) -> int:
    with club.store.session() as s:
        member = s.scalar(select(Member).where(Member.email == address))
        assert member is not None
        return member.id


def test_status_line_then_labelled_resignation_is_held(club: Club) -> None:
    """forged "status" / "<id>: resign" / "<id>: 1. e4 e5" to the plain game address -> held
    whole: the labelled lines are read by the gate as the referee reads them"""
    white, black, gid = two_players(club)
    text = f"status\n{gid}: resign\n{gid}: 1. e4 e5"
    assert deliver(club, forge(black, white, text, f"relay+{gid}@club.example",
                               f"[{gid}]")) == {"held": 1}
    game = game_of(club, gid)
    assert game.status == "active" and game.result is None and game.plies == ""
    assert "game_end" not in kinds(club, black.address)
    assert holds(club) == [("held", gid)]


def test_status_line_then_labelled_move_is_held(club: Club) -> None:
    """forged "status" / "<id>: 1. e4" (a move in the victim's name) -> held; no move"""
    white, black, gid = two_players(club)
    assert deliver(club, forge(black, white, f"status\n{gid}: 1. e4", RELAY, "hello")) == {
        "held": 1}
    assert game_of(club, gid).plies == ""


def test_a_reply_that_does_not_say_confirm_confirms_nothing(club: Club) -> None:
    """forged resignation, the victim replies "I did NOT send this. Please cancel it!" ->
    nothing confirmed; one more request, and no third"""
    white, black, gid = two_players(club)
    assert deliver(club, forge(black, white, "resign", f"relay+{gid}@club.example",
                               f"[{gid}]")) == {"held": 1}
    c_address = request_address(club, white)
    protest = white.compose("I did NOT send this. Please cancel it!", to=c_address,
                            subject="Re: confirm")
    assert deliver(club, protest) == {"confirm_asked_again": 1}
    assert white.last()["X-Relaybot-Kind"] == "hold_again"
    assert '"confirm"' in body_of(white.inbox()[-1])
    again = white.compose("What is this about?", to=c_address, subject="Re: confirm")
    assert deliver(club, again) == {"confirm_unclear": 1}
    assert white.last()["X-Relaybot-Kind"] == "hold_again"  # asked once more, not twice
    assert game_of(club, gid).status == "active"
    assert holds(club) == [("held", gid)]


def test_an_out_of_office_reply_never_confirms(club: Club) -> None:
    """forged resignation, the victim's out-of-office answers the request (no
    Auto-Submitted header, "confirm"-free) -> nothing confirmed, nothing answered"""
    white, black, gid = two_players(club)
    assert deliver(club, forge(black, white, "resign", f"relay+{gid}@club.example",
                               f"[{gid}]")) == {"held": 1}
    sent = len(white.inbox())
    ooo = white.compose("I am out of the office until 10 March with limited access to "
                        "email.\nyes", to=request_address(club, white),
                        subject="Automatic reply: Please confirm your mail")
    assert deliver(club, ooo) == {"confirm_automated": 1}
    assert len(white.inbox()) == sent
    assert game_of(club, gid).status == "active"


def test_the_victims_next_move_does_not_confirm_a_forged_resignation(club: Club) -> None:
    """forged resignation, the victim answers the bot's newest mail (the request) with his
    move -> the move is his new mail: played, and the forged resignation lapses"""
    white, black, gid = two_players(club)
    assert deliver(club, forge(black, white, "resign", f"relay+{gid}@club.example",
                               f"[{gid}]")) == {"held": 1}
    move = white.compose("1. e4", to=request_address(club, white), subject="Re: move")
    assert deliver(club, move) == {"move": 1}
    game = game_of(club, gid)
    assert game.status == "active" and game.plies == "e2e4"
    assert holds(club) == [("superseded", gid)]
    assert "1. e4" in body_of(black.inbox()[-1])  # relayed, not a game end


def test_the_unsubscribe_token_is_no_login(club: Club) -> None:
    """forged "resign" to relay+unsubscribe.<the one-click token>@ (printed in every digest
    link) -> held; to relay+u.<token>@ -> the digest stops and nothing else happens"""
    white, black, gid = two_players(club)
    token = issue(SECRET, UNSUBSCRIBE_SCOPE, str(member_id(club, white.address)))
    for scope in (UNSUBSCRIBE_SCOPE, "u"):
        to = format_address("relay", "club.example", scope, token)
        assert deliver(club, forge(black, white, f"resign\n{gid}: resign", to,
                                   f"[{gid}]")) == {"held": 1}
    assert game_of(club, gid).status == "active"
    to = format_address("relay", "club.example", "u", token)
    assert deliver(club, forge(black, white, "digest off", to, "unsubscribe")) == {
        "digest_off": 1}
    with club.store.session() as s:
        member = s.get(Member, member_id(club, white.address))
        assert member is not None and member.digest == "off"


def test_a_game_token_acts_only_for_its_own_games(club: Club) -> None:
    """the player's own token for game A, carrying a resignation for his game against
    someone else -> held whole; his moves for game A alone act"""
    white, _black, gid = two_players(club)
    third = club.member("Ito, Saburo", "ito@example.jp")
    other = club.game(white, third)
    text = f"[{other}] resign"
    assert deliver(club, white.compose(text, to=white.game_address(gid),
                                       subject=f"[{gid}]")) == {"held": 1}
    assert game_of(club, other).status == "active"
    assert deliver(club, white.compose("1. e4", to=white.game_address(gid),
                                       subject=f"[{gid}]")) == {"move": 1}


def test_a_forged_mail_naming_its_game_only_in_the_body_is_bound_to_it(club: Club) -> None:
    """forged "<id>: resign" to the bare bot address -> held for that game; the victim's
    genuine move makes it lapse, and answering the old request later resigns nothing"""
    white, black, gid = two_players(club)
    assert deliver(club, forge(black, white, f"{gid}: resign", RELAY, "hi")) == {"held": 1}
    c_address = request_address(club, white)
    with club.store.session() as s:
        row = s.scalars(select(Hold)).one()
        assert row.games.split() == [gid]
    assert deliver(club, white.compose("1. e4", to=white.game_address(gid),
                                       subject=f"[{gid}]")) == {"move": 1}
    assert holds(club) == [("superseded", gid)]
    late = white.compose("what is this?\nconfirm", to=c_address, subject="Re: x")
    club.deliver(late.as_bytes(), club.clock + timedelta(days=3))
    assert club.cycle().poll.outcomes == {"confirm_superseded": 1}
    game = game_of(club, gid)
    assert game.status == "active" and game.plies == "e2e4"


def test_status_and_digest_off_together_are_held(club: Club) -> None:
    """forged "status" / "digest off" -> held: digest off changes the member, so the mail
    is not read-only; the digest stays on"""
    white, black, _gid = two_players(club)
    assert deliver(club, forge(black, white, "status\ndigest off", RELAY, "x")) == {
        "held": 1}
    with club.store.session() as s:
        member = s.get(Member, member_id(club, white.address))
        assert member is not None and member.digest != "off"


def test_a_member_token_does_not_carry_moves(club: Club) -> None:
    """the member's m. token (the digest's Reply-To) with a resignation -> held; with
    "status" -> answered"""
    white, _black, gid = two_players(club)
    assert deliver(club, white.compose("resign", to=white.member_address(),
                                       subject=f"[{gid}]")) == {"held": 1}
    assert game_of(club, gid).status == "active"


def test_the_postal_record_below_a_fragment_is_read_as_the_record(club: Club) -> None:
    """the seed's postal habit: "A局 3. Bc4 Nf6", a blank line, then the whole game from
    move 1 -> played (the whole record wins over the fragment), not a sync error"""
    white, black, gid = two_players(club)
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None
        game.label = "A"
    white.send("1. e4", to=white.game_address(gid), subject=f"[{gid}]")
    black.send("1. e4 e5", to=black.game_address(gid), subject=f"[{gid}]")
    white.send("1. e4 e5 2. Nf3", to=white.game_address(gid), subject=f"[{gid}]")
    black.send("1. e4 e5 2. Nf3 Nc6", to=black.game_address(gid), subject=f"[{gid}]")
    assert club.cycle().poll.outcomes == {"move": 4}
    white.send("A局 3. Bc4\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4", to=white.game_address(gid),
               subject=f"[{gid}]")
    assert club.cycle().poll.outcomes == {"sections A:move": 1}
    assert game_of(club, gid).plies.split()[-1] == "f1c4"
