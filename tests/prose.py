"""What a reader of Japanese reads: the Latin-letter words in a text that are the bot's
English rather than data. Shared by the mail samples, the web pages and the refusals."""

from __future__ import annotations

import re

from tests.sample_club import EVENT, LEAGUE

# what a Japanese mail may carry in Latin letters: data, not the bot's words. Links and
# addresses, zones, a command the reader types (`relaybot game show ID`) and a setting's
# name ([mail] td_alert_cap)
URL = re.compile(r"https?://\S+|[\w.+-]+@[\w.-]+|\b[A-Z][a-z]+/[A-Za-z_/]+|`[^`\n]+`"
                 r"|\[[a-z]+\] [a-z_]+")
SAN = re.compile(r"(?:[KQRBN]?[a-h]?[1-8]?[x-]?[a-h][1-8](?:=?[QRBN])?|O-O(?:-O)?"
                 r"|[a-h][1-8][a-h][1-8][qrbn]?)[+#]?")  # SAN, long algebraic, UCI
SGF = re.compile(r"\(;|[A-Z]{1,2}\[")  # an SGF record's lines (the go game's record)
WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9+#=-]*")  # not inside an id
# the players' and the TD's own words, names, the event, the site and the zone
THEIRS = ("May I claim a draw by repetition later?", "Yes, when it happens.", EVENT,
          "Kanto CC", "Ann Smith", "Tom Brown", "Smith, Ann", "Brown, Tom",
          "Smith Ann", "Brown Tom", "Jones Kate", "Green Sam",  # family first in Japanese
          "iCalendar",  # ... and a format's name, as PGN or FEN
          "Quarantine", "ValueError: sample failure",  # an IMAP folder, an error
          # the remote SMTP server's answer to an undeliverable mail
          "Recipient address rejected: User unknown in virtual mailbox table",
          # the league's players (a season of the shogi net league)
          *(m.name for m in LEAGUE), "Kate Jones", "Sam Green")


def english_words(text: str, game_ids: set[str]) -> list[str]:
    """Latin-letter words in ``text`` that are not data (record, board, FEN, PGN tags,
    links, acronyms such as TD or SAN, game ids, the ``td:`` keyword)."""
    found = []
    for line in text.splitlines():
        if line.startswith(("[", "FEN:", "SFEN:", ">", "#KIF")) or SGF.match(line):
            continue  # PGN tags, SGF and the position string are formats; ">" quotes a mail
        line = line.replace("Re: [", "[")  # a quoted mail's subject
        line = URL.sub(" ", line)
        for phrase in THEIRS:
            line = line.replace(phrase, " ")
        for token in WORD.findall(line):
            if sum(ch.isalpha() for ch in token) < 2 or token.isupper():
                continue
            if SAN.fullmatch(token) or token in game_ids or token == "td":
                continue
            found.append(token)
    return found
