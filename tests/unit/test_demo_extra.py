"""`relaybot demo` without the demo extra (aiosmtpd, pymap) says in one line how to add it
(issue 28, Packaging): a plain `pip install relaybot` carries only what run, web and the
CLI need."""

from __future__ import annotations

import sys

import pytest

from relaybot.cli import main


@pytest.mark.parametrize("missing", ["pymap", "aiosmtpd"])
def test_demo_without_its_servers_says_how_to_install_them(
        missing: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # as if the package were not installed: importing it raises ModuleNotFoundError
    for name in list(sys.modules):
        if name == missing or name.startswith(missing + ".") or name in (
                "relaybot.app.demo", "relaybot.app.demo_servers"):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, missing, None)
    code = main(["demo"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1, err
    assert "pip install 'relaybot[demo]'" in err
    assert "デモ" in err
