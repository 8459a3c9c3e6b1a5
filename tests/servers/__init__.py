"""Real servers started on loopback for the integration tests (see DESIGN.md "Real parts").

- :mod:`tests.servers.dovecot`: a Dovecot IMAP server from a config in a temp dir.
- :mod:`tests.servers.smtp_sink`: an aiosmtpd capture sink with scriptable failures.
"""

from tests.servers.dovecot import Account, Dovecot, DovecotError
from tests.servers.smtp_sink import Captured, SmtpSink

__all__ = ["Account", "Captured", "Dovecot", "DovecotError", "SmtpSink"]
