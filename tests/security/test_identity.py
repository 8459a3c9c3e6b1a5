"""Who may act (INTERFACE.md "Who may act", issue 12): one test per forgery an opponent or
a stranger can try, each asserting that nothing was applied and nobody but the forged
address heard of it; and the genuine paths (a reply to a token address, our MTA's
dmarc=pass, a confirmation) applying.

Every test's docstring starts with "attack -> outcome": docs/security.md is generated
from them (scripts/security_table.py).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from email.headerregistry import Address
from email.message import EmailMessage

import pytest
from sqlalchemy import select

from relaybot.core.tokens import issue
from relaybot.store.models import Game, Hold, Leave, Move, Question
from tests.integration.relay_harness import RELAY, SECRET, TD, Club, Player, body_of

pytestmark = pytest.mark.integration

OUR_MTA = "mx.club.example"


def two_players(club: Club) -> tuple[Player, Player, str]:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    return white, black, club.game(white, black)


def game_of(club: Club, gid: str) -> Game:
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None
        s.expunge(game)
        return game


def forge(by: Player, victim: Player, text: str, to: str, subject: str) -> EmailMessage:
    """A mail ``by`` writes with ``From: victim``, as any mail client allows."""
    msg = by.compose(text, to=to, subject=subject)
    del msg["From"]
    msg["From"] = Address(display_name=victim.name, addr_spec=victim.address)
    return msg


def kinds(club: Club, address: str) -> list[str]:
    return [str(c.parsed["X-Relaybot-Kind"]) for c in club.mails_to(address)]


def deliver(club: Club, msg: EmailMessage) -> dict[str, int]:
    club.deliver(msg.as_bytes())
    return club.cycle().poll.outcomes


def holds(club: Club) -> list[tuple[str, str | None]]:
    with club.store.session() as s:
        return [(h.status, h.game_id) for h in s.scalars(select(Hold).order_by(Hold.id))]


def test_forged_move_is_held_and_the_opponent_hears_nothing(club: Club) -> None:
    """forged move (From: the player, to the plain game address) -> held; the opponent hears
    nothing; the forged address is asked to confirm"""
    white, black, gid = two_players(club)
    before_black = len(black.inbox())
    msg = forge(black, white, "1. f3", f"relay+{gid}@club.example", f"Re: [{gid}]")
    assert deliver(club, msg) == {"held": 1}
    assert game_of(club, gid).plies == ""
    assert len(black.inbox()) == before_black  # nothing relayed, nothing said
    request = white.last()
    assert request["X-Relaybot-Kind"] == "hold_request"
    assert "> 1. f3" in body_of(white.inbox()[-1])  # what arrived, quoted
    assert str(request["Reply-To"]).startswith("<relay+c.") or "relay+c." in str(
        request["Reply-To"])
    assert holds(club) == [("held", gid)]


def test_forged_resignation_is_held(club: Club) -> None:
    """forged resignation -> held; the game goes on"""
    white, black, gid = two_players(club)
    assert deliver(club, forge(black, white, "resign", f"relay+{gid}@club.example",
                               f"[{gid}]")) == {"held": 1}
    game = game_of(club, gid)
    assert game.status == "active" and game.result is None
    assert "game_end" not in kinds(club, black.address)


def test_forged_draw_acceptance_is_held(club: Club) -> None:
    """forged draw acceptance (the offerer writes "draw" as the other player) -> held; the
    game goes on"""
    white, black, gid = two_players(club)
    white.send("1. e4\ndraw?")
    club.cycle()
    assert game_of(club, gid).draw_offer_by is not None
    assert deliver(club, forge(white, black, "draw", f"relay+{gid}@club.example",
                               f"[{gid}]")) == {"held": 1}
    game = game_of(club, gid)
    assert game.status == "active" and game.result is None


def test_forged_leave_is_held(club: Club) -> None:
    """forged leave request -> held; no leave is recorded and the opponent is not told"""
    white, black, gid = two_players(club)
    sent = len(black.inbox())
    msg = forge(black, white, "leave 2026-03-20 2026-03-25", RELAY, f"[{gid}] leave")
    assert deliver(club, msg) == {"held": 1}
    with club.store.session() as s:
        assert s.scalars(select(Leave)).all() == []
    assert len(black.inbox()) == sent


def test_forged_td_command_without_header_is_held(club: Club) -> None:
    """forged TD command, no Authentication-Results -> held; the TD is asked to confirm"""
    white, black, gid = two_players(club)
    td = Player("TD", TD, club)
    msg = forge(black, td, f"forfeit {gid} white", RELAY, "x")
    assert deliver(club, msg) == {"td_held": 1}
    assert game_of(club, gid).status == "active"
    assert kinds(club, TD)[-1] == "hold_request"
    assert "game_end" not in kinds(club, white.address)


def test_forged_td_command_with_dmarc_fail_is_refused_and_the_td_told(club: Club) -> None:
    """forged TD command with our MTA's dmarc=fail -> nothing acts, no hold; the TD is told
    someone wrote in their name"""
    club.cfg = replace(club.cfg, bot=replace(club.cfg.bot, authserv_id=OUR_MTA))
    _white, black, gid = two_players(club)
    td = Player("TD", TD, club)
    msg = forge(black, td, f"forfeit {gid} white", RELAY, "x")
    msg["Authentication-Results"] = f"{OUR_MTA}; dmarc=fail header.from=club.example"
    assert deliver(club, msg) == {"td_forged": 1}
    assert game_of(club, gid).status == "active"
    assert holds(club) == []
    assert kinds(club, TD)[-1] == "hold_forged"


def test_forged_td_command_with_another_servers_header_is_held(club: Club) -> None:
    """forged TD command with dmarc=pass from another authserv-id -> held (only our MTA's
    header counts)"""
    club.cfg = replace(club.cfg, bot=replace(club.cfg.bot, authserv_id=OUR_MTA))
    _white, black, gid = two_players(club)
    td = Player("TD", TD, club)
    msg = forge(black, td, f"forfeit {gid} white", RELAY, "x")
    msg["Authentication-Results"] = "mx.evil.example; dmarc=pass header.from=club.example"
    assert deliver(club, msg) == {"td_held": 1}
    assert game_of(club, gid).status == "active"


def test_the_other_players_token_proves_nothing(club: Club) -> None:
    """stolen-looking token: Black writes as White to Black's own token address, or as
    himself to White's -> held either way"""
    white, black, gid = two_players(club)
    as_white = forge(black, white, "resign", black.game_address(gid), f"[{gid}]")
    assert deliver(club, as_white) == {"held": 1}
    to_whites = black.compose("resign", to=white.game_address(gid), subject=f"[{gid}]")
    assert deliver(club, to_whites) == {"held": 1}
    assert game_of(club, gid).status == "active"


