"""The G13 bounds on untrusted mail: header length, MIME depth and parts, text size."""

from __future__ import annotations

__all__ = [
    "MAX_DEPTH",
    "MAX_ENCODED_TEXT_BYTES",
    "MAX_HEADER_CHARS",
    "MAX_HTML_CHARS",
    "MAX_ID_CHARS",
    "MAX_PARTS",
    "MAX_RECIPIENTS",
    "MAX_REFERENCES",
    "MAX_SUBJECT_CHARS",
    "MAX_TEXT_CHARS",
]

MAX_DEPTH = 20
"""MIME nesting deeper than this is ignored (G13)."""
MAX_PARTS = 500
"""At most this many MIME parts are examined (G13)."""
MAX_TEXT_CHARS = 1_000_000
"""Decoded body text is cut to this many characters (G13)."""
MAX_HTML_CHARS = 200_000
"""HTML beyond this is not parsed: bs4 costs ~20 us per tag (G13)."""
MAX_ENCODED_TEXT_BYTES = 4_000_000
"""A text part whose encoded payload is larger is truncated before decoding (G13)."""
MAX_HEADER_CHARS = 65_536
"""Header values are cut to this length before any parsing (G13)."""
MAX_SUBJECT_CHARS = 2_000
MAX_ID_CHARS = 998
MAX_RECIPIENTS = 200
MAX_REFERENCES = 100
