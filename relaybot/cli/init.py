"""``relaybot init``: write relaybot.toml (or add the keys it lacks) and ready the database."""

from __future__ import annotations

import argparse
import os

from relaybot.cli.common import Subparsers, open_store
from relaybot.config import (
    Config,
    add_missing_keys,
    config_path,
    load_config,
    new_config_text,
    redact_url,
)


def register(sub: Subparsers) -> None:
    sub.add_parser("init", help="write relaybot.toml if missing (or add the keys it lacks); "
                   "create/upgrade the database").set_defaults(func=cmd_init)


def cmd_init(cfg: Config, args: argparse.Namespace) -> int:
    path = config_path()
    if not path.exists():
        # it holds the reply-token key: readable by the operator alone
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(new_config_text())
        print(f"wrote {path}")
    else:
        # an upgrade: add what a new config has and this one lacks (a random secret,
        # say), keep every other line (INTERFACE.md "Configuration")
        text, added = add_missing_keys(path.read_text(encoding="utf-8"), str(path))
        if added:
            tmp = path.with_name(path.name + ".new")
            tmp.unlink(missing_ok=True)
            # private from the first byte (it holds the secret), then the old file's mode
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            mode = path.stat().st_mode & 0o777
            private = ""
            if "bot.secret" in added and mode & 0o077:
                # the file now holds the reply-token key: nobody else may read it, as a
                # new config (an old one, written before the secret, may be 0644)
                mode &= 0o700
                private = f"; now readable by you only ({mode:o}), since it holds bot.secret"
            os.chmod(tmp, mode)
            os.replace(tmp, path)
            print(f"{path}: added {', '.join(added)}{private}")
        else:
            print(f"{path} exists; left as it is")
    cfg = load_config(path)  # the file as it is now: written, or with the keys just added
    store = open_store(cfg)
    store.dispose()
    print(f"database ready: {redact_url(cfg.database.url)}")
    return 0
