"""The store on SQLite and on PostgreSQL alike: migrations, members, games, one mail
processed in one transaction, and the uniqueness that makes ingest idempotent (G2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from relaybot.app.service import Arrival, process_mail, start_mails
from relaybot.club.errors import AdminError
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.config import BotConfig, Config, DatabaseConfig, ImapConfig, SmtpConfig
from relaybot.store.db import Store, is_migrated, migrate
from relaybot.store.models import Game, Inbound, Move, Outbox

pytestmark = pytest.mark.integration
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def cfg_for(url: str) -> Config:
    return Config(database=DatabaseConfig(url=url),
                  bot=BotConfig(address="relay@club.example", timezone="Asia/Tokyo",
                                language="en", td="td@club.example",
                                secret="store-secret-for-tests-only",
                                authserv_id="mx.club.example"),
                  imap=ImapConfig("127.0.0.1", 1, "u", "p", "none", "INBOX"),
                  smtp=SmtpConfig("127.0.0.1", 1, "", "", "none"))


def mail(sender: str, gid: str, text: str, mid: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = f"relay+{gid}@club.example"
    msg["Subject"] = f"Re: [{gid}]"
    msg["Message-ID"] = f"<{mid}@example.org>"
    # our MTA vouches for the sender (issue 12: else the mail is held for confirmation)
    msg["Authentication-Results"] = (
        f"mx.club.example; dmarc=pass header.from={sender.rpartition('@')[2].strip('>')}")
    msg.set_content(text)
    return msg.as_bytes()


def setup_game(store: Store, cfg: Config) -> str:
    with store.session() as s:
        add_member(s, cfg, MemberInput("Sato, Hanako", "sato@example.jp"), T0)
        add_member(s, cfg, MemberInput("Brown, Tom", "brown@example.org"), T0)
        game = create_game(s, cfg, GameInput("sato@example.jp", "brown@example.org"), T0)
        start_mails(s, cfg, game, T0)
        return game.id


def test_migrations_are_idempotent(store: Store) -> None:
    migrate(store.engine)  # a second `relaybot init`
    assert is_migrated(store.engine)


def test_a_move_mail_is_one_transaction_and_applied_once(store: Store, db_url: str) -> None:
    cfg = cfg_for(db_url)
    gid = setup_game(store, cfg)
    raw = mail("sato@example.jp", gid, "1. e4", "m1")
    when = T0 + timedelta(hours=5)
    assert process_mail(store, cfg, Arrival(raw, when, "INBOX", 7, 1), when) == "move"
    # the same mail again, by UID and by Message-ID after a UIDVALIDITY change (G2)
    assert process_mail(store, cfg, Arrival(raw, when, "INBOX", 7, 1), when) == "duplicate"
    assert process_mail(store, cfg, Arrival(raw, when, "INBOX", 8, 1), when) == "duplicate"
    with store.session() as s:
        assert s.scalar(select(func.count(Move.id))) == 1
        assert s.scalar(select(func.count(Inbound.id))) == 1
        assert s.get(Game, gid).plies == "e2e4"  # type: ignore[union-attr]
        kinds = sorted(s.scalars(select(Outbox.kind)).all())
        assert kinds == ["ack", "move", "start", "start"]
        arrived = s.scalar(select(Move.sent_at))
        assert arrived == when  # stored and read back as aware UTC on both backends


def test_moves_are_unique_per_game_and_ply(store: Store, db_url: str) -> None:
    cfg = cfg_for(db_url)
    gid = setup_game(store, cfg)
    with pytest.raises(IntegrityError), store.session() as s:
        for uci in ("e2e4", "d2d4"):
            s.add(Move(game_id=gid, ply=0, canon=uci, text=uci, keys="", sent_at=T0))
            s.flush()
    with store.session() as s:
        assert s.scalar(select(func.count(Move.id))) == 0  # rolled back whole


def test_a_failed_mail_leaves_nothing_behind(store: Store, db_url: str) -> None:
    cfg = cfg_for(db_url)
    gid = setup_game(store, cfg)
    raw = mail("sato@example.jp", gid, "1. e4", "boom")
    import relaybot.pipeline.effects as effects

    real = effects.queue_mail
    effects.queue_mail = lambda *a, **k: (_ for _ in ()).throw(RuntimeError("disk full"))  # type: ignore[assignment]
    try:
        with pytest.raises(RuntimeError):
            process_mail(store, cfg, Arrival(raw, T0, "INBOX", 1, 9), T0)
    finally:
        effects.queue_mail = real  # type: ignore[assignment]
    with store.session() as s:
        assert s.scalar(select(func.count(Inbound.id))) == 0
        assert s.get(Game, gid).plies == ""  # type: ignore[union-attr]


def test_member_addresses_are_unique(store: Store, db_url: str) -> None:
    cfg = cfg_for(db_url)
    with store.session() as s:
        add_member(s, cfg, MemberInput("Sato, Hanako", "Sato@Example.jp"), T0)
    with pytest.raises(AdminError, match="already exists"), store.session() as s:
        add_member(s, cfg, MemberInput("Sato, H", "sato@example.jp"), T0)


def test_a_games_ledger_reads_back_in_one_query_on_both_databases(store: Store,
                                                                  db_url: str) -> None:
    """J5/J12/J13: the penalties and pauses the clocks are computed from, as stored."""
    from datetime import date

    from relaybot.club.daybooks import game_ledger
    from relaybot.club.gamefile import GameFile
    from relaybot.core.clocks import Pause
    from relaybot.store.models import GameEvent, Leave, Member, Question

    cfg = cfg_for(db_url)
    gid = setup_game(store, cfg)
    with store.session() as s:
        game = s.get(Game, gid)
        assert game is not None
        s.add_all([
            GameEvent(game_id=gid, at=T0 + timedelta(days=3), kind="penalty", colour=1, ply=3,
                      days=5, detail={"rule": "J5", "token": "Nf9"}),
            GameEvent(game_id=gid, at=T0, kind="draw_offer", colour=0, ply=2, days=0,
                      detail={}),
            Question(game_id=gid, colour=0, text="?", asked_at=T0 + timedelta(days=4),
                     answered_at=T0 + timedelta(days=6)),
            Question(game_id=gid, colour=1, text="??", asked_at=T0 + timedelta(days=8)),
            Leave(member_id=game.side1_id, first=date(2026, 4, 1), last=date(2026, 4, 10),
                  status="active", extra_days=0, announced_at=T0),
            Leave(member_id=game.side0_id, first=date(2026, 5, 1), last=date(2026, 5, 3),
                  status="refused", extra_days=0, announced_at=T0),
        ])
    with store.session() as s:
        game = s.get(Game, gid)
        assert game is not None
        white, black = s.get(Member, game.side0_id), s.get(Member, game.side1_id)
        assert white is not None and black is not None
        gf = GameFile(game, white, black, [], None)  # type: ignore[arg-type]
        penalties, pauses = game_ledger(s, gf)
        game.leave_allowed = 0
        _, no_leaves = game_ledger(s, gf)
    assert [(p.colour, p.days, p.reason, p.at) for p in penalties] == [
        (1, 5, "J5", T0 + timedelta(days=3))]
    # Tokyo days (both members' zone): asked on the 6th, answered on the 8th; open from 10th
    assert Pause(1, date(2026, 4, 1), date(2026, 4, 10), "leave") in pauses
    assert Pause(0, date(2026, 3, 6), date(2026, 3, 8), "question") in pauses
    assert Pause(1, date(2026, 3, 6), date(2026, 3, 8), "question") in pauses
    assert Pause(0, date(2026, 3, 10), None, "question") in pauses
    assert len(pauses) == 5 and pauses[0].reason == "leave"
    assert len(no_leaves) == 4 and all(p.reason == "question" for p in no_leaves)
