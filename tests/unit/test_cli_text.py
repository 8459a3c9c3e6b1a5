"""issue 12 item 11: undecodable bytes on the command line never reach the database."""

from __future__ import annotations

import pytest

from relaybot.cli import main


def test_an_argument_that_is_not_utf8_is_refused_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    # what Python makes of the byte 0xff in argv: a lone surrogate
    code = main(["member", "add", "--name", "Sato \udcff", "--email", "sato@example.jp"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not valid UTF-8 text" in err and "\\udcff" in err
