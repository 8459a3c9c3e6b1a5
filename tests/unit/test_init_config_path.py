"""`relaybot init` writes the config that RELAYBOT_CONFIG names when there is none yet: the
Docker image sets RELAYBOT_CONFIG to a file in its volume, which the first start's init
must create (issue 28, the stack proven: it refused with "which does not exist")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from relaybot.cli import main


def test_init_creates_the_config_relaybot_config_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    config = tmp_path / "volume" / "relaybot.toml"
    config.parent.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RELAYBOT_CONFIG", str(config))
    monkeypatch.setenv("RELAYBOT_DATABASE_URL", f"sqlite:///{tmp_path / 'club.db'}")
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert f"wrote {config}" in out and "database ready" in out
    assert config.stat().st_mode & 0o777 == 0o600
    assert 'secret = "' in config.read_text(encoding="utf-8")
    # any other command still says the named file is missing, if it is
    os.unlink(config)
    assert main(["member", "list"]) != 0
    assert "does not exist" in capsys.readouterr().err


def test_init_adding_a_secret_makes_an_old_config_private(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A config from before reply tokens (world-readable, no [bot] secret): init adds a
    random secret, keeps the operator's lines, and makes the file readable by its owner
    alone, saying so; a config that has its secret keeps its mode."""
    config = tmp_path / "relaybot.toml"
    config.write_text('[bot]\naddress = "relay@club.example"  # ours\n', encoding="utf-8")
    config.chmod(0o644)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RELAYBOT_DATABASE_URL", f"sqlite:///{tmp_path / 'club.db'}")
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert "bot.secret" in out and "now readable by you only (600)" in out
    assert config.stat().st_mode & 0o777 == 0o600
    text = config.read_text(encoding="utf-8")
    assert 'address = "relay@club.example"  # ours' in text and 'secret = "' in text
    # the operator's choice of mode, with the secret in: an upgrade adding another key
    config.write_text(text.replace('weekday = "monday"\n', ""), encoding="utf-8")
    config.chmod(0o640)
    assert main(["init"]) == 0
    assert "added digest.weekday\n" in capsys.readouterr().out
    assert config.stat().st_mode & 0o777 == 0o640