def test_token_reply_and_trusted_dmarc_pass_act_at_once(club: Club) -> None:
    """genuine: a reply to the bot's mail (token address) or our MTA's dmarc=pass -> applied
    at once, no confirmation asked"""
    club.cfg = replace(club.cfg, bot=replace(club.cfg.bot, authserv_id=OUR_MTA))
    white, black, gid = two_players(club)
    white.send("1. e4")  # a reply to the start mail
    assert club.cycle().poll.outcomes == {"move": 1}
    msg = black.compose("1. e4 e5", to=f"relay+{gid}@club.example", subject=f"[{gid}]")
    msg["Authentication-Results"] = f"{OUR_MTA}; dmarc=pass header.from=example.org"
    assert deliver(club, msg) == {"move": 1}
    assert game_of(club, gid).plies == "e2e4 e7e5"
    assert "hold_request" not in kinds(club, white.address) + kinds(club, black.address)


def test_confirmation_applies_the_held_mail_as_of_its_arrival(club: Club) -> None:
    """genuine: a held move confirmed days later -> applied with its own arrival time
    (the clock as if it had been authenticated, J6)"""
    white, black, gid = two_players(club)
    plain = white.compose("1. e4", to=f"relay+{gid}@club.example", subject=f"[{gid}]")
    assert deliver(club, plain) == {"held": 1}
    arrived = club.clock
    reply = white.compose("Yes, that was me.\n\nconfirm")  # a reply to the request
    club.deliver(reply.as_bytes(), arrived + timedelta(days=3))
    assert club.cycle().poll.outcomes == {"confirmed": 1}
    assert game_of(club, gid).plies == "e2e4"
    with club.store.session() as s:
        move = s.scalars(select(Move)).one()
        assert move.sent_at == arrived
    assert "1. e4" in body_of(black.inbox()[-1])  # relayed now
    assert holds(club) == [("confirmed", gid)]


