"""What the bot says, as a value in both of its languages (issue 15: no English word of
the bot's in a Japanese mail).

A sentence built where the facts are (a TD command's outcome, say) cannot wait for a
template to translate it: it carries its English and its Japanese, and the reader's
language picks one when the mail is rendered.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Said:
    """One sentence of the bot's, in English (``en``: what the CLI prints and English
    mail shows) and in Japanese (``ja``)."""

    en: str
    ja: str

    def in_lang(self, lang: str) -> str:
        """The sentence in ``lang``: Japanese for ``ja``, else English."""
        return self.ja if lang == "ja" else self.en

    def __str__(self) -> str:
        return self.en
