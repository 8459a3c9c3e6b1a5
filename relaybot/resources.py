"""Folders shipped inside the package (templates/, migrations/), found the same way in a
checkout, an editable install and an installed wheel."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def package_dir(name: str) -> Path:
    """The real folder ``relaybot/<name>``, for tools that need a path on disk.

    Jinja2's FileSystemLoader and Alembic's script_location both read a directory, so a
    resource inside a zip archive cannot serve them: say so instead of failing later.
    """
    folder = files("relaybot") / name
    if not isinstance(folder, Path) or not folder.is_dir():
        raise RuntimeError(f"relaybot/{name} is not a folder on disk ({folder}); "
                           "install relaybot as an unpacked wheel or from a checkout")
    return folder
