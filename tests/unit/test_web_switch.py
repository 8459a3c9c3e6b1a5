"""The language switch of every web page: the same page in the other language."""

from __future__ import annotations

from starlette.requests import Request

from relaybot.web.app import switch_link


def _request(path: str, query: str = "") -> Request:
    return Request({"type": "http", "method": "GET", "path": path,
                    "query_string": query.encode(), "headers": []})


def test_the_switch_keeps_the_other_query_parameters() -> None:
    """A reader looking at the board from Black's side (``side=1``) stays there when
    they switch language; only ``lang`` changes."""
    assert switch_link(_request("/games/abc234", "side=1&lang=en"), "ja") == \
        "/games/abc234?side=1&lang=ja"
    assert switch_link(_request("/"), "en") == "/?lang=en"


def test_the_switch_encodes_the_path_of_an_event_named_with_hash_or_question_mark() -> None:
    """An event's name is in its page's path; a ``#`` or ``?`` in it must stay part of
    the path, or the switch would open another page (``/events/Cup``); spaces and kanji
    are percent-encoded as in the site's own links."""
    link = switch_link(_request("/events/Cup #3?/A b"), "ja")
    assert link == "/events/Cup%20%233%3F/A%20b?lang=ja"
    assert switch_link(_request("/events/将棋例会 2026"), "en") == \
        "/events/%E5%B0%86%E6%A3%8B%E4%BE%8B%E4%BC%9A%202026?lang=en"
