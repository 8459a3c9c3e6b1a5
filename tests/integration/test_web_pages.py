"""``relaybot web`` through Starlette's TestClient (issue 15): every page kind in both
languages, the board from either side, the record download, the calendar feed, the
one-click unsubscribe, and no mail address of anyone on any page (INTERFACE.md)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from icalendar import Calendar
from sqlalchemy import select
from starlette.testclient import TestClient

from relaybot.store.models import Game, Member
from relaybot.views import unsubscribe_path
from relaybot.web import create_app
from tests.sample_club import EMAILS, EVENT, SampleClub, build

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SampleClub]:
    built = build(tmp_path_factory.mktemp("web"))
    yield built
    built.store.dispose()


@pytest.fixture
def web(club: SampleClub) -> TestClient:
    return TestClient(create_app(club.cfg, club.store, clock=lambda: club.now))


def _no_address(html: str) -> None:
    for email in EMAILS:
        assert email not in html
    assert "@" not in html  # nobody's address, not even the bot's


def _pages(club: SampleClub) -> list[str]:
    return ["/", f"/games/{club.games[0]}", f"/games/{club.games[1]}",
            f"/events/{quote(EVENT, safe='')}", f"/players/{club.members[EMAILS[0]]}"]


def test_every_page_in_english_and_japanese_without_an_address(
        club: SampleClub, web: TestClient) -> None:
    for path in _pages(club):
        for lang in ("en", "ja"):
            page = web.get(path, params={"lang": lang})
            assert page.status_code == 200, path
            assert page.headers["content-language"] == lang
            _no_address(page.text)


def test_home_lists_events_and_games_with_names_as_each_language_writes_them(
        club: SampleClub, web: TestClient) -> None:
    en = web.get("/", headers={"Accept-Language": "en-GB,en;q=0.9,ja;q=0.5"}).text
    assert "Events" in en and EVENT in en and "Ann Smith" in en and "山田太郎" in en
    assert "Smith, Ann" not in en
    ja = web.get("/", headers={"Accept-Language": "ja,en;q=0.5"}).text
    assert "大会" in ja and "対局中" in ja and "終局した対局" in ja
    assert f'href="/events/{quote(EVENT)}"' in en  # the name URL-encoded in the link


def test_language_switch_is_remembered(club: SampleClub, web: TestClient) -> None:
    first = web.get("/", params={"lang": "en"}, headers={"Accept-Language": "ja"})
    assert 'id="lang-switch" href="/?lang=ja"' in first.text
    again = web.get("/", headers={"Accept-Language": "ja"})  # the cookie wins now
    assert again.headers["content-language"] == "en"


def test_game_page_board_from_either_side_record_clocks_and_deadline(
        club: SampleClub, web: TestClient) -> None:
    gid = club.games[0]
    white_side = web.get(f"/games/{gid}", params={"lang": "en"}).text
    black_side = web.get(f"/games/{gid}", params={"lang": "en", "side": "1"}).text
    assert "<svg" in white_side and "<svg" in black_side
    assert white_side.count("<svg") == 1
    assert _svg(white_side) != _svg(black_side)  # the board turned round
    for text in ("3. Bb5", "2... Nc6", "Days used", "Days left", "Last day to reply",
                 "FEN: <code>r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq"):
        assert text in white_side, text
    ja = web.get(f"/games/{gid}", params={"lang": "ja"}).text
    assert "消費日数" in ja and "残り日数" in ja and "返信の期限" in ja and "黒番" in ja


def _svg(html: str) -> str:
    match = re.search(r"<svg.*?</svg>", html, re.S)
    assert match is not None
    return match.group(0)


def test_finished_game_says_how_it_ended_in_the_readers_language(
        club: SampleClub, web: TestClient) -> None:
    gid = club.games[1]
    assert "resignation" in web.get(f"/games/{gid}", params={"lang": "en"}).text
    ja = web.get(f"/games/{gid}", params={"lang": "ja"}).text
    assert "投了" in ja and "resignation" not in ja


def test_record_download_is_the_games_own_format_with_the_standard_headers(
        club: SampleClub, web: TestClient) -> None:
    got = web.get(f"/games/{club.games[1]}/record")
    assert got.status_code == 200
    assert got.headers["content-disposition"] == f'attachment; filename="{club.games[1]}.pgn"'
    for tag in ('[Site "Kanto CC"]', '[Result "1-0"]', '[EventDate "2026.11.02"]',
                '[TimeControl "10/2592000"]', '[Termination "normal"]'):
        assert tag in got.text
    _no_address(got.text)


def test_t5_event_page_standings_and_crosstable_with_every_tiebreak_column(
        club: SampleClub, web: TestClient) -> None:
    page = web.get(f"/events/{quote(EVENT, safe='')}", params={"lang": "en"}).text
    for column in ("Points", "SB", "Solkoff", "Median", "Direct encounter", "Rank"):
        assert f">{column}</th>" in page, column
    assert page.count('<tr>\n<td class="num">') == 4  # one row per player
    ja = web.get(f"/events/{quote(EVENT, safe='')}", params={"lang": "ja"}).text
    for column in ("得点", "SB", "ソルコフ", "ミディアム", "直接対決", "順位"):
        assert f">{column}</th>" in ja, column
    assert "予選グループ" in ja


def test_player_page_lists_their_games_and_links_the_calendar(
        club: SampleClub, web: TestClient) -> None:
    member_id = club.members[EMAILS[0]]
    page = web.get(f"/players/{member_id}", params={"lang": "en"}).text
    assert "<h2>山田太郎</h2>" in page and re.search(r"Chess: \d{4}<", page)  # rated (R1)
    assert f'href="/players/{member_id}/calendar.ics"' in page
    assert page.count('href="/games/') == 6  # a group of four: six games each


def test_calendar_feed_of_each_games_deadline(club: SampleClub, web: TestClient) -> None:
    member_id = club.members[EMAILS[0]]
    got = web.get(f"/players/{member_id}/calendar.ics")
    assert got.headers["content-type"].startswith("text/calendar")
    cal = Calendar.from_ical(got.content)
    events = list(cal.walk("VEVENT"))
    with club.store.session() as session:
        active = session.scalars(select(Game.id).where(
            Game.status == "active",
            (Game.side0_id == member_id) | (Game.side1_id == member_id))).all()
    assert sorted(str(e["uid"]).split("-")[0] for e in events) == sorted(active)
    today = (club.now + timedelta(hours=9)).date()
    for event in events:
        assert event.decoded("dtstart") >= today
        assert "期限" in str(event["summary"])  # in the member's language
        assert str(event["url"]).startswith("https://chess.club.example/games/")


def test_missing_pages_are_404(web: TestClient) -> None:
    for path in ("/games/nope", "/events/Nope", "/players/999", "/players/x",
                 "/unsubscribe/1/aaaaaaaaaa"):
        assert web.get(path).status_code == 404, path


def test_rfc8058_one_click_unsubscribe_is_the_one_write(
        club: SampleClub, web: TestClient) -> None:
    member_id = club.members[EMAILS[1]]
    path = unsubscribe_path(club.cfg, member_id)
    shown = web.get(path, params={"lang": "en"})
    assert shown.status_code == 200 and "<form method=\"post\"" in shown.text
    with club.store.session() as session:
        member = session.get(Member, member_id)
        assert member is not None and member.digest == "weekly"  # a GET changes nothing
    done = web.post(path, data={"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200 and "no more weekly digests" in done.text
    with club.store.session() as session:
        member = session.get(Member, member_id)
        assert member is not None and member.digest == "off"
        member.digest = "weekly"
    other = unsubscribe_path(club.cfg, club.members[EMAILS[2]])
    assert web.post(path.rsplit("/", 1)[0] + "/" + other.rsplit("/", 1)[1]).status_code == 404
    for write in ("/", f"/games/{club.games[0]}"):
        assert web.post(write).status_code == 405


def test_relaybot_web_command_serves_the_pages(club: SampleClub, tmp_path: Path) -> None:
    """INTERFACE.md: ``relaybot web [--host] [--port]`` from the command line."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}
    env["RELAYBOT_DATABASE_URL"] = club.cfg.database.url
    proc = subprocess.Popen([sys.executable, "-m", "relaybot.cli", "web", "--host", "127.0.0.1",
                             "--port", str(port)], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        page = ""
        for _ in range(150):  # waiting for start-up, not a timing assertion (15 s at most)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/?lang=en") as got:
                    page = got.read().decode("utf-8")
                break
            except OSError:
                time.sleep(0.1)
        assert EVENT in page and "Games in progress" in page
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_t4_a_finished_salon_league_page_names_its_secretaries(
        club: SampleClub, web: TestClient) -> None:
    """T4, seed 004 section 6: 「公式戦の幹事は2名とし、前回のリーグ戦の優勝者とブービーの者
    がこれにあたる。」 the event's page names them; the players' go ranks are in the reader's
    words (初段, 1d) on their pages; results in go's words (黒5目半勝ち)."""
    from tests.sample_club import salon_league

    salon_league(club)
    path = f"/events/{quote('碁会所リーグ', safe='')}"
    ja = web.get(path, params={"lang": "ja"}).text
    en = web.get(path, params={"lang": "en"}).text
    assert "次のリーグの幹事" in ja and "Secretaries of the next league" in en
    _no_address(ja)
    pages = {lang: "".join(web.get(f"/players/{club.members[e]}", params={"lang": lang}).text
                           for e in EMAILS[:3]) for lang in ("ja", "en")}
    assert "5目半勝ち" in pages["ja"] and "中押し勝ち" in pages["ja"] and "持碁" in pages["ja"]
    assert "+5.5" in pages["en"] and "+R" in pages["en"]
    assert re.search(r"囲碁: \d+ (\d級|.段)", pages["ja"]), pages["ja"][:2000]
