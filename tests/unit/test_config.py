"""Configuration: TOML plus RELAYBOT_<SECTION>_<KEY> overrides; one clear line per mistake."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from relaybot.config import (
    TEMPLATE,
    ConfigError,
    add_missing_keys,
    load_config,
    new_config_text,
    redact_url,
)


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
        # 0 would poll IMAP without a pause, download no mail, or time out every server
        ("", {"RELAYBOT_IMAP_POLL_SECONDS": "0"}, "imap.poll_seconds"),
        ("[imap]\nmax_size = 0\n", {}, "imap.max_size"),
        ("[smtp]\ntimeout = 0\n", {}, "smtp.timeout"),
        # a database relaybot does not run on is named here, not by a driver's traceback
        ("[database]\nurl = 'mysql://club@db/club'\n", {}, "database.url"),
        ("", {"RELAYBOT_DATABASE_URL": "relaybot.db"}, "RELAYBOT_DATABASE_URL"),
        ("[database]\nurl = ''\n", {}, "database.url"),
        # a mistyped override is named (with the key it was meant to be), not ignored
        ("", {"RELAYBOT_IMAP_HOTS": "mail.club.example"}, "did you mean RELAYBOT_IMAP_HOST?"),
        ("", {"RELAYBOT_SMTP_TLS_MODE": "ssl"}, "RELAYBOT_SMTP_TLS_MODE"),
        # a mistyped section too, when the rest is a key of the section meant
        ("", {"RELAYBOT_SMPT_HOST": "mail.club.example"}, "did you mean RELAYBOT_SMTP_HOST?"),
        ("", {"RELAYBOT_IMPA_POLL_SECONDS": "30"}, "RELAYBOT_IMAP_POLL_SECONDS"),
        # the TD's mail sent to the bot itself would be read by nobody
        ("[bot]\ntd = 'Relay@club.example'\n", {}, "bot.td"),
        ("", {"RELAYBOT_BOT_TD": "relay+td@club.example"}, "bot.td"),
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


# --- issue 14: [log], [smtp] allow_plaintext_auth, passwords never printed ---------------

@pytest.mark.parametrize(
    ("host", "tls", "allow", "refused"),
    [
        ("smtp.club.example", "none", None, True),  # the password in the clear: refused
        ("192.0.2.25", "none", None, True),
        ("smtp.club.example", "starttls", None, False),
        ("smtp.club.example", "ssl", None, False),
        ("127.0.0.1", "none", None, False),  # a local MTA: nothing leaves the machine
        ("localhost", "none", None, False),
        ("::1", "none", None, False),
        ("smtp.club.example", "none", "true", False),  # the operator said so
    ],
)
def test_smtp_auth_in_the_clear_only_to_loopback_unless_allowed(
        tmp_path: Path, host: str, tls: str, allow: str | None, refused: bool) -> None:
    """Issue 12 item 11: AUTH without TLS to another host is refused, naming the option."""
    env = {"RELAYBOT_SMTP_HOST": host, "RELAYBOT_SMTP_TLS": tls,
           "RELAYBOT_SMTP_USER": "relay", "RELAYBOT_SMTP_PASSWORD": "pw"}
    if allow is not None:
        env["RELAYBOT_SMTP_ALLOW_PLAINTEXT_AUTH"] = allow
    if refused:
        with pytest.raises(ConfigError, match=r"smtp\.allow_plaintext_auth") as info:
            load_config(tmp_path / "none.toml", environ=env)
        assert "\n" not in str(info.value) and "pw" not in str(info.value)
    else:
        assert load_config(tmp_path / "none.toml", environ=env).smtp.host == host


def test_no_auth_needs_no_tls(tmp_path: Path) -> None:
    cfg = load_config(tmp_path / "none.toml", environ={"RELAYBOT_SMTP_HOST": "postfix"})
    assert cfg.smtp.user == "" and cfg.smtp.allow_plaintext_auth is False


def test_allow_plaintext_auth_is_a_boolean(tmp_path: Path) -> None:
    path = tmp_path / "relaybot.toml"
    path.write_text("[smtp]\nallow_plaintext_auth = true\n", encoding="utf-8")
    assert load_config(path, environ={}).smtp.allow_plaintext_auth is True
    with pytest.raises(ConfigError, match="RELAYBOT_SMTP_ALLOW_PLAINTEXT_AUTH"):
        load_config(path, environ={"RELAYBOT_SMTP_ALLOW_PLAINTEXT_AUTH": "perhaps"})
    path.write_text('[smtp]\nallow_plaintext_auth = "yes please"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"smtp\.allow_plaintext_auth"):
        load_config(path, environ={})


def test_log_level_and_format(tmp_path: Path) -> None:
    cfg = load_config(tmp_path / "none.toml", environ={})
    assert (cfg.log.level, cfg.log.format) == ("info", "text")
    env = {"RELAYBOT_LOG_LEVEL": "DEBUG", "RELAYBOT_LOG_FORMAT": "json"}
    cfg = load_config(tmp_path / "none.toml", environ=env)
    assert (cfg.log.level, cfg.log.format) == ("debug", "json")
    with pytest.raises(ConfigError, match="RELAYBOT_LOG_LEVEL"):
        load_config(tmp_path / "none.toml", environ={"RELAYBOT_LOG_LEVEL": "loud"})
    with pytest.raises(ConfigError, match=r"log\.format"):
        (tmp_path / "r.toml").write_text('[log]\nformat = "xml"\n', encoding="utf-8")
        load_config(tmp_path / "r.toml", environ={})


def test_template_names_the_new_keys_and_init_adds_them_to_an_old_config() -> None:
    data = tomllib.loads(TEMPLATE)
    assert data["log"] == {"level": "info", "format": "text"}
    assert data["smtp"]["allow_plaintext_auth"] is False
    old = '[bot]\naddress = "relay@chess.example"\nsecret = "k"\n'
    text, added = add_missing_keys(old)
    assert {"log.level", "log.format", "smtp.allow_plaintext_auth"} <= set(added)
    again = tomllib.loads(text)
    assert again["smtp"]["allow_plaintext_auth"] is False and again["log"]["level"] == "info"
    assert again["bot"]["address"] == "relay@chess.example"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql+psycopg://relay:s3cr%40t@db:5432/relaybot",
         "postgresql+psycopg://relay:***@db:5432/relaybot"),
        ("postgresql+psycopg://relay@db/relaybot", "postgresql+psycopg://relay@db/relaybot"),
        ("sqlite:///relaybot.db", "sqlite:///relaybot.db"),
        ("postgresql://u:p@h/d and more text", "postgresql://u:***@h/d and more text"),
    ],
)
def test_redact_url_never_shows_a_password(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_the_smtp_sender_itself_never_sends_a_password_in_the_clear() -> None:
    """Issue 12 item 11: even settings built in code (not loaded) cannot AUTH in clear to
    another host: the sender refuses before it connects."""
    import asyncio

    from relaybot.config import SmtpConfig
    from relaybot.mail.smtp import SmtpSender

    remote = SmtpConfig(host="192.0.2.25", port=25, user="relay", password="pw", tls="none")
    with pytest.raises(ConfigError, match=r"smtp\.allow_plaintext_auth"):
        asyncio.run(SmtpSender(remote).__aenter__())
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


@pytest.mark.parametrize("url", ["sqlite:///relaybot.db", "sqlite://", "sqlite+pysqlite:///x.db",
                                 "postgresql+psycopg://relay@127.0.0.1/club",
                                 "postgresql://relay@db.club.example:5432/club"])
def test_database_urls_relaybot_runs_on(tmp_path: Path, url: str) -> None:
    cfg = load_config(tmp_path / "none.toml", environ={"RELAYBOT_DATABASE_URL": url})
    assert cfg.database.url == url


def test_a_bad_database_url_hides_its_password(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "none.toml",
                    environ={"RELAYBOT_DATABASE_URL": "mysql://club:s3cret@db/club"})
    assert "s3cret" not in str(info.value)
    assert "postgresql+psycopg://" in str(info.value)


def test_other_relaybot_variables_are_no_settings(tmp_path: Path) -> None:
    """Only a variable naming one of the sections is read as a setting: the tools' own
    (RELAYBOT_CONFIG, RELAYBOT_TEMPLATES, ...) load as before."""
    cfg = load_config(tmp_path / "none.toml", environ={"RELAYBOT_TEMPLATES": "x",
                                                       "RELAYBOT_WAKE_URL": "http://x",
                                                       "RELAYBOT_STACK_PORTS": "1",
                                                       "RELAYBOT_STACK_LOG": "x",
                                                       "RELAYBOT_TEST_PG": "x",
                                                       "RELAYBOT_FAULT_AT": "x",
                                                       "RELAYBOT_MAIL_REPLY_CAP": "5"})
    assert cfg.mail.reply_cap == 5


def test_the_template_names_every_setting() -> None:
    """`relaybot init` writes every key the docs list (operating.md "Configure"): set,
    or commented out with its default where most clubs leave it alone."""
    import re

    from relaybot.config.settings import SCHEMA

    section = ""
    named: set[str] = set()
    for line in TEMPLATE.splitlines():
        if header := re.match(r"^\[(\w+)\]", line):
            section = header.group(1)
        elif key := re.match(r"^#? ?(\w+) = ", line):
            named.add(f"{section}.{key.group(1)}")
    every = {f"{s}.{k}" for s, keys in SCHEMA.items() for k in keys}
    assert every <= named, sorted(every - named)
    # the commented ones are the defaults, and a file with them uncommented loads
    uncommented = re.sub(r"^# ?(\w+ = )", r"\1", TEMPLATE, flags=re.M)
    assert tomllib.loads(uncommented)["imap"]["poll_seconds"] == 60
