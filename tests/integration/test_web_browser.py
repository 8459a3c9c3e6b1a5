"""``relaybot web`` in a real browser (issue 15): headless chromium loads every page
kind in English and Japanese, the text a reader relies on is there, the language switch
and the links work, and each page is saved as a screenshot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import (
    broken_names,
    browser,
    overflow,
    page_kinds,
    screenshot,
    serving,
    set_width,
)
from tests.sample_club import EMAILS, SampleClub, board_games, build

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SampleClub]:
    built = build(tmp_path_factory.mktemp("browser"))
    yield built
    built.store.dispose()


def test_every_page_kind_in_chromium_in_both_languages(club: SampleClub, tmp_path: Path) -> None:
    with serving(club) as base, browser() as driver:
        for kind in page_kinds(club):
            for lang, texts in kind.expect.items():
                sep = "&" if "?" in kind.path else "?"
                driver.get(f"{base}{kind.path}{sep}lang={lang}")
                body = driver.find_element(By.TAG_NAME, "body").text
                for text in texts:
                    assert text in body, (kind.name, lang, text)
                for email in EMAILS:
                    assert email not in driver.page_source
                if kind.name.startswith("game"):
                    board = driver.find_element(By.ID, "board-img")
                    assert board.size["width"] > 200  # the board is drawn, not only sent
                target = tmp_path / f"{kind.name}.{lang}.png"
                screenshot(driver, target)
                assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_links_and_the_language_switch_in_the_browser(club: SampleClub) -> None:
    with serving(club) as base, browser() as driver:
        driver.get(f"{base}/?lang=en")
        driver.find_element(By.ID, "lang-switch").click()
        assert "対局中" in driver.find_element(By.TAG_NAME, "body").text
        driver.get(f"{base}/")  # the choice is remembered (a cookie)
        assert "対局中" in driver.find_element(By.TAG_NAME, "body").text
        driver.find_element(By.LINK_TEXT, club.games[0]).click()
        assert f"/games/{club.games[0]}" in driver.current_url
        assert "消費日数" in driver.find_element(By.TAG_NAME, "body").text
        driver.find_element(By.PARTIAL_LINK_TEXT, "Kanto Cup").click()
        assert "順位表とクロス表" in driver.find_element(By.TAG_NAME, "body").text
        driver.find_element(By.LINK_TEXT, "山田太郎").click()
        assert "/players/" in driver.current_url
        assert driver.find_element(By.ID, "calendar").get_attribute("href").endswith(
            "/calendar.ics")


def _state(driver: WebDriver) -> tuple[str, str, str, str]:
    """The picture's ply, its address, its text alternative, and the ply the record
    highlights (``aria-current``)."""
    img = driver.find_element(By.ID, "board-img")
    current = driver.find_elements(By.CSS_SELECTOR, "button.ply.current[aria-current=step]")
    return (str(img.get_attribute("data-ply")), str(img.get_attribute("src")),
            str(img.get_attribute("alt")),
            str(current[0].get_attribute("data-ply")) if current else "")


def _picture(driver: WebDriver) -> bytes:
    """The board as the browser shows it, once its picture has loaded."""
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(
        "const i = document.getElementById('board-img');"
        "return i.complete && i.naturalWidth > 0;"))
    return driver.find_element(By.ID, "board-img").screenshot_as_png


def test_replay_with_the_arrow_keys_and_the_record_for_chess_shogi_and_go(
        club: SampleClub) -> None:
    """Issue 27: the arrow keys step the board back and forth without a reload, the
    record highlights the move shown, the picture changes; a click on a move jumps."""
    shogi, go = board_games(club)
    with serving(club) as base, browser() as driver:
        for gid, plies in ((club.games[0], 5), (shogi, 2), (go, 4)):
            driver.get(f"{base}/games/{gid}?lang=en")
            driver.execute_script("window.marker = 'no reload';")
            assert _state(driver)[0] == _state(driver)[3] == str(plies), gid
            driver.find_element(By.CSS_SELECTOR, 'button.ply[data-ply="2"]').click()
            assert _state(driver)[0] == _state(driver)[3] == "2", gid  # a click jumps
            second = _picture(driver)
            body = driver.find_element(By.TAG_NAME, "body")
            body.send_keys(Keys.ARROW_LEFT)
            ply, src, alt, current = _state(driver)
            assert ply == current == "1", gid
            assert src.endswith(f"/games/{gid}/board/1?side=0")
            assert alt.startswith("After 1"), (gid, alt)
            # the picture changed (once the browser has drawn the new one)
            WebDriverWait(driver, 10).until(lambda d, was=second: _picture(d) != was)
            body.send_keys(Keys.ARROW_RIGHT)
            assert _state(driver)[0] == _state(driver)[3] == "2"
            assert _state(driver)[1] == src.replace("/board/1?", "/board/2?")
            body.send_keys(Keys.HOME)
            assert _state(driver)[0] == "0" and _state(driver)[3] == ""
            assert _state(driver)[2].startswith("Start, ")
            body.send_keys(Keys.ARROW_LEFT)  # nothing before the start
            assert _state(driver)[0] == "0"
            body.send_keys(Keys.END)
            assert _state(driver)[0] == _state(driver)[3] == str(plies)
            assert _state(driver)[1].endswith(f"/board/{plies}?side=0")
            body.send_keys(Keys.ARROW_RIGHT)  # nothing after the latest
            assert _state(driver)[0] == str(plies)
            driver.find_element(By.CSS_SELECTOR, 'button[data-step="first"]').click()
            driver.find_element(By.CSS_SELECTOR, 'button[data-step="next"]').click()
            assert _state(driver)[0] == "1"
            assert driver.execute_script("return window.marker") == "no reload", gid
            # the board as text follows the position shown once the reader opens it
            latest_text = driver.execute_script(
                "return document.querySelector('#board-text pre').textContent")
            driver.find_element(By.CSS_SELECTOR, "#board-text summary").click()
            pre = driver.find_element(By.CSS_SELECTOR, "#board-text pre")
            WebDriverWait(driver, 10).until(  # the text of ply 1 now
                lambda d, p=pre, t=latest_text: p.get_attribute("textContent") != t)
            body.send_keys(Keys.END)
            WebDriverWait(driver, 10).until(
                lambda d, p=pre, t=latest_text: p.get_attribute("textContent") == t)


def test_no_page_runs_off_a_390_pixel_screen(club: SampleClub) -> None:
    """Issue 27: at 390 px nothing sticks out of the page except inside a horizontal
    scroll container (wide tables), and the board fits the width."""
    with serving(club) as base, browser() as driver:
        set_width(driver, 390)
        for kind in page_kinds(club):
            for lang in ("en", "ja"):
                sep = "&" if "?" in kind.path else "?"
                driver.get(f"{base}{kind.path}{sep}lang={lang}")
                scroll, width, out = overflow(driver)
                assert width <= 390 and scroll <= width, (kind.name, lang, scroll, out)
                assert out == [], (kind.name, lang, out)
                assert broken_names(driver) == [], (kind.name, lang)  # never 山田太 / 郎
                if kind.name.startswith("game"):
                    img = driver.find_element(By.ID, "board-img")
                    assert 200 < img.size["width"] <= width, (kind.name, lang)


def test_t3_a_season_page_fits_a_390_pixel_screen(tmp_path: Path) -> None:
    """A season's class table (eight opponents' columns, the outcome) scrolls inside its
    own box on a phone: the page itself never runs off the screen, and no name breaks
    over two lines."""
    from urllib.parse import quote

    from tests.sample_club import _season

    league = build(tmp_path)
    _season(league)
    try:
        with serving(league) as base, browser() as driver:
            set_width(driver, 390)
            for lang in ("en", "ja"):
                driver.get(f"{base}/seasons/{quote('第2期', safe='')}?lang={lang}")
                scroll, width, out = overflow(driver)
                assert scroll <= width and out == [], (lang, scroll, out)
                assert broken_names(driver) == [], lang
    finally:
        league.store.dispose()
