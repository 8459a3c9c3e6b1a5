"""The pure parts of relaybot.mail.imap, without a server: responses and argument checks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from relaybot.mail.imap import ImapError, ImapSettings
from relaybot.mail.imap.responses import as_bytes, copyuid_sources, has_news, nonzero, to_utc
from relaybot.mail.imap.values import check_folder_name, check_uid


def test_copyuid_source_sets() -> None:
    assert copyuid_sources(b"[COPYUID 1700000000 4,7:9 21:24] Moved") == {4, 7, 8, 9}
    assert copyuid_sources(b"[copyuid 17 9:7 1:3]") == {7, 8, 9}
    assert copyuid_sources(b"OK no code here") == set()
    assert copyuid_sources(b"[COPYUID 17]") == set()
    assert copyuid_sources(b"[COPYUID 17 4,x 1:2]") == set()  # unreadable: trust nothing
    assert copyuid_sources(b"[COPYUID 17 1:200000 1:200000]") == set()  # absurd range


def test_news_in_untagged_responses() -> None:
    assert has_news([(3, b"EXISTS")])
    assert has_news([(b"1", b"RECENT")])
    assert not has_news([(0, b"RECENT"), (b"0", b"RECENT"), (5, b"EXPUNGE"), b"junk"])
    with pytest.raises(ImapError):
        has_news([(b"BYE", b"shutting down")])


def test_small_readers() -> None:
    jst = timezone(timedelta(hours=9))
    assert to_utc(datetime(2026, 1, 10, 9, 0, tzinfo=jst)) == datetime(2026, 1, 10, tzinfo=UTC)
    assert to_utc(datetime(2026, 1, 10)).tzinfo is UTC
    with pytest.raises(ImapError):
        to_utc(b"10-Jan-2026")
    assert nonzero(2) and nonzero(b" 3 ") and not nonzero("0") and not nonzero(None)
    assert as_bytes(b"x") == b"x" and as_bytes("[COPYUID 1 2 3]") == b"[COPYUID 1 2 3]"


def test_arguments_are_checked() -> None:
    assert check_uid(7) == 7
    for bad in (0, -1, True, "7"):
        with pytest.raises(ValueError):
            check_uid(bad)  # type: ignore[arg-type]
    check_folder_name("Processed")
    for bad in ("", "a\r\nb", "x\0"):
        with pytest.raises(ValueError):
            check_folder_name(bad)
    with pytest.raises(ValueError):
        ImapSettings("h", 143, "u", "p", folder="IN\nBOX")
    with pytest.raises(ValueError):
        ImapSettings("h", 143, "u", "p", tls="maybe")
