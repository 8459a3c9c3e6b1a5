"""The web pages in a real browser: Debian's chromium driven by Selenium, headless.

Shared by the browser test and ``scripts/screens.py`` (which rewrites docs/screens/):
serve a club's pages with uvicorn on a free loopback port, open each page kind in both
languages, and save a screenshot of each.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from relaybot.club.views import unsubscribe_path
from relaybot.web import create_app
from tests.sample_club import EMAILS, EVENT, SampleClub, board_games

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@dataclass(frozen=True)
class PageKind:
    name: str  # the screenshot's file name, without the language
    path: str
    expect: dict[str, tuple[str, ...]]  # language -> texts the page must show


def page_kinds(club: SampleClub) -> list[PageKind]:
    """One page of every kind the web serves, with what a reader must see on it."""
    first, decided = club.games[0], club.games[1]
    shogi, go = board_games(club)  # each game's own board and words
    player = club.members[EMAILS[0]]
    return [
        PageKind("home", "/", {"en": ("Events", EVENT, "Games in progress", "Ann Smith",
                                      "To move", "Last day to reply", "Preliminary group"),
                               "ja": ("大会", EVENT, "対局中", "終局した対局", "手番",
                                      "返信の期限", "予選グループ")}),
        PageKind("game", f"/games/{first}", {
            "en": ("Days used", "Days left", "Last day to reply", "Bb5", "FEN:",
                   "After 3. Bb5, Black to move"),
            "ja": ("消費日数", "残り日数", "返信の期限", "Bb5", "FEN:", "3. Bb5まで、黒の手番")}),
        PageKind("game-black-side", f"/games/{first}?side=1", {
            "en": ("Seen from", "Days used"), "ja": ("盤の向き", "消費日数")}),
        PageKind("game-finished", f"/games/{decided}", {
            "en": ("resignation", "White wins", "Download the record"),
            "ja": ("投了", "白の勝ち", "棋譜をダウンロード")}),
        PageKind("game-shogi", f"/games/{shogi}", {
            "en": ("SFEN:", "Sente", "Days used"),
            "ja": ("SFEN:", "先手", "消費日数")}),
        PageKind("game-go", f"/games/{go}", {
            "en": ("Komi", "Black", "Days used", "3 pass"),
            "ja": ("コミ", "黒", "消費日数", "3 パス")}),
        PageKind("event", f"/events/{quote(EVENT, safe='')}", {
            "en": ("Standings and crosstable", "SB", "Solkoff", "Median", "Direct encounter",
                   "1 win, ½ draw, 0 loss", "White wins"),
            "ja": ("順位表とクロス表", "SB", "ソルコフ", "ミディアム", "直接対決",
                   "○ 勝ち、△ 引き分け、● 負け", "白の勝ち")}),
        PageKind("player", f"/players/{player}", {
            "en": ("山田太郎", "Deadlines as a calendar", "Grade", "Rated games", "Won"),
            "ja": ("山田太郎", "対局の期限をカレンダーに", "級位・段位", "レーティング", "勝")}),
        PageKind("unsubscribe", unsubscribe_path(club.cfg, club.members[EMAILS[1]]), {
            "en": ("Weekly digest", "Stop the digest"), "ja": ("週刊ダイジェスト", "停止する")}),
        PageKind("help", "/help", {  # the players' guide (issue 23)
            "en": ("Players' guide", "Writing your moves", "Conditional moves", "resign"),
            "ja": ("対局者の案内", "指し手の書き方", "予想手", "投了")}),
    ]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(club: SampleClub) -> Iterator[str]:
    """``relaybot web`` over the club on a loopback port, in a thread; yields its URL."""
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(
        create_app(club.cfg, club.store, clock=lambda: club.now), host="127.0.0.1",
        port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):  # start-up, not a timing assertion: give up after 20 s
        if server.started:
            break
        time.sleep(0.1)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextmanager
def browser() -> Iterator[webdriver.Chrome]:
    """Headless chromium (``--no-sandbox``: the tests run as root)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1100,1000", "--lang=en"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def screenshot(driver: webdriver.Chrome, target: Path, width: int = 1280) -> None:
    """The whole page as PNG, ``width`` CSS pixels wide (the screen grown to the page's
    height first, up to 6000 pixels)."""
    set_width(driver, width)
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    set_width(driver, width, max(600, min(height + 20, 6000)))
    driver.save_screenshot(str(target))


def set_width(driver: webdriver.Chrome, width: int, height: int = 900) -> None:
    """Show the pages as a screen ``width`` CSS pixels wide (390: a phone) would."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


# what sticks out to the right of the page: every element whose box ends past the
# viewport's width and is not inside a horizontal scroll container (overflow-x auto or
# scroll), as "tag.class: right edge"; and the page's own scroll width
OVERFLOW_JS = """
const width = document.documentElement.clientWidth;
const out = [];
for (const el of document.body.querySelectorAll('*')) {
  const box = el.getBoundingClientRect();
  if (box.width === 0 || box.right <= width + 0.5) continue;
  let inside = false;
  for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
    const x = getComputedStyle(up).overflowX;
    if (x === 'auto' || x === 'scroll' || x === 'hidden') { inside = true; break; }
  }
  if (!inside) out.push(el.tagName.toLowerCase() + '.' + el.className + ': ' + box.right);
}
return [document.documentElement.scrollWidth, width, out];
"""


def overflow(driver: webdriver.Chrome) -> tuple[int, int, list[str]]:
    """The page's scroll width, the viewport's width and what sticks out of it
    outside a scroll container (:data:`OVERFLOW_JS`)."""
    scroll, width, out = driver.execute_script(OVERFLOW_JS)
    return int(scroll), int(width), [str(o) for o in out]


BROKEN_JS = """
const out = [];
for (const el of document.querySelectorAll('.name, .date')) {
  const range = document.createRange();
  range.selectNodeContents(el);
  const lines = new Set();
  for (const r of range.getClientRects()) if (r.width > 0) lines.add(Math.round(r.bottom));
  if (lines.size > 1) out.push(el.textContent);
}
return out;
"""


def broken_names(driver: webdriver.Chrome) -> list[str]:
    """The names and dates on the page that run over more than one line."""
    return [str(t) for t in driver.execute_script(BROKEN_JS)]
