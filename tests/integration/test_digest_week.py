"""D1 as members want it (issue 15): one fixed weekday in each member's own time zone,
none without a game or an announcement, List-Unsubscribe with the ``digest off`` mailto
and RFC 8058's one-click link, and the ``digest off`` keyword by mail."""

from __future__ import annotations

import dataclasses
import email
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from relaybot.app.digest import digest_week, send_digests, sent_week
from relaybot.app.service import Arrival, process_mail
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.config import Config, DigestConfig
from relaybot.store.db import Store
from relaybot.store.models import Announcement, Game, Member, Outbox
from tests.sample_club import config

pytestmark = pytest.mark.integration

JOINED = datetime(2026, 11, 2, 3, 0, tzinfo=UTC)  # Monday in Tokyo, Sunday night in New York
TOKYO, NEW_YORK = "tokyo@example.jp", "ny@example.org"


def _club(store: Store, cfg: Config) -> None:
    with store.session() as s:
        add_member(s, cfg, MemberInput("山田, 太郎", TOKYO, lang="ja", tz="Asia/Tokyo"), JOINED)
        add_member(s, cfg, MemberInput("Smith, Ann", NEW_YORK, lang="en",
                                       tz="America/New_York"), JOINED)
        add_member(s, cfg, MemberInput("Idle, Ivan", "idle@example.org", lang="en",
                                       tz="Europe/London"), JOINED)
        create_game(s, cfg, GameInput(TOKYO, NEW_YORK), JOINED)


