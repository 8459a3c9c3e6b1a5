"""A member's name as each reader writes it (issue 26 item 2): core.names."""

from __future__ import annotations

import copy
import json
import pickle

from relaybot.core.names import PersonName, display_name, distinct, split_name


def test_each_language_writes_a_name_its_own_way() -> None:
    hayakawa = PersonName("Hayakawa", "Satoru", "早川悟")
    assert hayakawa.for_language("ja") == "早川悟"
    assert hayakawa.for_language("en") == "Satoru Hayakawa"
    assert hayakawa.pgn() == "Hayakawa, Satoru"
    assert hayakawa.plain() == "Hayakawa Satoru"
    # without a Japanese-script name, Japanese still writes the family name first
    assert PersonName("Hayakawa", "Satoru").for_language("ja") == "Hayakawa Satoru"
    # a name in kanji keeps its order and takes no space, in either language
    yamada = PersonName.parse("山田, 太郎")
    assert (yamada.for_language("ja"), yamada.for_language("en")) == ("山田太郎", "山田太郎")
    assert yamada.plain() == "山田太郎" and yamada.pgn() == "山田, 太郎"


def test_a_name_without_one_comma_is_kept_as_written() -> None:
    assert split_name("Ann Smith") == ("Ann Smith", "")
    assert split_name("Odd, Name, Here") == ("Odd, Name, Here", "")
    assert split_name("  Smith ,  Ann  ") == ("Smith", "Ann")
    assert PersonName.parse("Ann Smith").for_language("ja") == "Ann Smith"
    assert PersonName.parse("Ann Smith").pgn() == "Ann Smith"


def test_the_value_is_the_stored_form_and_survives_copies() -> None:
    name = PersonName("Hayakawa", "Satoru", "早川悟")
    assert name == "Hayakawa, Satoru" and {name: 1}["Hayakawa, Satoru"] == 1
    assert json.dumps(name) == '"Hayakawa, Satoru"'
    for copied in (copy.deepcopy(name), pickle.loads(pickle.dumps(name))):
        assert isinstance(copied, PersonName) and copied.ja == "早川悟"


def test_display_name_takes_a_name_or_its_text_and_may_be_applied_twice() -> None:
    name = PersonName("Hayakawa", "Satoru", "早川悟")
    assert display_name(name, "ja") == "早川悟"
    assert display_name("Smith, Ann", "en") == "Ann Smith"
    assert display_name(display_name("Smith, Ann", "en"), "en") == "Ann Smith"
    assert display_name(display_name("Smith, Ann", "ja"), "ja") == "Smith Ann"
    for lang in ("ja", "en"):
        assert "," not in display_name("渡辺, 髙子", lang)


def test_kif_and_csa_write_a_player_without_a_comma() -> None:
    """KIF's 先手：早川悟 (the Japanese-script name) or 先手：Hayakawa Satoru, never
    "Hayakawa, Satoru"; PGN keeps that form (the chess writer takes it as it is)."""
    from datetime import date

    from relaybot.games.base import RecordInfo
    from relaybot.games.shogi.kif import write_csa, write_kif

    info = RecordInfo(event="", site="", start=date(2026, 1, 10), round="-",
                      players=(PersonName("Hayakawa", "Satoru", "早川悟"), "Smith, Ann"),
                      ratings=(None, None), result="", end=None, termination="", moves=[])
    kif = write_kif(info, [], "")
    assert "先手：早川悟\n" in kif and "後手：Smith Ann\n" in kif
    csa = write_csa(info, [], "")
    assert "N+早川悟\n" in csa and "N-Smith Ann\n" in csa


def test_a_member_who_reads_english_keeps_their_order_in_japanese_text() -> None:
    """Japanese text writes a foreign name in its own order (アン・スミス, Ann Smith), a
    Japanese member's family first (早川悟, Hayakawa Satoru)."""
    assert PersonName("Smith", "Ann", eastern=False).for_language("ja") == "Ann Smith"
    assert PersonName("Hayakawa", "Satoru").for_language("ja") == "Hayakawa Satoru"
    assert PersonName("Smith", "Ann", ja="スミス・アン",
                      eastern=False).for_language("ja") == "スミス・アン"
    assert PersonName("Smith", "Ann", eastern=False).for_language("en") == "Ann Smith"
    assert PersonName("Smith", "Ann", eastern=False).pgn() == "Smith, Ann"


def test_distinct_tags_only_the_names_two_members_share_in_every_form() -> None:
    sato, other = PersonName("Sato", "Ichiro", eastern=False), PersonName("山田", "太郎")
    names = distinct([(3, sato), (8, PersonName("Sato", "Ichiro", eastern=False)),
                      (5, other)])
    assert names[5] is other  # no one else's name: as it was
    assert (str(names[3]), str(names[8])) == ("Sato, Ichiro (#3)", "Sato, Ichiro (#8)")
    assert names[3] != names[8]
    assert names[3].western() == "Ichiro Sato (#3)"
    assert names[8].plain() == "Sato Ichiro (#8)"
    assert display_name(names[3], "ja") == "Ichiro Sato (#3)"
    kanji = distinct([(1, PersonName("山田", "太郎", ja="山田太郎")),
                      (2, PersonName("山田", "太郎"))])
    assert display_name(kanji[1], "ja") == "山田太郎 (#1)"
    assert display_name(kanji[2], "en") == "山田太郎 (#2)"
    # the tag survives a copy (a pickled value keeps its parts)
    assert pickle.loads(pickle.dumps(names[8])).tag == "(#8)"
