"""Where a session's HTML page lives unless told (beside its database), and opening it in a browser."""

from __future__ import annotations

import os
import sys
import webbrowser
from pathlib import Path

from ..storing.files import write_whole

PAGE = "index.html"


ORIGIN = "origin.txt"   # beside a page: which database's session it shows


def default_folder(db: Path, session_id: int) -> Path:
    """results/session-<id>/ beside results/concbench.sqlite: `run --page` writes there, `report --open` reads. Another
    file's pages are named after it (results/other-session-<id>/), so two databases in one folder never share one."""
    return db.parent / (f"session-{session_id}" if db.stem == "concbench" else f"{db.stem}-session-{session_id}")


def mark(folder: Path, origin: str) -> None:
    """Note beside a page written unasked which session of which database it shows (`origin`, below)."""
    write_whole(folder / ORIGIN, origin + "\n")


def shows(folder: Path, origin: str) -> bool:
    """Whether the page there was written for this session (not a database's since replaced, not another's)."""
    try:
        return (folder / PAGE).is_file() and (folder / ORIGIN).read_text().strip() == origin
    except OSError:
        return False


def _browser_at_hand() -> bool:
    """A graphical session, a platform with a default browser, or BROWSER naming one: never a text
    browser taking over the terminal unasked."""
    return bool(os.environ.get("BROWSER") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or sys.platform in ("darwin", "win32"))


def open_in_browser(path: Path) -> bool:
    """Hands the page to the browser; False where there is none (a server, an SSH session) or it refused."""
    if not _browser_at_hand():
        return False
    try:
        return webbrowser.open(path.resolve().as_uri())
    except webbrowser.Error:
        return False
