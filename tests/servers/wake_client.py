"""A client for ``relaybot run``'s wake listener, as Dovecot's push script talks to it."""

from __future__ import annotations

import socket

# what relaybot-wake.lua sends: a POST with no body (a body would make Dovecot's client
# wait for "100 Continue")
WAKE = b"POST /wake HTTP/1.1\r\nHost: relaybot\r\nContent-Length: 0\r\n\r\n"


def ask(address: tuple[str, int], request: bytes) -> bytes:
    """Send ``request`` to the listener at ``address``; its whole answer (the listener
    closes the connection after it)."""
    with socket.create_connection(address, timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(4096):
            chunks.append(chunk)
    return b"".join(chunks)
