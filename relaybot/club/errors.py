"""The error every club ledger raises for an operator's or a TD's mistake."""


class AdminError(ValueError):
    """An operator mistake; the message is one line."""