def _digests(store: Store) -> list[tuple[str, datetime, EmailMessage]]:
    with store.session() as s:
        rows = s.execute(select(Outbox.recipient, Outbox.created_at, Outbox.raw)
                         .where(Outbox.kind == "digest").order_by(Outbox.id)).all()
    out = []
    for to, at, raw in rows:
        msg = email.message_from_bytes(raw, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        out.append((to, at if at.tzinfo else at.replace(tzinfo=UTC), msg))
    return out


def test_d1_one_digest_a_week_on_the_weekday_in_each_members_zone(
        store: Store, db_url: str) -> None:
    cfg = config(db_url)
    _club(store, cfg)
    zones = {TOKYO: "Asia/Tokyo", NEW_YORK: "America/New_York"}
    # every three hours for two and a half weeks, as the scheduler would
    for hour in range(0, 18 * 24, 3):
        send_digests(store, cfg, JOINED + timedelta(hours=hour))
    sent = _digests(store)
    by = {a: [at.astimezone(ZoneInfo(zones[a])) for to, at, _ in sent if to == a] for a in zones}
    for address, days in by.items():
        # a Monday each, one per week; New York joined on Sunday the 1st, local time,
        # and got nothing that Sunday: its first digest came the next day
        assert [d.weekday() for d in days] == [0] * len(days), address
        assert len({digest_week(d, zones[address], 0) for d in days}) == len(days)
    assert [d.date().isoformat() for d in by[TOKYO]] == ["2026-11-02", "2026-11-09",
                                                         "2026-11-16"]
    assert [d.date().isoformat() for d in by[NEW_YORK]] == ["2026-11-02", "2026-11-09",
                                                            "2026-11-16"]
    # no game, no announcement: nothing for the idle member, ever
    assert not [to for to, _, _ in sent if to == "idle@example.org"]


def test_d1_the_weekday_is_a_setting_and_a_missed_one_is_caught_up(
        store: Store, db_url: str) -> None:
    cfg = dataclasses.replace(config(db_url), digest=DigestConfig(weekday="friday"))
    _club(store, cfg)
    friday = datetime(2026, 11, 6, 1, 0, tzinfo=UTC)  # Friday 10:00 in Tokyo
    assert send_digests(store, cfg, friday - timedelta(days=1)) == 0  # Thursday: not yet
    assert send_digests(store, cfg, friday) == 1  # Tokyo's Friday
    # the bot was down all of the next Friday: caught up on Saturday, once
    assert send_digests(store, cfg, friday + timedelta(days=8)) == 2
    assert send_digests(store, cfg, friday + timedelta(days=8, hours=6)) == 0
    with store.session() as s:
        weeks = {m.email: m.last_digest_week for m in s.scalars(select(Member))}
    assert weeks[TOKYO] == "2026-11-13"  # the Friday that started the week
    assert sent_week("2026-W47") == sent_week("2026-11-16")  # rows written before issue 15


def test_d1_an_announcement_reaches_a_member_without_games(store: Store, db_url: str) -> None:
    cfg = config(db_url)
    _club(store, cfg)
    monday = datetime(2026, 11, 9, 12, 0, tzinfo=UTC)
    with store.session() as s:
        s.add(Announcement(text="Club meeting on Sunday", created_at=monday))
    send_digests(store, cfg, monday + timedelta(hours=1))
    idle = [msg for to, _, msg in _digests(store) if to == "idle@example.org"]
    assert len(idle) == 1
    body = idle[0].get_body(preferencelist=("plain",))
    assert body is not None and "Club meeting on Sunday" in body.get_content()
    assert "Dear Ivan Idle," in body.get_content()


def test_d1_list_unsubscribe_mailto_and_one_click_and_the_digest_off_keyword(
        store: Store, db_url: str) -> None:
    """The digest's unsubscribe mailto stops it with the ``digest off`` keyword; the reply
    says how to have it again, and ``ダイジェスト再開`` from the member's own reply address
    (not the unsubscribe address) brings it back."""
    cfg = config(db_url)
    _club(store, cfg)
    monday = datetime(2026, 11, 9, 12, 0, tzinfo=UTC)
    send_digests(store, cfg, monday)
    (_, _, msg), = [d for d in _digests(store) if d[0] == TOKYO]
    header = str(msg["List-Unsubscribe"])
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    with store.session() as s:
        member_id = s.scalar(select(Member.id).where(Member.email == TOKYO))
    assert f"<https://chess.club.example/unsubscribe/{member_id}/" in header
    mailto = header.split("<mailto:")[1].split("?")[0]
    # the unsubscribe address (u.) stops the digest and nothing else: digests are
    # forwarded, so it is not the member's m. address (issue 22)
    assert mailto.startswith("relay+u.") and mailto != str(msg["Reply-To"].addresses[0].addr_spec)
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None and "ダイジェスト停止" in body.get_content()
    assert f"https://chess.club.example/players/{member_id}/calendar.ics" in body.get_content()
    # the member's page opens in the member's language (TOKYO reads Japanese)
    assert f"https://chess.club.example/players/{member_id}?lang=ja\r\n" in body.get_content()
    # what the mail client sends for the mailto: the keyword, to the unsubscribe address
    reply = EmailMessage()
    reply["From"], reply["To"], reply["Subject"] = TOKYO, mailto, "digest off"
    reply["Message-ID"] = "<unsub1@example.jp>"
    reply.set_content("digest off\n")
    now = monday + timedelta(hours=1)
    assert process_mail(store, cfg, Arrival(reply.as_bytes(), now, "INBOX", 1, 1), now) \
        == "digest_off"
    with store.session() as s:
        member = s.scalar(select(Member).where(Member.email == TOKYO))
        assert member is not None and member.digest == "off"
        told = s.scalar(select(Outbox.raw).where(Outbox.kind == "digest_off"))
    assert told is not None
    said = email.message_from_bytes(told, policy=policy.default)
    assert isinstance(said, EmailMessage)
    text = said.get_body(preferencelist=("plain",))
    assert text is not None and text.get_content().startswith("山田太郎様")
    assert "「ダイジェスト再開」とだけ書いた行" in text.get_content()  # the way back
    assert send_digests(store, cfg, monday + timedelta(days=7)) == 1  # New York's only
    # the way back: "ダイジェスト再開" to the unsubscribe address proves nothing more than
    # "stop" (held, the member asked); to the member's own reply address it acts
    again = EmailMessage()
    again["From"], again["To"], again["Subject"] = TOKYO, mailto, "Re: digest"
    again["Message-ID"] = "<unsub2@example.jp>"
    again.set_content("ダイジェスト再開\n")
    later = monday + timedelta(days=8)
    assert process_mail(store, cfg, Arrival(again.as_bytes(), later, "INBOX", 1, 2),
                        later) != "digest_on"
    del again["To"], again["Message-ID"]
    again["To"], again["Message-ID"] = str(msg["Reply-To"]), "<on@example.jp>"
    assert process_mail(store, cfg, Arrival(again.as_bytes(), later, "INBOX", 1, 3),
                        later) == "digest_on"
    with store.session() as s:
        member = s.scalar(select(Member).where(Member.email == TOKYO))
        assert member is not None and member.digest == "weekly"
        on = s.scalar(select(Outbox.raw).where(Outbox.kind == "digest_on"))
    assert on is not None
    assert str(email.message_from_bytes(on, policy=policy.default)["Subject"]) \
        == "週刊ダイジェストを再開しました"
    assert send_digests(store, cfg, monday + timedelta(days=14)) == 2  # Tokyo's again


def _mail(store: Store, cfg: Config, sender: str, game_id: str, text: str, uid: int,
          arrived: datetime, handled: datetime) -> str:
    """``sender``'s reply in the game, to their own reply-token address, that reached our
    mailbox at ``arrived`` (INTERNALDATE) and was handled at ``handled``."""
    from relaybot.mail.queue import Recipient
    from relaybot.pipeline.effects import reply_address

    with store.session() as s:
        member = s.scalars(select(Member).where(Member.email == sender)).one()
        to = reply_address(cfg, Recipient(member.name, member.email, member.id), game_id)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, f"Re: [{game_id}]"
    msg["Message-ID"] = f"<late{uid}@example.org>"
    msg.set_content(text)
    return process_mail(store, cfg, Arrival(msg.as_bytes(), arrived, "INBOX", 1, uid), handled)


def test_d1_a_result_recorded_after_the_weeks_digest_is_in_the_next_one_once(
        store: Store, db_url: str) -> None:
    """D1 (the week's results, never none): a game that ends with an end date before the
    last digest went out (the resignation reached the mailbox on Sunday, the bot handled
    it on Tuesday; a season's end decided after downtime) is reported in the next digest,
    with the rating change, and not again in the one after."""
    cfg = config(db_url)
    _club(store, cfg)
    with store.session() as s:
        (game_id,) = s.scalars(select(Game.id)).all()
    first = _mail(store, cfg, TOKYO, game_id, "1. e4", 1, JOINED + timedelta(days=1),
                  JOINED + timedelta(days=1))
    assert first == "move"
    monday = datetime(2026, 11, 9, 12, 0, tzinfo=UTC)  # Monday in Tokyo and New York
    sunday = monday - timedelta(days=1)
    send_digests(store, cfg, monday)
    # New York's resignation reached the mailbox on Sunday; the bot handled it Tuesday
    assert _mail(store, cfg, NEW_YORK, game_id, "1. e4\nresign", 2, sunday,
                 monday + timedelta(days=1)) != "held"
    with store.session() as s:
        game = s.get(Game, game_id)
        assert game is not None and game.status == "finished"
        assert game.end_date is not None and game.end_date < monday.date()
    send_digests(store, cfg, monday + timedelta(days=7))
    later = {to: msg for to, at, msg in _digests(store) if at > monday}
    ja_body = later[TOKYO].get_body(preferencelist=("plain",))
    en_body = later[NEW_YORK].get_body(preferencelist=("plain",))
    assert ja_body is not None and en_body is not None
    ja = ja_body.get_content().replace("\r\n", "\n")
    en = en_body.get_content().replace("\r\n", "\n")
    assert "今週の結果:\n  山田太郎 - Ann Smith 1-0\n" in ja and "レーティング（チェス）:" in ja
    assert "Results this week:\n  山田太郎 - Ann Smith 1-0\n" in en
    assert "Your rating (chess):" in en
    # reported once: the week after, nothing is left to tell either of them
    assert send_digests(store, cfg, monday + timedelta(days=14)) == 0


def test_d1_an_announcement_made_while_the_bot_was_down_is_not_lost(
        store: Store, db_url: str) -> None:
    """D1 (announcements, never none after downtime): an announcement made the day after
    a digest, while the bot then stayed down for more than a week, is in each member's
    caught-up digest (the idle member's too), and in no later one."""
    cfg = config(db_url)
    _club(store, cfg)
    monday = datetime(2026, 11, 9, 12, 0, tzinfo=UTC)
    send_digests(store, cfg, monday)
    with store.session() as s:
        s.add(Announcement(text="Club meeting on Sunday", created_at=monday + timedelta(days=1)))
    caught_up = monday + timedelta(days=9)  # Wednesday of the next week
    assert send_digests(store, cfg, caught_up) == 3

    def told(since: datetime) -> set[str]:
        return {to for to, at, msg in _digests(store) if at >= since
                and "Club meeting on Sunday" in str(msg.get_body(
                    preferencelist=("plain",)).get_content())}  # type: ignore[union-attr]

    assert told(caught_up) == {TOKYO, NEW_YORK, "idle@example.org"}
    week_after = monday + timedelta(days=14)
    send_digests(store, cfg, week_after)
    assert told(week_after) == set()


def test_d1_t5_a_finished_events_standings_are_in_one_digest_not_every_week(
        store: Store, db_url: str) -> None:
    """D1/T5 (standings of their events): a match's table is in the digest while it is
    played and in the week its last game ends; after that the event is over and its
    players' digests (an announcement still brings one) no longer carry it."""
    from relaybot.app.service import start_mails
    from relaybot.club.tournaments import EventInput, create_event
    from relaybot.pipeline.td import run_commands

    cfg = config(db_url)
    _club(store, cfg)
    with store.session() as s:
        games = create_event(s, cfg, EventInput("Club Match", "match", [TOKYO, NEW_YORK]),
                             JOINED)
        for game in games:
            start_mails(s, cfg, game, JOINED)
        ids = [g.id for g in games]
    monday = datetime(2026, 11, 9, 12, 0, tzinfo=UTC)

    def standings_in(at: datetime) -> dict[str, bool]:
        return {to: "Club Match" in str(msg.get_body(preferencelist=("plain",))
                                         .get_content())  # type: ignore[union-attr]
                for to, sent, msg in _digests(store) if sent >= at}

    send_digests(store, cfg, monday)
    assert standings_in(monday) == {TOKYO: True, NEW_YORK: True}  # being played
    with store.session() as s:
        for gid in ids:
            run_commands(s, cfg, f"adjudicate {gid} 1-0", monday + timedelta(days=2))
    send_digests(store, cfg, monday + timedelta(days=7))
    assert standings_in(monday + timedelta(days=7)) == {TOKYO: True, NEW_YORK: True}
    with store.session() as s:
        s.add(Announcement(text="Club meeting on Sunday",
                           created_at=monday + timedelta(days=8)))
    send_digests(store, cfg, monday + timedelta(days=14))
    assert standings_in(monday + timedelta(days=14)) == {
        TOKYO: False, NEW_YORK: False, "idle@example.org": False}
