"""Each kind of mail a player (or a stranger, or a robot) sends, end to end:
Dovecot in, the SMTP sink out, the store in between (J1-J5, G2, G7, G12)."""

from __future__ import annotations

from email.header import Header
from email.mime.text import MIMEText

import pytest
from sqlalchemy import select

from relaybot.store.models import Game, GameEvent, Inbound, Move
from tests.integration.relay_harness import RELAY, Club, Player, authenticated_by_mta, body_of

pytestmark = pytest.mark.integration


def two_players(club: Club, **kw: object) -> tuple[Player, Player, str]:
    white = club.member("Sato, Hanako", "sato@example.jp", lang=str(kw.pop("wlang", "en")))
    black = club.member("Brown, Tom", "brown@example.org")
    return white, black, club.game(white, black, **kw)


def plies(club: Club, game_id: str) -> list[str]:
    with club.store.session() as s:
        game = s.get(Game, game_id)
        assert game is not None
        return game.plies.split()


def play(club: Club, white: Player, black: Player, moves: list[str]) -> None:
    """Play numbered moves by mail, each mail with the whole game so far."""
    record: list[str] = []
    for i, move in enumerate(moves):
        record.append(f"{i // 2 + 1}. {move}" if i % 2 == 0 else move)
        (white if i % 2 == 0 else black).send(" ".join(record))
        report = club.cycle()
        assert report.poll.outcomes == {"move": 1}, (move, report)


def test_j1_sync_error_applies_nothing_and_marks_the_ply(club: Club) -> None:
    white, black, gid = two_players(club)
    play(club, white, black, ["e4", "e5"])
    before_black = len(black.inbox())
    white.send("1. e4 c5 2. Nf3")
    club.cycle()
    assert plies(club, gid) == ["e2e4", "e7e5"]
    reply = body_of(white.inbox()[-1])
    assert "1... c5" in reply or '"c5"' in reply
    assert "1... e5" in reply  # the record's move at the first differing ply
    assert len(black.inbox()) == before_black  # nothing relayed


def test_j5_illegal_and_ambiguous_moves_cost_five_days(club: Club) -> None:
    white, black, gid = two_players(club)
    play(club, white, black, ["Nf3", "Nf6", "d3", "d6"])
    white.send("1. Nf3 Nf6 2. d3 d6 3. Ke3")
    club.cycle()
    assert "not a legal move" in body_of(white.inbox()[-1])
    white.send("1. Nf3 Nf6 2. d3 d6 3. Nd2")
    club.cycle()
    reply = body_of(white.inbox()[-1])
    assert "ambiguous" in reply and "Nbd2" in reply
    with club.store.session() as s:
        penalties = s.scalars(select(GameEvent).where(
            GameEvent.game_id == gid, GameEvent.kind == "penalty")).all()
        assert [(p.colour, p.days) for p in penalties] == [(0, 5), (0, 5)]
    white.send("1. Nf3 Nf6 2. d3 d6 3. Nbd2")
    club.cycle()
    assert plies(club, gid)[-1] == "b1d2"


def test_j4_seed_001_ne2_is_not_ambiguous(club: Club) -> None:
    white, black, gid = two_players(club)
    play(club, white, black, ["e4", "e5", "Nc3", "Nf6", "d3", "Bb4", "Ne2"])
    assert plies(club, gid)[-1] == "g1e2"


def test_j3_numeric_castling_en_passant_and_promotion(club: Club) -> None:
    white, black, gid = two_players(club, notation="numeric")
    moves = ("4244 7866 4445 3735 4536 4815 2133 1526 7163 2836 5253 4746 6152 3874 "
             "5171 5838").split()
    play(club, white, black, moves)
    got = plies(club, gid)
    assert got[4] == "d5c6"  # 4536 = dxc6 e.p.
    assert got[-2:] == ["e1g1", "e8c8"]  # 5171, 5838
    # the opponent reads the game in numeric notation (J3)
    assert "7. 6152 3874 8. 5171 5838" in body_of(white.inbox()[-1])

    a = club.member("Ito, Ken", "ito@example.jp")
    b = club.member("Klein, Eva", "klein@example.de")
    gid2 = club.game(a, b, notation="numeric")
    play(club, a, b, "5254 6765 5465 5867 6566 6776 6657 7866 57581".split())
    assert plies(club, gid2)[-1] == "e7e8q"


def test_j2_fullwidth_input_is_read_and_the_reply_says_so(club: Club) -> None:
    white, black, gid = two_players(club, wlang="ja")
    white.send("よろしくお願いします。\n１．ｅ４")
    club.cycle()
    assert plies(club, gid) == ["e2e4"]
    assert "全角" in body_of(white.inbox()[-1])
    assert "1. e4" in body_of(black.inbox()[-1])


def test_iso_2022_jp_mail_from_a_japanese_client(club: Club) -> None:
    _white, black, gid = two_players(club, wlang="ja")
    text = "黒木様\n\nよろしくお願いいたします。\n\n1. e4\n\n佐藤花子\n"
    msg = MIMEText(text, "plain", "iso-2022-jp")
    msg["From"] = "=?ISO-2022-JP?B?GyRCOjRGIzJWO1IbKEI=?= <sato@example.jp>"
    msg["To"] = club.token_address("sato@example.jp", gid)
    msg["Subject"] = Header(f"Re: [{gid}] 対局開始", "iso-2022-jp").encode()
    msg["Message-ID"] = "<jis-1@example.jp>"
    msg["X-Mailer"] = "Microsoft Outlook 16.0"
    raw = msg.as_bytes()
    assert b"\x1b$B" in raw  # really JIS-encoded on the wire
    club.deliver(raw)
    club.cycle()
    assert plies(club, gid) == ["e2e4"]
    assert "よろしくお願いいたします" in body_of(black.inbox()[-1])


