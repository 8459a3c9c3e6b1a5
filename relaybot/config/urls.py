"""Database URLs with a password in them: where the password is, and the URL (or a line
of text naming one) fit to print, its password as ``***``.
"""

from __future__ import annotations

import re

# where a URL's userinfo starts: ``scheme://user:``; what follows is its password
_URL_USERINFO_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^:/?#@\s]*:")


def _password_spans(text: str) -> list[tuple[int, int]]:
    """Where the passwords of the URLs in ``text`` are: (start, end) of each.

    A password may hold ``/``, ``?``, ``#``, ``:`` and even ``@`` unencoded (SQLAlchemy
    accepts the first four; urlparse would cut the userinfo short at them), so it runs
    from the ``:`` after the user name to the *last* ``@`` of the URL: of the run of text
    without white space, else of the line. A ``:`` that is a port (``host:5432/db``, no
    ``@`` after it) starts no password. Where a URL holds an ``@`` after its host, the
    span is longer than the password, never shorter.
    """
    spans: list[tuple[int, int]] = []
    for match in _URL_USERINFO_RE.finditer(text):
        start = match.end()
        if spans and start <= spans[-1][1]:
            continue  # inside a password already found
        line_end = min([len(text)] + [i for i in (text.find("\r", start),
                                                   text.find("\n", start)) if i != -1])
        word_end = start
        while word_end < line_end and not text[word_end].isspace():
            word_end += 1
        at = text.rfind("@", start, word_end)
        if at == -1:
            at = text.rfind("@", start, line_end)
        if at != -1:
            spans.append((start, at))
    return spans


def url_password(url: str) -> str | None:
    """The password of a database URL as written (still %-encoded), None without one."""
    spans = _password_spans(url)
    return url[spans[0][0]:spans[0][1]] if spans else None


def redact_url(text: str) -> str:
    """A database URL (or a line of text naming one) fit to print: every password as
    ``***``, whatever characters it holds (see :func:`_password_spans`)."""
    out: list[str] = []
    pos = 0
    for start, end in _password_spans(text):
        out.append(text[pos:start] + "***")
        pos = end
    out.append(text[pos:])
    return "".join(out)
