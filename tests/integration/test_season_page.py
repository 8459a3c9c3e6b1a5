"""Issue 24 item 9: where the league's players look. The season page on the web (its
classes, standings and crosstables, the promotion and relegation marks, the titles) in
both languages, and the member's class standing in the weekly digest."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from relaybot.app.digest import send_digests
from relaybot.app.season_end import end_seasons
from relaybot.club.season_book import find_season, season_games
from relaybot.pipeline.lifecycle import record_event
from relaybot.store.db import Store
from relaybot.store.models import Member, Outbox
from relaybot.web import create_app
from tests.integration.test_seasons import END, _season, _win
from tests.integration.test_store import cfg_for
from tests.sample_club import SampleClub, build

pytestmark = pytest.mark.integration


def _number(email: str) -> int:
    return int(email[1:].split("@")[0])


def _first_listed_wins(store: Store) -> None:
    """Every game of 第2期 but one of S won by the player listed first in the class."""
    with store.session() as s:
        by_id = {m.id: m.email for m in s.scalars(select(Member))}
        for g in season_games(s, find_season(s, "第2期")):
            a, b = by_id[g.side0_id], by_id[g.side1_id]
            if {a, b} == {"s7@example.jp", "s8@example.jp"}:
                continue  # still played at the digest
            _win(g, 0 if _number(a) < _number(b) else 1)
            # the result's ledger line, as every game's end writes it (the digest reports
            # the results recorded since the member's previous digest)
            record_event(s, g, datetime(2027, 3, 1, tzinfo=UTC), "result", None, 40,
                         detail={"result": g.result, "termination": g.termination})


def test_rule13_rule19_the_season_page_shows_classes_marks_and_the_meijin(
        store: Store, db_url: str) -> None:
    """Rule 13 「S級の優勝者に名人の称号を与える」; rule 19 「途中経過を確認していくため」: the
    page of 第2期 lists S, A and B with their crosstables; once the season has ended, the
    promoted (↑) and relegated (↓) and 名人 s1, in English and in Japanese, and no
    address of anyone."""
    _season(store, db_url)
    _first_listed_wins(store)
    cfg = cfg_for(db_url)
    web = TestClient(create_app(cfg, store, clock=lambda: END))
    path = "/seasons/" + quote("第2期", safe="")
    running = web.get(path, params={"lang": "en"}).text
    assert "Class S" in running and "Class B" in running and "↓" not in running
    with store.session() as s:
        end_seasons(s, cfg, END)
    en = web.get(path, params={"lang": "en"}).text
    ja = web.get(path, params={"lang": "ja"}).text
    for page in (en, ja):
        assert "@" not in page
        assert page.count(" ↑</th>") == 6 and page.count(" ↓</th>") == 6  # S, A: 3 each
    # the title by its name, which an English reader is told in English too
    assert '<p class="titles">名人：' in ja
    assert '<p class="titles">Meijin (名人): ' in en
    assert "promoted" in en and "relegated" in en and "S級" in ja and "昇級" in ja
    assert "○" in ja and "●" in ja
    assert web.get("/seasons/" + quote("第9期", safe="")).status_code == 404


def test_rule19_the_digest_gives_the_members_place_in_their_class(
        store: Store, db_url: str) -> None:
    """Rule 19 「途中経過を確認していくため」: the weekly digest of a league player says
    where they stand in their class (s1 first of 8 with 7 wins; a2, who reads English,
    second of A), in the member's language."""
    _season(store, db_url)
    _first_listed_wins(store)
    cfg = cfg_for(db_url)
    with store.session() as s:
        a2 = s.scalars(select(Member).where(Member.email == "a2@example.jp")).one()
        a2.lang = "en"
    send_digests(store, cfg, datetime(2027, 3, 1, 1, tzinfo=UTC), force=True)
    with store.session() as s:
        rows = {r.recipient: r.raw.decode("utf-8", "replace") for r in s.scalars(
            select(Outbox).where(Outbox.kind == "digest"))}
    import email
    from email import policy

    def text(raw: str) -> str:
        msg = email.message_from_string(raw, policy=policy.default)
        return str(msg.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]

    assert "あなたは S級 8人中 1位（7勝 0敗）です。" in text(rows["s1@example.jp"])
    assert "You are 2nd of 8 in class A (6 won, 1 lost)." in text(rows["a2@example.jp"])
    assert "S級 8人中 7位" in text(rows["s7@example.jp"])


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SampleClub]:
    """The sample club with its season 第2期 played to the end (one class of eight:
    members who read Japanese and English, 鈴木一郎 registered as "Suzuki, Ichiro")."""
    from tests.sample_club import _season

    club = build(Path(tmp_path_factory.mktemp("league")))
    _season(club)
    yield club
    club.store.dispose()


def _class_rows(page: str) -> list[str]:
    return re.findall(r'<tr>\n<td class="num">\d+</td>.*?</tr>', page, re.S)


