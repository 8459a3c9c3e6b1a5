"""The players' guide: one markdown text per language, served at ``/help`` and copied to
docs/ (issue 23).

The source is the package's own ``relaybot/web/help/players.<lang>.md``, so the wheel
carries it and ``relaybot web`` serves it without the repository; ``docs/players.md`` and
``docs/players.ja.md`` are generated from it by ``scripts/players_guide.py`` (a test
checks that they agree), so the guide a player reads on the club's pages and the one in
the repository never drift apart.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

from markdown_it import MarkdownIt

GUIDE_LANGS = ("en", "ja")
DOCS_NAMES = {"en": "players.md", "ja": "players.ja.md"}
"""The guide's file in docs/, per language."""


def guide_markdown(lang: str) -> str:
    """The guide's markdown in ``lang`` (English for a language it is not written in)."""
    lang = lang if lang in GUIDE_LANGS else "en"
    return (files("relaybot.web") / "help" / f"players.{lang}.md").read_text(encoding="utf-8")


@lru_cache(maxsize=len(GUIDE_LANGS))
def guide_html(lang: str) -> str:
    """The guide in ``lang`` as HTML for the ``/help`` page (rendered once per process).

    CommonMark with tables; raw HTML in the source is escaped, not passed through, so the
    page holds only what markdown makes."""
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    return parser.render(guide_markdown(lang))


def docs_text(lang: str) -> str:
    """What ``docs/<DOCS_NAMES[lang]>`` holds: a line naming the source and linking the
    other language, then the guide's markdown unchanged."""
    lang = lang if lang in GUIDE_LANGS else "en"
    other = "ja" if lang == "en" else "en"
    label = "日本語" if other == "ja" else "English"
    return (f"<!-- generated from relaybot/web/help/players.{lang}.md by "
            f"scripts/players_guide.py: edit that file, then run the script -->\n"
            f"[{label}]({DOCS_NAMES[other]})\n\n" + guide_markdown(lang))
