"""Jinja2 rendering of every mail a person reads, per language and audience.

Template names are fixed strings in code (``<lang>/<audience>/<kind>.txt.j2``),
never taken from mail; mail text only ever enters templates as data.
A template's first line is the subject, then one blank line, then the body.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

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


@lru_cache(maxsize=4)
def _environment(root: str) -> Environment:
    env = Environment(
        loader=FileSystemLoader(root),
        undefined=StrictUndefined,
        autoescape=False,  # plain-text mail; nothing is ever rendered as HTML
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # templates are read once per process: no stat() per mail
    )
    return env


def render(lang: str, audience: str, kind: str, /, **context: Any) -> tuple[str, str]:
    """Render one mail; returns (subject, body)."""
    if lang not in LANGS:
        lang = "en"
    if audience not in AUDIENCES or not kind.replace("_", "").isalnum():
        raise ValueError(f"no such template: {audience}/{kind}")
    template = _environment(str(templates_dir())).get_template(f"{lang}/{audience}/{kind}.txt.j2")
    text = template.render(**context)
    subject, _, body = text.partition("\n\n")
    return " ".join(subject.split()), body.strip("\n") + "\n"