def test_t3_season_and_class_pages_write_each_name_as_the_reader_does(
        league: SampleClub) -> None:
    """A Japanese reader sees 鈴木一郎 (his name in Japanese script) and Ann Smith (an
    English reader keeps her own order) on the season page and its class's page, as on
    every other page; never the stored "Smith, Ann" turned round to "Smith Ann"."""
    web = TestClient(create_app(league.cfg, league.store, clock=lambda: league.now))
    season = web.get("/seasons/" + quote("第2期", safe=""), params={"lang": "ja"}).text
    event = web.get("/events/" + quote("第2期S級", safe=""), params={"lang": "ja"}).text
    for page in (season, event):
        assert ">鈴木一郎</a>" in page and ">Ann Smith</a>" in page
        assert "Smith Ann" not in page and "Suzuki Ichiro" not in page
    en = web.get("/seasons/" + quote("第2期", safe=""), params={"lang": "en"}).text
    assert ">Ichiro Suzuki</a>" in en and ">山田太郎</a>" in en
    # the legend glosses the league's drawn results for an English reader
    assert "△ a draw by repetition (千日手) or impasse (持将棋), half a win" in en


def test_t3_rule18_every_player_of_a_class_shows_their_starting_order(
        league: SampleClub) -> None:
    """Rule 18 ranks equal wins by the starting order (順位): the season page gives every
    player theirs, 1 to 8, in both languages, and the class's event page fills its
    tie-break columns (starting order, SB and median over the opponents beaten)."""
    web = TestClient(create_app(league.cfg, league.store, clock=lambda: league.now))
    for lang in ("en", "ja"):
        page = web.get("/seasons/" + quote("第2期", safe=""), params={"lang": lang}).text
        rows = _class_rows(page)
        orders = [re.findall(r'<td class="num">(\d*)</td>', r)[1] for r in rows]
        assert sorted(orders, key=int) == [str(n) for n in range(1, 9)], (lang, orders)
    event = web.get("/events/" + quote("第2期S級", safe=""), params={"lang": "en"}).text
    head = re.search(r"<tr><th scope=\"col\" class=\"num\">Rank</th>.*?</tr>", event).group(0)
    titles = re.findall(r">([^<>]+)</th>", head)
    tail = titles[titles.index("Start order"):]  # the tie-break columns, last in a row
    shown = [dict(zip(tail, re.findall(r'<td class="num">([^<]*)</td>', row)[-len(tail):],
                      strict=True))
             for row in re.findall(r'<tr>\n<td class="num rank">\d+=?</td>.*?</tr>', event,
                                   re.S)]
    assert len(shown) == 8
    for column in ("Start order", "Entry order"):
        assert sorted(int(r[column]) for r in shown) == list(range(1, 9)), column
    for column in ("SB (opponents beaten)", "Median (opponents beaten)"):
        assert all(r[column] != "–" for r in shown), column


def test_t3_a_season_is_found_from_the_front_page_and_from_its_classes(
        league: SampleClub) -> None:
    """A member reaches the season's page (its classes, the promotions, the 名人) from the
    front page, and a class's event page names its season and links back to it."""
    web = TestClient(create_app(league.cfg, league.store, clock=lambda: league.now))
    link = 'href="/seasons/' + quote("第2期") + '"'
    home = web.get("/", params={"lang": "ja"}).text
    assert "<h2>将棋ネット順位戦</h2>" in home and link in home
    assert "<h2>Seasons of the shogi league</h2>" in web.get("/", params={"lang": "en"}).text
    event = web.get("/events/" + quote("第2期S級", safe=""), params={"lang": "en"}).text
    assert f'Class S of <a {link}>第2期</a>' in event
    assert web.get(link.split('"')[1]).status_code == 200
    row = next(r for r in home.split("<tr>") if link in r)
    assert "<td>終了</td>" in row  # the season has ended
    from relaybot.store.models import Season
    from relaybot.web.data import home as home_data

    with league.store.session() as s:  # the day before a season starts: not yet begun
        season = s.scalars(select(Season)).one()
        ended, season.ended_at = season.ended_at, None
        eve = datetime.combine(season.start_date, time(12), UTC) - timedelta(days=1)
        listed = home_data(s, "en", eve)["seasons"][0]
        assert listed["upcoming"] and not listed["ended"]
        season.ended_at = ended


def test_a_finished_events_games_table_has_no_empty_turn_columns(
        league: SampleClub) -> None:
    """Once every game of an event has ended, its games table drops the columns of whose
    move it is and the last day to reply (empty for every game, they squeezed the
    results into one character a line on a phone); an event still being played keeps
    them beside its results."""
    web = TestClient(create_app(league.cfg, league.store, clock=lambda: league.now))
    ended = web.get("/events/" + quote("第2期S級", safe=""), params={"lang": "ja"}).text
    table = ended.split('<table class="games">')[1].split("</table>")[0]
    assert ">結果</th>" in table and ">手番</th>" not in table and ">返信の期限</th>" not in table
    playing = web.get("/events/" + quote("Kanto Cup 2026/A"), params={"lang": "en"}).text
    table = playing.split('<table class="games">')[1].split("</table>")[0]
    assert ">To move</th>" in table and ">Result</th>" in table
