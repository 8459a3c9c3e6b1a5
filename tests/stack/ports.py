"""What one stack test run has to itself, so that two runs on one machine (two
``scripts/test.sh`` at once, say) do not clash: its loopback ports and the address of its
DNS stub. (Its compose project, and so its containers, volumes and image tags, is named
by ``scripts/stack_test.sh``: ``$RELAYBOT_STACK_PROJECT``.)

``scripts/stack_test.sh`` calls ``python -m tests.stack.ports reserve`` under its
machine-wide lock: the choice is recorded in the state folder under the script's PID, so
two runs started together never pick the same port, and a run that died frees its own.
:mod:`tests.stack.harness` then reads the choice from the environment
(``RELAYBOT_STACK_PORTS``, ``RELAYBOT_STACK_DNS``); run without the script, it picks free
ones itself.

Either variable may also be set by hand, whole or in part (``smtp=25025,imap=25143``):
what it names is kept, the rest is chosen.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import sys
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import NamedTuple

PORT_NAMES = ("smtp", "submission", "lmtp", "imap", "opendkim", "opendmarc", "postgres",
              "web", "relayhost", "wake")
# Below Linux's ephemeral range (32768-60999): no outgoing connection takes one of these
# between the choice and the service's start minutes later, as one could a port bind(0) gave
PORT_RANGE = range(20000, 32768)
DNS_PORT = 53  # resolv.conf names no port: each run has a loopback address of its own


def parse_ports(text: str) -> dict[str, int]:
    """``"smtp=25025,imap=25143"`` as a dict; an unknown name or a bad port raises."""
    ports: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep or name not in PORT_NAMES or not value.isdigit() \
                or not 0 < int(value) < 65536:
            raise ValueError(f"not NAME=PORT with NAME one of {', '.join(PORT_NAMES)}: "
                             f"{item!r}")
        ports[name] = int(value)
    return ports


def format_ports(ports: Mapping[str, int]) -> str:
    """The form :func:`parse_ports` reads."""
    return ",".join(f"{name}={port}" for name, port in ports.items())


def _bindable(kind: socket.SocketKind, address: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, kind) as sock:
        try:
            sock.bind((address, port))
        except PermissionError:
            return True  # a privileged port and no root: the stub's own bind will say so
        except OSError:
            return False
    return True


def choose_ports(fixed: Mapping[str, int], taken: Collection[int],
                 rng: random.Random) -> dict[str, int]:
    """A port for each of :data:`PORT_NAMES`: ``fixed`` as given, the rest free on
    127.0.0.1 now and not in ``taken`` (other runs' reservations)."""
    ports = {name: fixed[name] for name in PORT_NAMES if name in fixed}
    used = set(taken) | set(ports.values())
    for name in PORT_NAMES:
        while name not in ports:
            port = rng.choice(PORT_RANGE)
            if port not in used and _bindable(socket.SOCK_STREAM, "127.0.0.1", port):
                ports[name] = port
                used.add(port)
    return dict(sorted(ports.items(), key=lambda item: PORT_NAMES.index(item[0])))


def choose_dns(taken: Collection[str], rng: random.Random) -> str:
    """A loopback address (127.0.N.53; all of 127/8 is the loopback on Linux) whose UDP
    port 53 is free now and not in ``taken``. Not 127.0.0.53, systemd-resolved's."""
    while True:
        address = f"127.0.{rng.randrange(1, 255)}.53"
        if address not in taken and _bindable(socket.SOCK_DGRAM, address, DNS_PORT):
            return address


class Reservation(NamedTuple):
    """One run's ports (by name) and DNS stub address."""

    ports: dict[str, int]
    dns: str


def live_runs(state: Path) -> dict[int, Reservation]:
    """The reservations of the runs still alive, by PID; a dead run's file is removed."""
    runs: dict[int, Reservation] = {}
    for path in sorted((state / "runs").glob("*.json")):
        pid = int(path.stem) if path.stem.isdigit() else 0
        try:
            if pid <= 0:
                raise ProcessLookupError
            os.kill(pid, 0)
        except ProcessLookupError:
            path.unlink(missing_ok=True)
            continue
        except PermissionError:
            pass  # alive, another user's
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            runs[pid] = Reservation(parse_ports(str(data["ports"])), str(data["dns"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # half written: its owner holds the lock, or it is garbage
    return runs


def reserve(state: Path, owner: int, fixed_ports: Mapping[str, int], fixed_dns: str,
            rng: random.Random | None = None) -> Reservation:
    """Choose the ports and DNS address of run ``owner`` (a PID), away from those the live
    runs in ``state`` hold, and record them there. The caller holds the lock."""
    rng = rng or random.Random()
    others = [run for pid, run in live_runs(state).items() if pid != owner]
    ports = choose_ports(fixed_ports, {p for run in others for p in run.ports.values()}, rng)
    dns = fixed_dns or choose_dns({run.dns for run in others}, rng)
    runs = state / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    (runs / f"{owner}.json").write_text(
        json.dumps({"ports": format_ports(ports), "dns": dns}), encoding="utf-8")
    return Reservation(ports, dns)


def main(argv: list[str] | None = None) -> int:
    """``reserve --state DIR --owner PID``: print the ports (``RELAYBOT_STACK_PORTS``'s
    form) and the DNS address, one a line."""
    parser = argparse.ArgumentParser(prog="python -m tests.stack.ports")
    parser.add_argument("command", choices=["reserve"])
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--owner", type=int, required=True)
    args = parser.parse_args(argv)
    held = reserve(args.state, args.owner,
                   parse_ports(os.environ.get("RELAYBOT_STACK_PORTS", "")),
                   os.environ.get("RELAYBOT_STACK_DNS", ""))
    print(format_ports(held.ports))
    print(held.dns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
