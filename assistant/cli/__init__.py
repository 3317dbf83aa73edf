"""The `aniso` command line: a thin layer over `aniso.Assistant` and the stores.

Command names, flags and `--json` shapes are a contract that scripts rely on.
Imports of heavy modules happen inside commands so that `aniso --help` is fast.
Every AnisoError becomes one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from aniso import __version__
from aniso.core.errors import AnisoError, InputError

if TYPE_CHECKING:
    from aniso.core.settings import Settings
    from aniso.services import Services
    from aniso.tiers.index.vector_host import HostedIndex

EXIT_ERROR = 1
EXIT_INTERRUPTED = 130


class AnisoGroup(click.Group):
    """Turns every AnisoError into a one-line message and an exit status."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except AnisoError as error:
            click.echo(f"aniso: error: {error}", err=True)
            ctx.exit(EXIT_ERROR)
        except KeyboardInterrupt:
            click.echo("aniso: interrupted", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            # `aniso config | head` closed the pipe: the reader has what it wanted. Point
            # stdout at /dev/null so the interpreter's final flush cannot fail again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(EXIT_ERROR)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except Exception as error:  # noqa: BLE001 - the last line of defence: no tracebacks
            from aniso.core.db import is_write_failure, store_error

            if is_write_failure(error):  # a full disk, wherever it struck
                click.echo(f"aniso: error: {store_error(error)}", err=True)
                ctx.exit(EXIT_ERROR)
            logging.getLogger("aniso").exception("internal error")
            click.echo(f"aniso: internal error: {_describe_bug(error)}", err=True)
            if os.environ.get("ANISO_DEBUG"):
                traceback.print_exc()
            ctx.exit(EXIT_ERROR)


def _describe_bug(error: BaseException) -> str:
    """One line that still lets a maintainer find the bug: type, message, innermost frame.

    The full traceback is printed only with ANISO_DEBUG=1, so a user never sees one.
    """
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    message = " ".join(str(error).split())[:300]
    return f"{type(error).__name__}{where}: {message} (ANISO_DEBUG=1 shows the traceback)"


class Context:
    """Global options, turned into settings and services only when a command needs them."""

    def __init__(self, overrides: dict[str, Any]) -> None:
        self.overrides = overrides
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from aniso.core.settings import load_settings

            self._settings = load_settings(self.overrides)
        return self._settings

    def use_data_dir(self, path: str) -> None:
        """A command's own --data-dir (e.g. `doctor` on a restored backup) wins."""
        self.overrides["data_dir"] = path
        self._settings = None

    def services(
        self,
        *,
        temporary: bool = False,
        catch_up: bool = True,
        hosted_index: HostedIndex | None = None,
    ) -> Services:
        """The services, after catching up what fell due while nothing ran (thread
        briefs), unless `catch_up` is off (a read-only check such as `doctor`).
        `hosted_index`: the vector index a child process is opening (`ask`)."""
        services = self._build(temporary=temporary, hosted_index=hosted_index)
        if catch_up:
            _catch_up(services)
        return services

    def _build(self, *, temporary: bool, hosted_index: HostedIndex | None) -> Services:
        from aniso.core import timings
        from aniso.warmup import IMPORTS

        with timings.span("imports"), IMPORTS:  # not beside a warm-up thread's imports
            from aniso.core.db import ensure_data_dir, permission_warning
            from aniso.logs import log_to_data_dir
            from aniso.services import build

        with timings.span("stores"):
            warning = permission_warning(self.settings.data_dir)
            if warning:
                click.echo(f"aniso: {warning}", err=True)
            log_to_data_dir(ensure_data_dir(self.settings.data_dir))
            return build(self.settings, temporary=temporary, hosted_index=hosted_index)


def _catch_up(services: Services) -> None:
    """Catch up with a progress line on a TTY, quiet under the command's --json."""
    from aniso.cli.progress import Bar

    command = click.get_current_context(silent=True)
    quiet = bool(command is not None and command.params.get("as_json"))
    bars: list[Bar] = []

    def start(total: int) -> Callable[[int], None]:
        bars.append(Bar(f"catching up on {total} nights missed", total, quiet=quiet))
        return bars[-1].advance

    try:
        services.catch_up(
            start_progress=start, notice=lambda line: click.echo(f"aniso: {line}", err=True)
        )
    finally:
        for bar in bars:
            bar.stop()


pass_context = click.make_pass_decorator(Context)


@click.group(cls=AnisoGroup, invoke_without_command=True)
@click.option("--data-dir", type=click.Path(file_okay=False), help="Where memory is stored.")
@click.option("--model", help="A litellm model string; default: the embedded SmolLM2-135M.")
@click.option("--now", help="Simulated current time, ISO 8601 (for scenarios and tests).")
@click.version_option(__version__, prog_name="aniso")
@click.pass_context
def main(ctx: click.Context, data_dir: str | None, model: str | None, now: str | None) -> None:
    """Aniso: a personal assistant with anisotropic tiered memory.

    Run bare `aniso` for the terminal UI, `aniso chat` for a plain REPL, or
    `aniso ask "..."` for one answer.
    """
    from aniso.core import timings
    from aniso.core.runtime import limit_malloc_arenas, wipe_freed_memory

    timings.mark("cli")  # the interpreter and the command line are loaded

    limit_malloc_arenas()  # first, before any worker thread: see native_heap
    wipe_freed_memory()  # before any memory is read: forgotten bytes never linger in the heap
    ctx.obj = Context({"data_dir": data_dir, "model": model, "now": now})
    if ctx.invoked_subcommand is None:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            # Scripts and CI never hang on a full-screen app: no terminal, just help.
            click.echo(ctx.get_help())
            return
        from aniso.tui import run

        run(ctx.obj.settings)


def _read_message(text: str | None) -> str:
    if text is not None and text != "-":
        return text
    if sys.stdin is None or sys.stdin.isatty():
        raise InputError('no message: pass it as an argument, aniso ask "...", or on stdin')
    from aniso.inputs import decode_input

    return decode_input(sys.stdin.buffer.read(), source="stdin")


def _stream_to(stream: Any) -> Any:
    def write(piece: str) -> None:
        stream.write(piece)
        stream.flush()

    return write


@main.command()
@click.argument("text", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the reply and its memory as JSON.")
@click.option("--temporary", is_flag=True, help="Neither read nor write memory.")
@pass_context
def ask(context: Context, text: str | None, as_json: bool, temporary: bool) -> None:
    """Answer one message and exit. TEXT may be '-' (or omitted) to read stdin."""
    message = _read_message(text)
    from aniso.inputs import clean_message

    clean_message(message)  # refuse bad input before loading any model
    from aniso import warmup

    # The vector index opens in a child process, the model and the profile on threads:
    # all of it beside this thread's imports and the opening of the stores.
    hosted = warmup.host_index(context.settings, temporary=temporary)
    if hosted is not None:  # the child leaves the folder when the command ends, however
        click.get_current_context().call_on_close(hosted.close)
    warming = warmup.start(context.settings, message, vectors=hosted is None)
    services = context.services(temporary=temporary, hosted_index=hosted)
    # The digest goes to stderr: stdout stays the reply alone, for scripts.
    digest = services.assistant.pending_digest()
    if digest and not as_json:
        click.echo(digest + "\n", err=True)
    warmup.wait(warming)
    on_token = None if as_json else _stream_to(sys.stdout)
    reply = services.assistant.send(message, on_token=on_token, on_briefs=_show_briefs(as_json))
    if as_json:
        shown = _reply_json(reply)
        if digest:
            shown["digest"] = digest
        click.echo(json.dumps(shown, ensure_ascii=False, indent=2))
    else:
        if reply.text:
            sys.stdout.write("\n")
        _report(reply, undo_hint="undo: aniso profile undo")
    if reply.error:
        sys.exit(EXIT_ERROR)


def _show_briefs(quiet: bool) -> Any:
    """Where the user returns to an open thread after a pause, its brief comes first,
    on stderr (stdout stays the reply)."""

    def show(briefs: Any) -> None:
        if quiet:
            return
        for brief in briefs:
            click.echo(f"Where we left off on {brief.label}:\n{brief.text}\n", err=True)

    return show


def _report(reply: Any, *, undo_hint: str) -> None:
    """What a turn leaves to say, on stderr: notices, what it taught the profile
    (with how to undo that), and the error."""
    for notice in reply.notices:
        click.echo(f"aniso: {notice}", err=True)
    if reply.noted:
        click.echo(f"aniso: {reply.noted} ({undo_hint})", err=True)
    if reply.error:
        click.echo(f"aniso: error: {reply.error} (your message was stored)", err=True)


def _reply_json(reply: Any) -> dict[str, Any]:
    from aniso.profile.notice import change_dict

    return {
        "reply": reply.text,
        "episode_id": reply.episode_id,
        "error": reply.error,
        "notices": reply.notices,
        "profile_changes": [change_dict(change) for change in reply.profile_changes],
        "briefs": [{"thread": brief.label, "brief": brief.text} for brief in reply.briefs],
        "procedure": None
        if reply.procedure is None
        else {
            "id": reply.procedure.procedure_id,
            "kind": reply.procedure.kind,
            "steps": reply.procedure.steps,
        },
        "recalled": [
            {
                "block_id": item.block_id,
                "tier": item.tier,
                "date": item.at.isoformat(),
                "form": item.form,
                "outdated": item.outdated,
                "tokens": item.tokens,
                "text": item.text,
            }
            for item in reply.recalled
        ],
    }


@main.command()
@click.option("--temporary", is_flag=True, help="A chat that neither reads nor writes memory.")
@pass_context
def chat(context: Context, temporary: bool) -> None:
    """A plain REPL. Type /undo to take back the last profile change, /exit or
    Ctrl-D to leave."""
    from aniso import warmup

    warming = warmup.start(context.settings, lasting=True)
    services = context.services(temporary=temporary)
    warmup.wait(warming)
    interactive = sys.stdin.isatty()
    if interactive:
        mode = " (temporary: nothing is remembered)" if temporary else ""
        click.echo(
            f"Aniso {__version__} on {services.gateway.model}{mode}. "
            "/undo takes back the last profile change, /exit leaves."
        )
    while True:
        try:
            line = input("you> " if interactive else "")
        except EOFError:
            break
        if line.strip() in {"/exit", "/quit"}:
            break
        if not line.strip():
            continue
        if line.strip() == "/undo":
            click.echo(_undo_line(services, temporary=temporary))
            continue
        try:
            digest = services.assistant.pending_digest()  # the first reply of the day
            if digest:
                click.echo(digest + "\n", err=not interactive)
            if interactive:
                sys.stdout.write("aniso> ")
            reply = services.assistant.send(
                line, on_token=_stream_to(sys.stdout), on_briefs=_show_briefs(False)
            )
        except InputError as error:
            click.echo(f"aniso: error: {error}", err=True)
            continue
        sys.stdout.write("\n")
        _report(reply, undo_hint="/undo takes it back")


def _undo_line(services: Services, *, temporary: bool) -> str:
    """`/undo` in the REPL: take back the last learned profile change, in one line."""
    if temporary:
        return "Nothing to undo: a temporary chat does not change the profile."
    from aniso.profile.notice import undone

    return undone(services.profile.undo_last())


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the settings as JSON.")
@pass_context
def config(context: Context, as_json: bool) -> None:
    """Print the effective settings and where each value came from."""
    from aniso.core.settings import config_file, describe

    rows = describe(context.settings, context.overrides)
    if as_json:
        click.echo(json.dumps({"config_file": str(config_file()), "settings": rows}, indent=2))
        return
    width = max(len(row["name"]) for row in rows)
    click.echo(f"# settings file: {config_file()}")
    for row in rows:
        click.echo(f"{row['name']:<{width}}  {row['value'] or '-'}  ({row['source']})")


def _register() -> None:
    """Sub-command groups live in their own modules; they import heavy code lazily."""
    from aniso.cli.data import backup_command, export_command, forget_command, import_command
    from aniso.cli.mcp import mcp
    from aniso.cli.memory import memory, reindex, stats
    from aniso.cli.perf import bench
    from aniso.cli.profile import profile
    from aniso.cli.scenarios import scenarios
    from aniso.cli.tiers import compact, doctor

    for command in (memory, reindex, compact, doctor, bench, profile, stats, scenarios):
        main.add_command(command)
    for command in (export_command, import_command, forget_command, backup_command, mcp):
        main.add_command(command)


_register()
