"""Issue 23 item 3: the README is a front door, docs/operating.md the operator's reference,
and the players' guide one text in two languages, served at ``/help`` and copied to
docs/players.md and docs/players.ja.md.

What a reader relies on is checked against the code: the README's two commands, its
links, every setting and command in the operator's reference, every keyword the bot reads
in the players' guide in both languages, and no internal rule id in the guide."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from relaybot.cli import build_parser
from relaybot.config import SCHEMA
from relaybot.core import intent
from relaybot.games import registry
from relaybot.web.guide import DOCS_NAMES, GUIDE_LANGS, docs_text, guide_html, guide_markdown
from tests.unit.test_no_internal_ids import internal_ids

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
OPERATING = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)#]+)(?:#[^)]*)?\)")


def test_the_readme_is_short_and_shows_the_two_commands_as_they_are() -> None:
    assert len(README.splitlines()) <= 120
    for command in ("bash scripts/demo.sh", "bash scripts/test.sh"):
        assert f"\n    {command}\n" in README, command  # an indented line of its own
        assert (ROOT / command.split()[1]).is_file()
    # what it is, in both languages
    assert "chess, shogi and go" in README and "チェス・将棋・囲碁" in README


@pytest.mark.parametrize("name", ["README.md", "docs/operating.md", "docs/players.md",
                                  "docs/players.ja.md"])
def test_every_relative_link_of_the_front_door_and_the_guides_finds_its_file(
        name: str) -> None:
    path = ROOT / name
    targets = [t for t in LINK.findall(path.read_text(encoding="utf-8"))
               if "://" not in t]
    assert targets or name.startswith("docs/players")
    for target in targets:
        assert (path.parent / target).exists(), (name, target)


def test_the_operators_reference_names_every_setting() -> None:
    for section, keys in SCHEMA.items():
        for key in keys:
            # in the settings table: "| `[imap] host`, `port`, ..." or "`[bot] td`"
            row = re.search(rf"^\| `\[{section}\] [^|]*\b{key}\b", OPERATING, re.M)
            assert row, f"[{section}] {key} is not in docs/operating.md"


def test_the_operators_reference_names_every_command() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, child in sub.choices.items():
        assert f"relaybot {name}" in OPERATING, name
        for action in child._actions:
            if isinstance(action, argparse._SubParsersAction):
                for verb in action.choices:
                    assert f"{name} {verb}" in OPERATING, f"{name} {verb}"


def test_the_log_sample_lives_in_the_operators_reference() -> None:
    assert "<!-- log-sample: scripts/log_sample.py --write -->" in OPERATING
    assert "log-sample" not in README


@pytest.mark.parametrize("lang", GUIDE_LANGS)
def test_docs_players_is_the_guide_served_at_help(lang: str) -> None:
    """One source: run scripts/players_guide.py after editing relaybot/web/help/."""
    docs = (ROOT / "docs" / DOCS_NAMES[lang]).read_text(encoding="utf-8")
    assert docs == docs_text(lang)
    assert docs.endswith(guide_markdown(lang))


def _keyword_words() -> dict[str, set[str]]:
    """Every keyword the bot reads, by name: the registered ones (with their prefixes for
    those that take words after them) and each game's own."""
    words: dict[str, set[str]] = {}
    for kw in intent._BY_WORD.values():
        words.setdefault(kw.name, set()).update(kw.words)
    for kw in intent._BY_PREFIX:
        words.setdefault(kw.name, set()).update(kw.prefixes)
    for kind in ("chess", "shogi", "go"):
        for word, name in registry.rules_for(kind).keywords.items():
            words.setdefault(f"{kind}:{name}", set()).add(word)
    return words


@pytest.mark.parametrize("lang", GUIDE_LANGS)
def test_the_guide_shows_every_keyword_in_english_and_japanese(lang: str) -> None:
    """A keyword added to the code without a word of it in the guide fails here; each
    is shown as typed (in backticks), an English and a Japanese form of it."""
    shown = {m.lower() for m in re.findall(r"`([^`\n]+)`", guide_markdown(lang))}
    heads = {s.split()[0].rstrip(":") for s in shown if s.split()}
    for name, words in _keyword_words().items():
        found = {w for w in words if w in shown or w in heads}
        assert found, f"{lang}: no word of the keyword {name} ({sorted(words)})"
        if name != "td_question":  # "td:" is the one keyword without a Japanese form
            assert any(w.isascii() for w in found), (lang, name, found)
            assert any(not w.isascii() for w in found), (lang, name, found)


@pytest.mark.parametrize("lang", GUIDE_LANGS)
def test_the_guide_has_no_internal_rule_id(lang: str) -> None:
    assert internal_ids(guide_markdown(lang)) == []


def test_both_languages_have_the_same_sections_and_the_html_their_headings() -> None:
    outline = {lang: [line.split()[0] for line in guide_markdown(lang).splitlines()
                      if line.startswith("#")] for lang in GUIDE_LANGS}
    assert outline["en"] == outline["ja"] and len(outline["en"]) >= 10
    html = guide_html("ja")
    assert "<h2>指し手の書き方</h2>" in html and "<h3>将棋</h3>" in html
    assert "<table>" in html and "<code>入玉宣言</code>" in html
    assert "<h2>Writing your moves</h2>" in guide_html("en")
