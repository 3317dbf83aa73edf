"""The Textual terminal UI: a thin layer over `aniso.Assistant`.

Importing this package is cheap; Textual and the core load when `run` is called,
and the heavy parts (models, indexes) only in a worker after the first paint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aniso.core.settings import Settings


def run(settings: Settings) -> None:
    """Open the app on a terminal; returns when the user quits."""
    from aniso.core.db import ensure_data_dir, permission_warning
    from aniso.logs import log_to_data_dir
    from aniso.tui.app import AnisoApp
    from aniso.tui.backend import Backend

    warning = permission_warning(settings.data_dir)
    log_to_data_dir(ensure_data_dir(settings.data_dir))
    notices = (warning,) if warning else ()
    AnisoApp(Backend(settings), schedule=True, notices=notices).run()
