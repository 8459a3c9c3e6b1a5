"""``relaybot web`` in a real browser (issue 15): headless chromium loads every page
kind in English and Japanese, the text a reader relies on is there, the language switch
and the links work, and each page is saved as a screenshot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from tests.browser import browser, page_kinds, screenshot, serving
from tests.sample_club import EMAILS, SampleClub, build

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
                    board = driver.find_element(By.CSS_SELECTOR, "#board svg")
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
