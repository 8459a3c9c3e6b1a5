"""Configuration: TOML plus RELAYBOT_<SECTION>_<KEY> overrides; one clear line per mistake."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from relaybot.config import TEMPLATE, ConfigError, add_missing_keys, load_config, new_config_text


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


# ------------------------------------------------------------------ reply-token settings


def test_secret_settings_load_and_env_overrides(tmp_path: Path) -> None:
    """[bot] secret, secret_previous and authserv_id (INTERFACE.md "Configuration")."""
    path = tmp_path / "relaybot.toml"
    path.write_text('[bot]\nsecret = "s1"\nauthserv_id = "mx.club.example"\n', encoding="utf-8")
    cfg = load_config(path, environ={})
    assert (cfg.bot.secret, cfg.bot.secret_previous, cfg.bot.authserv_id) == (
        "s1", "", "mx.club.example")
    assert cfg.bot.token_keys() == ("s1",)
    env = {"RELAYBOT_BOT_SECRET": "s2", "RELAYBOT_BOT_SECRET_PREVIOUS": "s1",
           "RELAYBOT_BOT_AUTHSERV_ID": ""}
    cfg = load_config(path, environ=env)
    assert cfg.bot.token_keys() == ("s2", "s1") and cfg.bot.authserv_id == ""
    assert "s2" not in repr(cfg)  # keys stay out of logs and tracebacks


def test_a_config_without_secret_loads_but_cannot_issue_tokens(tmp_path: Path) -> None:
    cfg = load_config(tmp_path / "none.toml", environ={})
    assert cfg.bot.secret == ""
    with pytest.raises(ConfigError) as info:
        cfg.bot.token_keys()
    assert "bot.secret" in str(info.value) and "\n" not in str(info.value)


def test_a_new_config_gets_a_random_secret(tmp_path: Path) -> None:
    first, second = new_config_text(), new_config_text()
    path = tmp_path / "relaybot.toml"
    path.write_text(first, encoding="utf-8")
    cfg = load_config(path, environ={})
    assert len(cfg.bot.secret) >= 40 and cfg.bot.secret in first and cfg.bot.secret not in second
    assert cfg.bot.secret_previous == "" and cfg.bot.authserv_id == ""


def test_init_on_an_existing_config_adds_missing_keys_and_keeps_the_rest() -> None:
    old = ('# our club\n[bot]\naddress = "relay@chess.example"  # the bot\n'
           'td = "td@chess.example"\n\n[imap]\npassword = "hunter2"\n')
    text, added = add_missing_keys(old)
    assert "bot.secret" in added and "bot.authserv_id" in added and "database.url" in added
    assert "bot.address" not in added and "imap.password" not in added
    for line in old.splitlines():
        assert line in text.splitlines()  # every line of the operator's file is kept
    data = tomllib.loads(text)
    assert data["bot"]["address"] == "relay@chess.example"
    assert data["imap"]["password"] == "hunter2"
    assert len(data["bot"]["secret"]) >= 40
    # a second run adds nothing
    assert add_missing_keys(text) == (text, [])


def test_init_keeps_an_existing_secret_and_refuses_what_it_cannot_edit() -> None:
    text, added = add_missing_keys(new_config_text().replace('secret = "', 'secret = "mine'))
    assert added == [] and 'secret = "mine' in text
    with pytest.raises(ConfigError, match="by hand"):
        add_missing_keys('bot = { address = "relay@club.example" }\n')
    with pytest.raises(ConfigError, match="not valid TOML"):
        add_missing_keys("[bot\n")


def test_mail_caps_and_retention_defaults_file_and_env(tmp_path: Path) -> None:
    """issue 12: [mail] reply_cap, td_alert_cap, retention_days; init adds them to an old
    config."""
    cfg = load_config(tmp_path / "none.toml", environ={})
    assert (cfg.mail.reply_cap, cfg.mail.td_alert_cap, cfg.mail.retention_days) == (20, 30, 30)
    path = tmp_path / "relaybot.toml"
    path.write_text(TEMPLATE.replace("retention_days = 30", "retention_days = 7"),
                    encoding="utf-8")
    cfg = load_config(path, environ={"RELAYBOT_MAIL_REPLY_CAP": "5"})
    assert (cfg.mail.reply_cap, cfg.mail.retention_days) == (5, 7)
    with pytest.raises(ConfigError, match=r"mail\.td_alert_cap"):
        load_config(path, environ={"RELAYBOT_MAIL_TD_ALERT_CAP": "many"})
    old = "[bot]\naddress = \"relay@club.example\"\n"
    _text, added = add_missing_keys(old)
    assert {"mail.reply_cap", "mail.td_alert_cap", "mail.retention_days"} <= set(added)
