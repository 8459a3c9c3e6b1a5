"""Loading the configuration: the TOML file, then ``RELAYBOT_<SECTION>_<KEY>``
environment overrides, every key checked (:mod:`relaybot.config.checks`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from relaybot.config.checks import ConfigError, check_value, is_bot_mailbox
from relaybot.config.settings import (
    SCHEMA,
    BotConfig,
    Config,
    DatabaseConfig,
    DigestConfig,
    ImapConfig,
    LogConfig,
    MailConfig,
    SmtpConfig,
    WebConfig,
)


def config_path(environ: dict[str, str] | None = None) -> Path:
    """Where the configuration file is looked for."""
    env = os.environ if environ is None else environ
    return Path(env.get("RELAYBOT_CONFIG", "relaybot.toml"))


def load_config(path: Path | None = None, environ: dict[str, str] | None = None) -> Config:
    """Read the TOML file (if any) and apply environment overrides; validate all keys."""
    env = dict(os.environ if environ is None else environ)
    path = path or config_path(env)
    data: dict[str, Any] = {}
    source = "defaults"
    if path.exists():
        import tomllib  # here: `relaybot --help` reads no file

        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
        source = str(path)
    elif "RELAYBOT_CONFIG" in env:
        raise ConfigError(f"RELAYBOT_CONFIG points to {path}, which does not exist")
    for section in data:
        if section not in SCHEMA:
            raise ConfigError(f"{path}: unknown section [{section}]")
        if not isinstance(data[section], dict):
            raise ConfigError(f"{path}: [{section}] must be a table")
        for key in data[section]:
            if key not in SCHEMA[section]:
                raise ConfigError(f"{path}: unknown key {section}.{key}")
    _check_env_names(env)
    values: dict[str, dict[str, Any]] = {}
    for section, keys in SCHEMA.items():
        values[section] = {}
        for key, (default, kind) in keys.items():
            env_name = f"RELAYBOT_{section.upper()}_{key.upper()}"
            if env_name in env:
                raw, origin = env[env_name], env_name
            elif key in data.get(section, {}):
                raw, origin = data[section][key], str(path)
            else:
                raw, origin = default, "default"
            values[section][key] = check_value(section, key, raw, kind, origin)
    _td_is_not_the_bot(values["bot"]["td"], values["bot"]["address"])
    smtp = SmtpConfig(**values["smtp"])
    problem = smtp.plaintext_auth_problem()
    if problem is not None:
        raise ConfigError(problem)
    return Config(
        database=DatabaseConfig(**values["database"]),
        bot=BotConfig(**values["bot"]),
        imap=ImapConfig(**values["imap"]),
        smtp=smtp,
        source=source,
        log=LogConfig(**values["log"]),
        mail=MailConfig(**values["mail"]),
        web=WebConfig(**values["web"]),
        digest=DigestConfig(**values["digest"]),
    )


def _check_env_names(env: dict[str, str]) -> None:
    """A ``RELAYBOT_<SECTION>_<KEY>`` naming a section without that key is a mistyped
    setting (``RELAYBOT_IMAP_HOTS``): one line naming it, rather than a default used in
    silence. Variables outside the sections (``RELAYBOT_CONFIG``) are not settings."""
    for name in env:
        if not name.startswith("RELAYBOT_"):
            continue
        rest = name.removeprefix("RELAYBOT_").lower()
        _check_section_name(name, rest)
        for section, keys in SCHEMA.items():
            key = rest.removeprefix(f"{section}_")
            if key == rest or key in keys:
                continue
            import difflib

            near = difflib.get_close_matches(key, list(keys), n=1)
            hint = f"; did you mean RELAYBOT_{section.upper()}_{near[0].upper()}?" if near else ""
            raise ConfigError(f"{name}: [{section}] has no key {key!r}{hint}")


def _check_section_name(name: str, rest: str) -> None:
    """A mistyped section (``RELAYBOT_SMPT_HOST``) names no section, so it would pass as
    one of the tools' own variables and the setting stay at its default unsaid: when the
    rest is a key of a section spelled nearly so, one line naming the setting meant."""
    import difflib

    head, _, tail = rest.partition("_")
    if head in SCHEMA or not tail:
        return
    for section, keys in SCHEMA.items():
        if tail in keys and difflib.SequenceMatcher(None, head, section).ratio() >= 0.6:
            raise ConfigError(f"{name}: there is no section [{head}]; did you mean "
                              f"RELAYBOT_{section.upper()}_{tail.upper()}?")


def _td_is_not_the_bot(td: str, address: str) -> None:
    """``bot.td`` naming the bot's own mailbox (``relay@``, or one of its plus addresses)
    would send every TD alert back to the bot, which answers no mail of its own (G7): the
    TD would never hear of an overrun or a question. One line naming the key instead."""
    if is_bot_mailbox(td, address):
        raise ConfigError(f"bot.td = {td!r} is the bot's own address ({address}): the TD "
                          f"would never read a report; set it to the tournament director's")