def test_cancel_drops_the_held_mail(club: Club) -> None:
    """genuine: "cancel" / 取消 in reply to a confirmation request -> the held mail is dropped"""
    white, _black, gid = two_players(club)
    assert deliver(club, white.compose("resign", to=f"relay+{gid}@club.example",
                                       subject=f"[{gid}]")) == {"held": 1}
    assert deliver(club, white.compose("取消")) == {"hold_cancelled": 1}
    assert game_of(club, gid).status == "active"
    assert white.last()["X-Relaybot-Kind"] == "hold_cancelled"
    assert "> resign" in body_of(white.inbox()[-1])  # it quotes what was dropped
    # a second confirmation of the same hold is told it is gone, and applies nothing
    request = [c for c in club.mails_to(white.address)
               if c.parsed["X-Relaybot-Kind"] == "hold_request"][-1]
    again = white.compose("confirm", to=str(request.parsed["Reply-To"]),
                          subject="Re: confirm")
    assert deliver(club, again) == {"confirm_cancelled": 1}
    assert game_of(club, gid).status == "active"


def test_a_confirmation_from_anyone_else_confirms_nothing(club: Club) -> None:
    """forged confirmation: the opponent replies to the c. address (as himself or as the
    player, with a token he cannot have) -> nothing"""
    white, black, gid = two_players(club)
    assert deliver(club, forge(black, white, "resign", f"relay+{gid}@club.example",
                               f"[{gid}]")) == {"held": 1}
    request = [c for c in club.mails_to(white.address)
               if c.parsed["X-Relaybot-Kind"] == "hold_request"][-1]
    c_address = str(request.parsed["Reply-To"])
    assert deliver(club, black.compose("yes", to=c_address, subject="x")) == {
        "confirm_refused": 1}
    guessed = forge(black, white, "yes", "relay+c.aaaaaaaaaa@club.example", "x")
    assert deliver(club, guessed) == {"confirm_refused": 1}
    assert game_of(club, gid).status == "active"
    assert holds(club) == [("held", gid)]


def test_holds_lapse_after_seven_days(club: Club) -> None:
    """genuine but late: a confirmation after 7 days -> the hold has lapsed, nothing applied"""
    white, _black, gid = two_players(club)
    assert deliver(club, white.compose("1. e4", to=f"relay+{gid}@club.example",
                                       subject=f"[{gid}]")) == {"held": 1}
    reply = white.compose("yes")
    club.deliver(reply.as_bytes(), club.clock + timedelta(days=8))
    assert club.cycle().poll.outcomes == {"confirm_lapsed": 1}
    assert game_of(club, gid).plies == ""
    assert holds(club) == [("lapsed", gid)]


def test_an_authenticated_mail_supersedes_older_holds(club: Club) -> None:
    """forged move, then the player's own reply for the same game -> the hold lapses
    (superseded); confirming it later applies nothing"""
    white, black, gid = two_players(club)
    assert deliver(club, forge(black, white, "1. f3", f"relay+{gid}@club.example",
                               f"[{gid}]")) == {"held": 1}
    request = [c for c in club.mails_to(white.address)
               if c.parsed["X-Relaybot-Kind"] == "hold_request"][-1]
    assert deliver(club, white.compose("1. e4", to=white.game_address(gid),
                                       subject=f"[{gid}]")) == {"move": 1}
    assert holds(club) == [("superseded", gid)]
    late = white.compose("確認", to=str(request.parsed["Reply-To"]), subject="Re: confirm")
    assert deliver(club, late) == {"confirm_superseded": 1}
    assert game_of(club, gid).plies == "e2e4"


def test_a_td_command_word_in_a_players_prose_never_blocks_the_move(club: Club) -> None:
    """a line starting "answer"/"withdraw" in a player's move mail -> the move is played"""
    white, _black, _gid = two_players(club)
    white.send("Answer to your question: I'm fine.\n\n1. e4\n\nwithdraw? never!")
    assert club.cycle().poll.outcomes == {"move": 1}


def test_status_alone_is_answered_without_confirmation(club: Club) -> None:
    """a plain "status" mail from a member (no token) -> answered at once to the
    registered address; it changes nothing, so nothing is held"""
    white, _black, gid = two_players(club)
    msg = white.compose("status", to=RELAY, subject=f"[{gid}]")
    assert deliver(club, msg) == {"status": 1}
    assert holds(club) == []


