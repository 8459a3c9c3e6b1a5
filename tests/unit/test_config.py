"""Configuration: TOML plus RELAYBOT_<SECTION>_<KEY> overrides; one clear line per mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from relaybot.config import TEMPLATE, ConfigError, load_config


def test_defaults_without_a_file(tmp_path: Path) -> None:
    cfg = load_config(tmp_path / "none.toml", environ={})
    assert cfg.database.url == "sqlite:///relaybot.db"
    assert cfg.bot.game_address("k7m2qx") == "relay+k7m2qx@club.example"
    assert cfg.imap.port == 143 and cfg.smtp.port == 25


def test_template_is_valid_and_env_overrides(tmp_path: Path) -> None:
    path = tmp_path / "relaybot.toml"
    path.write_text(TEMPLATE, encoding="utf-8")
    cfg = load_config(path, environ={"RELAYBOT_IMAP_PORT": "1143", "RELAYBOT_BOT_LANGUAGE": "en"})
    assert cfg.imap.port == 1143
    assert cfg.bot.language == "en"
    assert cfg.smtp.connections == 2
    assert load_config(path, environ={"RELAYBOT_SMTP_CONNECTIONS": "1"}).smtp.connections == 1


@pytest.mark.parametrize(
    ("toml", "env", "needle"),
    [
        ("[imap]\nport = 'abc'\n", {}, "imap.port"),
        ("", {"RELAYBOT_SMTP_PORT": "70000"}, "RELAYBOT_SMTP_PORT"),
        ("[bot]\ntimezone = 'Mars/Olympus'\n", {}, "bot.timezone"),
        ("[bot]\nlanguage = 'fr'\n", {}, "bot.language"),
        ("[imap]\ntls = 'maybe'\n", {}, "imap.tls"),
        ("[bot]\ntd = 'not an address'\n", {}, "bot.td"),
        ("[bot]\naddress = 'relay+x@club.example'\n", {}, "bot.address"),
        ("[imapp]\nhost = 'x'\n", {}, "[imapp]"),
        ("[imap]\nhots = 'x'\n", {}, "imap.hots"),
        ("[imap\n", {}, "not valid TOML"),
        ("[smtp]\nconnections = 0\n", {}, "smtp.connections"),
        ("", {"RELAYBOT_SMTP_CONNECTIONS": "many"}, "RELAYBOT_SMTP_CONNECTIONS"),
    ],
)
def test_bad_settings_name_the_key(
    tmp_path: Path, toml: str, env: dict[str, str], needle: str
) -> None:
    path = tmp_path / "relaybot.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path, environ=env)
    message = str(info.value)
    assert needle in message
    assert "\n" not in message


def test_missing_explicit_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(environ={"RELAYBOT_CONFIG": str(tmp_path / "nope.toml")})
