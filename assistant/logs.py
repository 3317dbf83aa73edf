"""The log file in the data dir, redacted before anything reaches the disk.

Logs are a write path like any other (DESIGN §5): a warning that quotes a failing
message must not leak the card number inside it. Every record is formatted, passed
through the privacy guard, and only then written. Stderr stays quiet: users see
one-line errors, maintainers read `aniso.log`.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import threading
from pathlib import Path

LOG_NAME = "aniso.log"
MAX_BYTES = 1_000_000
BACKUPS = 2


class RedactingHandler(logging.handlers.RotatingFileHandler):
    """A rotating file handler that redacts each formatted record, traceback included."""

    _busy = threading.local()

    def format(self, record: logging.LogRecord) -> str:
        from aniso.privacy.guard import Guard

        if getattr(self._busy, "on", False):
            # The guard itself is logging (it failed): keep only what cannot hold a value.
            return f"{record.levelname} {record.name}: (record from inside the privacy guard)"
        self._busy.on = True
        try:
            return Guard().redact(super().format(record))
        finally:
            self._busy.on = False

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        """A log that cannot be written (a full disk) is dropped: logging's default
        would print a traceback to the user's terminal for a diagnostics file."""

    def _open(self):  # type: ignore[no-untyped-def]
        previous = os.umask(0o077)  # the log is as private as the database: 0600
        try:
            return super()._open()
        finally:
            os.umask(previous)


def log_to_data_dir(data_dir: Path, *, level: int = logging.INFO) -> Path:
    """Send the `aniso` loggers to `data_dir/aniso.log`, once per process."""
    path = data_dir / LOG_NAME
    root = logging.getLogger("aniso")
    for handler in root.handlers:
        if isinstance(handler, RedactingHandler) and Path(handler.baseFilename) == path:
            return path
    handler = RedactingHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(level)
    return path