def test_event_td_commands_its_games_and_only_its_games(club: Club) -> None:
    """the club's TD forfeits a game of an event with its own --td -> refused ("not yours");
    the event's TD (authenticated) ends it, and the result report goes to the event's TD"""
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    club.member("Chen, Li", "chen@example.org")
    club.member("Diaz, Ana", "diaz@example.org")
    club.cli("event", "new", "Spring", "--kind", "group", "--td", "etd@club.example",
             "--players", "sato@example.jp,brown@example.org,chen@example.org,diaz@example.org")
    club.cycle()
    with club.store.session() as s:
        game = s.scalars(select(Game).where(Game.event == "Spring").order_by(Game.id)).first()
        assert game is not None
        gid = game.id
    # the club's TD, authenticated by the member form issued to "td", is not this game's TD
    club_td = Player("TD", TD, club)
    m_token = issue(SECRET, "m", "td")
    msg = club_td.compose(f"forfeit {gid} white", to=f"relay+m.{m_token}@club.example",
                          subject="x")
    assert deliver(club, msg) == {"td_command": 1}
    assert game_of(club, gid).status == "active"
    assert "not yours" in body_of(club.mails_to(TD)[-1])
    # the event's TD, with a token issued to that address, ends it
    event_td = Player("TD", "etd@club.example", club)
    e_token = issue(SECRET, "m", "td:etd@club.example")
    msg = event_td.compose(f"forfeit {gid} white", to=f"relay+m.{e_token}@club.example",
                           subject="x")
    assert deliver(club, msg) == {"td_command": 1}
    assert game_of(club, gid).status == "finished"
    assert "td_result" in kinds(club, "etd@club.example")
    assert white.address and black.address


def test_a_td_does_not_decide_a_game_they_play_in(club: Club) -> None:
    """a TD who also plays forfeits, adjudicates or answers a question on their own game
    (authenticated) -> each refused ("one you play in"), the game goes on, and their reports
    on it say the operator decides; a game of two others they still decide, and the
    operator at the command line decides theirs"""
    td_player = club.member("Tanaka, Jiro", TD)
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(td_player, black)
    m_token = issue(SECRET, "m", "td")
    msg = td_player.compose(f"forfeit {gid} black\nadjudicate {gid} 1-0",
                            to=f"relay+m.{m_token}@club.example", subject="x")
    assert deliver(club, msg) == {"td_command": 1}
    assert game_of(club, gid).status == "active"
    confirmation = body_of(club.mails_to(TD)[-1])
    assert confirmation.count(f"game {gid} is one you play in") == 2
    assert "the club's operator can" in confirmation
    # the opponent's question reaches the TD saying the game is their own, and their
    # answer by mail is refused like any decision on it
    black.send("td: may I take back a move?", to=black.game_address(gid), subject=f"[{gid}]")
    club.cycle()
    [question] = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_question"]
    assert f"You play in game {gid} yourself" in body_of(question)
    with club.store.session() as s:
        qid = s.scalars(select(Question.id)).one()
    msg = td_player.compose(f"answer {qid}\nYes.", to=f"relay+m.{m_token}@club.example",
                            subject="x")
    assert deliver(club, msg) == {"td_command": 1}
    assert f"game {gid} is one you play in" in body_of(club.mails_to(TD)[-1])
    assert not any(c.parsed["X-Relaybot-Kind"] == "answer" for c in club.mails_to(black.address))
    # a game of two others stays the TD's to decide
    sato = club.member("Sato, Hanako", "sato@example.jp")
    chen = club.member("Chen, Li", "chen@example.org")
    other = club.game(sato, chen)
    msg = td_player.compose(f"forfeit {other} black", to=f"relay+m.{m_token}@club.example",
                            subject="x")
    assert deliver(club, msg) == {"td_command": 1}
    assert game_of(club, other).status == "finished"
    # the operator decides the TD's own game
    out = club.cli("td", "forfeit", gid, "black")
    assert "one you play in" not in out.stdout + out.stderr
    assert game_of(club, gid).status == "finished"


def test_a_members_other_address_is_theirs(club: Club) -> None:
    """genuine, from another registered address (--add-address) -> a reply to the member's
    token address acts; a plain mail from it is held, the request going to that address"""
    white, _black, gid = two_players(club)
    club.cli("member", "set", white.address, "--add-address", "sato.phone@example.jp")
    phone = Player("Sato, Hanako", "sato.phone@example.jp", club)
    msg = phone.compose("1. e4", to=white.game_address(gid), subject=f"Re: [{gid}]")
    assert deliver(club, msg) == {"move": 1}
    plain = phone.compose("resign", to=f"relay+{gid}@club.example", subject=f"[{gid}]")
    assert deliver(club, plain) == {"held": 1}
    assert club.mails_to("sato.phone@example.jp")[-1].parsed["X-Relaybot-Kind"] == "hold_request"
    assert game_of(club, gid).status == "active"
