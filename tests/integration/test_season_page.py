"""Issue 24 item 9: where the league's players look. The season page on the web (its
classes, standings and crosstables, the promotion and relegation marks, the titles) in
both languages, and the member's class standing in the weekly digest."""

from __future__ import annotations

from datetime import UTC, datetime
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
        assert page.count(" ↑</td>") == 6 and page.count(" ↓</td>") == 6  # S, A: 3 each
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
