"""``relaybot web``: the read-only pages players look for (issue 15).

A shell: it reads the store through the same views the mails use and renders the same
template folders (``templates/<lang>/web/``). Nothing else in relaybot imports it. No
page shows anyone's mail address; the one write it takes is the RFC 8058 one-click
unsubscribe POST of the digest's ``List-Unsubscribe`` header.
"""

from relaybot.web.app import create_app, serve

__all__ = ["create_app", "serve"]