def test_html_only_mail(club: Club) -> None:
    _white, _black, gid = two_players(club)
    msg = MIMEText("<html><body><p>Hi Tom,</p><p>1. d4</p>"
                   "<blockquote>1. e4 (old quoted text)</blockquote></body></html>",
                   "html", "utf-8")
    msg["From"] = "Sato, Hanako <sato@example.jp>".replace("Sato, Hanako", '"Sato, Hanako"')
    msg["To"] = club.token_address("sato@example.jp", gid)
    msg["Subject"] = f"Re: [{gid}] move"
    msg["Message-ID"] = "<html-1@example.jp>"
    club.deliver(msg.as_bytes())
    club.cycle()
    assert plies(club, gid) == ["d2d4"]


def test_g12_strangers_get_no_reply_at_all(club: Club) -> None:
    _white, _black, gid = two_players(club)
    sent = len(club.sink.captured)
    msg = MIMEText("1. e4")
    msg["From"] = "mallory@evil.example"
    msg["To"] = f"relay+{gid}@club.example"
    msg["Subject"] = f"[{gid}]"
    msg["Message-ID"] = "<stranger-1@evil.example>"
    club.deliver(msg.as_bytes())
    report = club.cycle()
    assert report.poll.outcomes == {"stranger": 1}
    assert len(club.sink.captured) == sent
    assert plies(club, gid) == []
    # the mail is kept (J19) and left INBOX (G1)
    assert club.account.uids("INBOX") == []
    with club.store.session() as s:
        assert s.scalar(select(Inbound.outcome).where(
            Inbound.message_id == "stranger-1@evil.example")) == "stranger"


def test_g12_reply_to_never_decides_identity(club: Club) -> None:
    _white, black, gid = two_players(club)
    msg = black.compose("1. e4")  # Black tries to move for White, From is Black's
    msg["Reply-To"] = "sato@example.jp"
    club.deliver(msg.as_bytes())
    club.cycle()
    assert plies(club, gid) == []
    assert "not your move" in body_of(black.inbox()[-1])


def test_g7_no_reply_to_an_auto_reply(club: Club) -> None:
    white, _black, _gid = two_players(club)
    sent = len(club.sink.captured)
    msg = white.compose("I am out of the office until Monday.")
    msg["Auto-Submitted"] = "auto-replied"
    club.deliver(msg.as_bytes())
    report = club.cycle()
    assert report.poll.outcomes == {"automated": 1}
    assert len(club.sink.captured) == sent


def test_g2_the_same_mail_delivered_twice_is_applied_once(club: Club) -> None:
    white, black, gid = two_players(club)
    raw = white.compose("1. e4").as_bytes()
    club.deliver(raw)
    club.deliver(raw)
    report = club.cycle()
    assert report.poll.outcomes == {"move": 1, "duplicate": 1}
    assert plies(club, gid) == ["e2e4"]
    assert len([c for c in black.inbox() if "1. e4" in body_of(c)]) == 1
    assert club.account.uids("INBOX") == []


def test_g1_crash_between_commit_and_move_processes_the_mail_once(club: Club) -> None:
    white, black, gid = two_players(club)
    white.send("1. e4")
    now = club.clock.isoformat()
    crashed = club.cli("run", "--once", "--now", now,
                       extra_env={"RELAYBOT_FAULT_AT": "after_commit"}, check=False)
    assert crashed.returncode == 137
    assert len(club.account.uids("INBOX")) == 1  # committed, but still in INBOX
    club.cli("run", "--once", "--now", now)
    assert club.account.uids("INBOX") == []
    assert len(club.account.uids("Processed")) == 1
    with club.store.session() as s:
        assert len(s.scalars(select(Move).where(Move.game_id == gid)).all()) == 1
        assert s.scalar(select(Inbound.outcome)) == "move"
    forwards = [c for c in black.inbox() if "1. e4" in body_of(c)]
    assert len(forwards) == 1


def test_subject_tag_identifies_the_game_without_a_plus_address(club: Club) -> None:
    white, _black, gid = two_players(club)
    # to the bare address, proven by our MTA's dmarc=pass (the m. token's scope holds no
    # moves, issue 22): the subject tag names the game
    raw = white.compose("1. c4", to=RELAY, subject=f"Re: [{gid}] my move").as_bytes()
    club.deliver(authenticated_by_mta(raw, "example.jp"))
    club.cycle()
    assert plies(club, gid) == ["c2c4"]


def test_outgoing_mail_is_threaded_and_marked_automatic(club: Club) -> None:
    white, black, gid = two_players(club)
    raw = white.compose("1. e4")
    club.deliver(raw.as_bytes())
    club.cycle()
    ack = white.last()
    assert ack["In-Reply-To"] == raw["Message-ID"]
    assert ack["Auto-Submitted"] == "auto-replied"
    forward = black.last()
    assert forward["Auto-Submitted"] == "auto-generated"
    # replies go to the game's address, with the reply token issued to Black (issue 12)
    reply_to = forward["Reply-To"].addresses[0].addr_spec
    assert reply_to.startswith(f"relay+{gid}.") and reply_to.endswith("@club.example")
    assert str(forward["Message-ID"]).endswith("@club.example>")
    assert forward["In-Reply-To"]
