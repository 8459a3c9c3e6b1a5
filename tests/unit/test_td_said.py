"""Issue 15: the TD's mail in the bot's language. A TD command's outcome carries its
English and its Japanese (the confirmation mail), every command says how it is written
in both, and every mail kind has a name in both (the summary of held-back mail, the
delivery notices)."""

from __future__ import annotations

import re

import pytest

from relaybot.core.leave import NOT_ALLOWED, ORDER, OVER_ALLOWANCE, OVERLAP, STARTED
from relaybot.core.said import Said
from relaybot.games import rules_for
from relaybot.mail.kinds import ERRORS, KINDS, every_kind, is_kind, kind_name
from relaybot.mail.queue import Recipient
from relaybot.mail.render import render
from relaybot.pipeline.effects import Mail
from relaybot.pipeline.td import COMMANDS, Done
from relaybot.pipeline.td.base import no_game
from relaybot.pipeline.td.leave import leave_reason
from relaybot.pipeline.td.results import bad_result

LATIN = re.compile(r"[a-z]{2,}", re.IGNORECASE)


def latin_words(text: str, *data: str) -> list[str]:
    """Words in Latin letters in a Japanese text, besides ``data`` and acronyms (TD)."""
    for item in data:
        text = text.replace(item, " ")
    return [w for w in LATIN.findall(text) if not w.isupper()]


def test_a_said_value_in_each_language() -> None:
    said = Said("no game x", "対局 x はありません")
    assert (said.in_lang("en"), said.in_lang("ja"), said.in_lang("fr")) == (
        "no game x", "対局 x はありません", "no game x")
    assert str(said) == "no game x"


def test_every_command_has_a_japanese_name_and_usage() -> None:
    for command in set(COMMANDS.values()):
        assert command.aliases, command.name
        assert not latin_words(command.aliases[0]), command.name
        # the results a TD may write in go (B+3.5, W+R) are data
        assert not latin_words(command.usage_ja, "B+3.5", "W+R", "ID"), command.usage_ja
        done = command.misused()
        assert done.message == f"usage: {command.usage}"  # the CLI's line, as before
        assert done.text("ja").endswith(command.usage_ja)
        assert done.name("ja") == command.aliases[0] and done.name("en") == command.name


@pytest.mark.parametrize("kind", ["chess", "shogi", "go"])
def test_a_word_that_is_no_result_in_both_languages(kind: str) -> None:
    said = bad_result(rules_for(kind), "2-0")
    assert said.en.startswith("result must be ") and said.en.endswith(", not 2-0")
    assert "「2-0」" in said.ja
    assert not latin_words(said.ja, "B+3.5", "W+R"), said.ja
    assert no_game("zz9").ja == "対局 zz9 はありません"


def test_every_leave_reason_in_japanese() -> None:
    for code in (NOT_ALLOWED, ORDER, STARTED, OVERLAP, OVER_ALLOWANCE):
        said = leave_reason(code)
        assert said.en == code.replace("_", " ")
        assert not latin_words(said.ja), said.ja


def test_the_confirmation_in_the_bots_language() -> None:
    done = [Done("forfeit", True, Said("game abc123: 0-1 (forfeit)",
                                       "対局 abc123 を 0-1 で終局としました"), ("abc123",), "没収"),
            Done("answer", False, Said("no open question 7",
                                       "回答を待っている質問 7 はありません"), (), "回答")]
    _, ja = render("ja", "td", "confirm", outcomes=done)
    assert "実行しました（没収）: 対局 abc123 を 0-1 で終局としました" in ja
    assert "実行していません（回答）: 回答を待っている質問 7 はありません" in ja
    assert not latin_words(ja, "abc123", "TD")
    _, en = render("en", "td", "confirm", outcomes=done)
    assert "done: forfeit - game abc123: 0-1 (forfeit)" in en
    assert "NOT DONE: answer - no open question 7" in en


def test_every_kind_has_a_name_in_each_language() -> None:
    kinds = every_kind()
    assert len(kinds) == len(KINDS) + len(ERRORS) and all(is_kind(k) for k in kinds)
    for kind in kinds:
        ja, en = kind_name(kind, "ja"), kind_name(kind, "en")
        assert ja and en and ja != en, kind
        assert not latin_words(ja), (kind, ja)
    assert kind_name("td_silence", "ja") == "無返信の報告"
    assert kind_name("error_sync_error", "ja") == "エラーの返信（棋譜の不一致）"
    assert kind_name("notice", "ja") == "その他のメール"  # never the code in Japanese
    assert kind_name("notice", "en") == "notice"
    assert not is_kind("error_nonsense") and not is_kind("nonsense")


def test_a_mail_of_an_unlisted_kind_is_refused() -> None:
    with pytest.raises(ValueError, match=r"relaybot\.mail\.kinds"):
        Mail(kind="nonsense", audience="td", to=Recipient("TD", "td@x.example"), lang="ja")


def test_the_summary_names_each_kind_in_the_readers_language() -> None:
    items = [{"kind": "td_silence", "game_id": "abc123", "subject": "s",
              "day": "2026-11-02"}]
    _, ja = render("ja", "td", "summary", items=items, more=0, total=1, cap=30, reply_cap=20)
    assert "2026-11-02  無返信の報告  対局 abc123" in ja and "td_silence" not in ja
    _, en = render("en", "td", "summary", items=items, more=0, total=1, cap=30, reply_cap=20)
    assert "2026-11-02  silence report  game abc123" in en


def test_every_error_a_players_mail_can_get_is_a_listed_kind() -> None:
    from relaybot.pipeline.play import ERROR_KINDS

    assert set(ERROR_KINDS) <= set(ERRORS)


def test_the_summary_points_to_game_show_only_with_a_game_and_keeps_its_lines() -> None:
    """Mail held back about no game (a forged mail's notice) gives no game to look at;
    the sentence on forged mail ends its line before the list's heading."""
    caps = {"more": 0, "total": 1, "cap": 2, "reply_cap": 20, "unproven": 1,
            "unproven_address_cap": 3, "unproven_cap": 100}
    forged = [{"kind": "hold_forged", "game_id": "", "subject": "s", "day": "2026-11-16",
               "to": "sato@example.jp"}]
    silence = [{"kind": "td_silence", "game_id": "abc123", "subject": "s",
                "day": "2026-11-02"}]
    for lang in ("en", "ja"):
        _, without = render(lang, "td", "summary", items=forged, **caps)
        _, with_game = render(lang, "td", "summary", items=silence, **caps)
        assert "relaybot game show ID" not in without, without
        assert "relaybot game show ID" in with_game, with_game
    _, en = render("en", "td", "summary", items=forged, **caps)
    assert "writing in members' names.\nHere is what was held back:" in en, en
