"""Where templates come from: the package's own folder, or RELAYBOT_TEMPLATES."""

from __future__ import annotations

from pathlib import Path

import pytest

import relaybot
from relaybot.mail.render import render, templates_dir
from relaybot.store.db import MIGRATIONS


def test_templates_and_migrations_are_package_data() -> None:
    package = Path(relaybot.__file__).parent
    assert templates_dir() == package / "templates"
    assert (templates_dir() / "ja" / "player" / "move.txt.j2").is_file()
    assert MIGRATIONS == package / "migrations"
    assert (MIGRATIONS / "env.py").is_file() and (MIGRATIONS / "script.py.mako").is_file()


def test_relaybot_templates_overrides_the_folder(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "en" / "player").mkdir(parents=True)
    (tmp_path / "en" / "player" / "help.txt.j2").write_text(
        "Club help\n\nAsk {{ who }}.\n", encoding="utf-8")
    monkeypatch.setenv("RELAYBOT_TEMPLATES", str(tmp_path))
    assert templates_dir() == tmp_path
    assert render("en", "player", "help", who="the TD") == ("Club help", "Ask the TD.\n")
