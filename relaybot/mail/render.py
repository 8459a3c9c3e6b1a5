"""Jinja2 rendering of every mail a person reads, per language and audience.

Template names are fixed strings in code (``<lang>/<audience>/<kind>.txt.j2``),
never taken from mail; mail text only ever enters templates as data.
A template's first line is the subject, then one blank line, then the body.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template

from relaybot.core.clocks.controls import TimeControl
from relaybot.core.seasons.titles import title_words
from relaybot.core.text import display_name
from relaybot.core.words import common_termination
from relaybot.mail.kinds import kind_name
from relaybot.mail.plurals import count, ordinal
from relaybot.mail.wording import days_left, move_words, progress_text, result_text
from relaybot.mail.zones import zone_name
from relaybot.resources import package_dir

LANGS = ("ja", "en")
AUDIENCES = ("player", "td", "member", "operator")


def templates_dir() -> Path:
    """The templates folder: RELAYBOT_TEMPLATES, or the package's own relaybot/templates/."""
    return _templates_dir(os.environ.get("RELAYBOT_TEMPLATES"))


@lru_cache(maxsize=4)
def _templates_dir(override: str | None) -> Path:
    # finding the package folder touches the file system: once per process, not once per mail
    return Path(override) if override else package_dir("templates")


def _with_filters(env: Environment) -> Environment:
    """The filters every template may use, mail and web alike."""
    env.filters["person"] = display_name
    env.filters["termination"] = termination_name
    env.filters["mail_kind"] = kind_name
    env.filters["time_control"] = time_control_text
    env.filters["count"] = count  # {{ days|count("day") }}: "1 day", "3 days" (CLDR)
    env.filters["ordinal"] = ordinal  # {{ rank|ordinal("en") }}: "2nd", "11th" (CLDR)
    env.filters["zone"] = zone_name  # {{ timezone|zone("ja") }}: 日本時間 (CLDR)
    # {{ plies|progress(kind, "ja") }}: 黒の第3手まで (chess), 6手まで (shogi, go)
    env.filters["progress"] = progress_text
    # {{ days|left("ja") }}: 17日, or 0日（3日超過） past the limit, never a negative count
    env.filters["left"] = days_left
    # {{ g.result|result(g.kind, g.termination, "ja") }}: 先手の勝ち, not the stored 1-0
    env.filters["result"] = lambda result, kind, termination, lang: result_text(
        kind, result, termination, lang)
    # {{ t.title|league_title("en") }}: Meijin (名人)
    env.filters["league_title"] = title_words
    # {% set mw = move_words(game_kind|default(""), "ja") %}: {{ mw.noun }} is 着手 in go,
    # 指し手 in chess and shogi (a go player plays 打ちました, never 指しました)
    env.globals["move_words"] = move_words
    return env


@lru_cache(maxsize=4)
def _environment(root: str) -> Environment:
    env = Environment(
        loader=FileSystemLoader(root),
        undefined=StrictUndefined,
        autoescape=False,  # plain-text mail; HTML goes through _html_environment
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # templates are read once per process: no stat() per mail
    )
    return _with_filters(env)


@lru_cache(maxsize=4)
def _html_environment(root: str) -> Environment:
    # the web pages and the HTML part of mails: the same folders, escaped
    env = Environment(
        loader=FileSystemLoader(root), undefined=StrictUndefined, autoescape=True,
        trim_blocks=True, lstrip_blocks=True, auto_reload=False)
    return _with_filters(env)


def compile_templates(html_pages: Iterable[str] = ()) -> int:
    """Compile every mail template and the HTML pages named (``<lang>/web/<page>``) in
    each language, once for the process (a service warms up with it: the first mail
    after a start then pays nothing for it); returns how many were compiled."""
    root = str(templates_dir())
    text, html = _environment(root), _html_environment(root)
    done = 0
    for name in text.list_templates(extensions=["j2"]):
        lang, _, rest = name.partition("/")
        if lang in LANGS and rest.split("/", 1)[0] in AUDIENCES and name.endswith(".txt.j2"):
            text.get_template(name)
            done += 1
    for lang in LANGS:
        for page in html_pages:
            html.get_template(f"{lang}/web/{page}.html.j2")
            done += 1
    return done


def render_html(lang: str, name: str, /, **context: Any) -> str:
    """Render an HTML template ``<lang>/web/<name>.html.j2`` (a web page, or the HTML
    part of a mail); every value is escaped, names as ``lang`` writes them."""
    if lang not in LANGS:
        lang = "en"
    if not name.replace("_", "").isalnum():
        raise ValueError(f"no such page: {name}")
    template = _html_environment(str(templates_dir())).get_template(f"{lang}/web/{name}.html.j2")
    return template.render(lang=lang, **named(context, lang))


def termination_name(termination: str, lang: str) -> str:
    """How a game ended in ``lang`` in the words every game shares (``resignation`` is 投了
    in Japanese); a game's own endings are its plug-in's (``relaybot.mail.wording``)."""
    return common_termination(termination, lang)


def time_control_text(text: str | None, lang: str) -> str:
    """A game's time control as ``lang`` says it (``bank:20`` is 通算20日 in Japanese);
    a text that is no time control stays as it is."""
    try:
        return TimeControl.parse(text).describe(lang) if text else ""
    except ValueError:
        return text or ""


# The context keys that hold a member's stored "Family, Given" name: every template shows
# them as the reader's language writes names ("Ann Smith", 山田太郎), so no mail says
# "Dear Smith, Ann" whoever built its context
NAME_KEYS = ("reader", "white", "black", "sender", "player", "to_move_name", "opponent")


def named(context: dict[str, Any], lang: str) -> dict[str, Any]:
    """``context`` with the names under :data:`NAME_KEYS` as ``lang`` writes them."""
    return context | {key: display_name(context[key], lang) for key in NAME_KEYS
                      if isinstance(context.get(key), str)}


def render_footer(lang: str, help_link: str, game_kind: str = "") -> str:
    """The lines every mail ends with when the web pages run: a signature separator (so a
    reply that pastes the mail back leaves them out) and the link to the players' guide,
    in the words of the mail's game (``game_kind``; "" for a mail about no one game)."""
    if lang not in LANGS:
        lang = "en"
    template = _environment(str(templates_dir())).get_template(f"{lang}/footer.txt.j2")
    return template.render(help_link=help_link, game_kind=game_kind)


def _mail_template(lang: str, audience: str, stem: str) -> tuple[Template, str]:
    """The template ``<lang>/<audience>/<stem>.txt.j2`` (English for a language we do not
    write) and the language it is in; the names are checked, never taken as paths."""
    if lang not in LANGS:
        lang = "en"
    if audience not in AUDIENCES or not stem.replace("_", "").isalnum():
        raise ValueError(f"no such template: {audience}/{stem}")
    env = _environment(str(templates_dir()))
    return env.get_template(f"{lang}/{audience}/{stem}.txt.j2"), lang


def render_part(lang: str, audience: str, part: str, /, **context: Any) -> str:
    """One paragraph several mails end with (``<lang>/<audience>/_<part>.txt.j2``), such
    as the note to a TD who plays in the game a report is about."""
    template, lang = _mail_template(lang, audience, f"_{part}")
    return template.render(**named(context, lang)).strip("\n") + "\n"


def render(lang: str, audience: str, kind: str, /, **context: Any) -> tuple[str, str]:
    """Render one mail; returns (subject, body)."""
    template, lang = _mail_template(lang, audience, kind)
    text = template.render(**named(context, lang))
    subject, _, body = text.partition("\n\n")
    return " ".join(subject.split()), body.strip("\n") + "\n"
