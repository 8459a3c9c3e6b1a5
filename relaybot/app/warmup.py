"""Warming ``relaybot run`` up before its first move mail (issue 29 item 3).

A fresh process compiles each mail template and loads each game's picture fonts the
first time a mail needs them: the first move after a start would take half a second
more than the rest. The service calls :func:`warm_up` in a background thread as it
starts, so that work is done while it waits for mail, not while a player waits.

サービス起動時にメールのテンプレートと盤面画像の準備を済ませ、最初の指し手の転送が
遅れないようにします。
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger(__name__)

# the HTML part of a player's mail (the web pages are the web server's to warm)
_HTML = ("mail",)


def warm_up() -> None:
    """Compile every mail template, import each game and draw its start position once.

    Never raises: a failure here only means the first mail does this work itself.
    """
    try:
        _templates()
        _pictures()
    except Exception:  # warming is an optimisation: the mail path reports real errors
        log.debug("warm-up failed", exc_info=True)


def start_warm_up() -> threading.Thread:
    """:func:`warm_up` in a daemon thread (started; returned for tests to join)."""
    thread = threading.Thread(target=warm_up, name="relaybot-warm-up", daemon=True)
    thread.start()
    return thread


def _templates() -> None:
    from relaybot.mail.render import compile_templates

    compile_templates(_HTML)


def _pictures() -> None:
    import relaybot.mail.html  # noqa: F401  (the SVG rasteriser, for games without a PNG)
    from relaybot.club.views import board_picture
    from relaybot.games.registry import kinds, rules_for

    for kind in kinds():
        rules = rules_for(kind)
        board_picture(rules, rules.save(rules.start()), 0)
