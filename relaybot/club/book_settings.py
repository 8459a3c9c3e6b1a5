"""The club's figures for its books (issue 30, seed 000): seed 000's, with the club's own
settings over them. The figures and the arithmetic are :mod:`relaybot.core.books_rules`
(pure); the club's settings are its ``club_settings`` rows.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.errors import AdminError
from relaybot.core.books_rules import ClubRules
from relaybot.store.models import ClubSetting


def rules_of(session: Session) -> ClubRules:
    """The club's figures: seed 000's, with the club's own settings over them."""
    values = dict(session.execute(select(ClubSetting.name, ClubSetting.value)).all())
    try:
        return ClubRules().with_values(values)
    except ValueError:
        return ClubRules()  # a setting from a newer release: the seed's figures


def set_settings(session: Session, values: dict[str, str]) -> ClubRules:
    """Change some of the club's figures (checked first, all or nothing)."""
    try:
        rules = rules_of(session).with_values(values)
    except ValueError as exc:
        raise AdminError(str(exc)) from None
    for name, text in values.items():
        row = session.get(ClubSetting, name)
        if row is None:
            session.add(ClubSetting(name=name, value=text.strip()))
        else:
            row.value = text.strip()
    return rules
