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


def test_compile_templates_compiles_every_mail_template_in_both_languages() -> None:
    """The service's warm-up compiles each mail template of every audience in each
    language, and the HTML pages it is given (a template that does not compile fails
    here, not on the first mail after a start)."""
    from relaybot.mail.render import AUDIENCES, LANGS, compile_templates, templates_dir

    root = templates_dir()
    mails = [p for lang in LANGS for audience in AUDIENCES
             for p in (root / lang / audience).glob("**/*.txt.j2")]
    assert len(mails) > 40
    assert compile_templates(("mail",)) == len(mails) + len(LANGS)
