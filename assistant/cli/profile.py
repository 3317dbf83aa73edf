"""`aniso profile`: show, audit and hand-edit the profile.

The root command registers this group (`main.add_command(profile)`); each
command finds the data dir through the root context object (`aniso.cli.Context`,
or anything with `.settings.data_dir` and optionally `.settings.now`).

`--json` shapes are a contract for scripts:

- `profile show --json` prints one object with every profile field. A
  single-valued field is null or an entry; a list field is a list of entries
  (oldest first). An entry is
  `{"value", "said", "since", "source_episode", "source"}`, `since` in ISO 8601.
- `profile history --json` prints a list of rows, oldest first:
  `{"id", "field", "value", "said", "evidence", "since", "source_episode", "source",
  "ended", "ended_by_episode", "ended_reason"}`; `ended` and the two after it are
  null while the value is current.
- `profile undo --json` prints `{"undone", "episode_id", "changes", "message"}`:
  `undone` is true when a message's learned changes were taken back, `episode_id`
  is that message (null when no message ever changed the profile), and `changes`
  lists the rows the undo wrote, each `{"kind", "field", "value", "row_id",
  "reason"}` (`ended` with reason "undone", or `started` with reason "restored").
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from aniso.core.errors import ConfigError, InputError

if TYPE_CHECKING:
    from aniso.profile.store import Change, ProfileStore


def _open(ctx: click.Context) -> ProfileStore:
    """The profile store of the data dir the root command was given."""
    root = ctx.find_root().obj
    if not hasattr(root, "services"):
        raise ConfigError("`aniso profile` must run under the `aniso` command (no settings found)")
    return root.services().profile


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _print_changes(changes: list[Change]) -> None:
    if not changes:
        click.echo("No change: the profile already says so.")
    for change in changes:
        if change.kind == "started":
            click.echo(f"set   {change.field} = {change.value}")
        else:
            click.echo(f"ended {change.field} = {change.value} ({change.reason})")


@click.group(name="profile")
def profile() -> None:
    """Show, audit and edit what Aniso knows about you."""


@profile.command()
@click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON.")
@click.pass_context
def show(ctx: click.Context, as_json: bool) -> None:
    """Print the current profile, with where each value came from."""
    current = _open(ctx).current()
    if as_json:
        _print_json(current.model_dump(mode="json"))
        return
    if current.is_empty():
        click.echo("The profile is empty.")
        return
    from aniso.profile.model import FIELDS

    width = max(len(field) for field in FIELDS)
    for field in FIELDS:
        for entry in current.entries(field):
            said = f'  "{entry.said}"' if entry.said and entry.said != entry.value else ""
            origin = entry.source + (
                f", episode {entry.source_episode}" if entry.source_episode else ""
            )
            click.echo(
                f"{field:<{width}}  {entry.value}{said}  ({origin}, {entry.since:%Y-%m-%d %H:%M})"
            )


@profile.command()
@click.argument("field", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.pass_context
def history(ctx: click.Context, field: str | None, as_json: bool) -> None:
    """Every value a FIELD (or every field) ever held, superseded ones included."""
    rows = _open(ctx).history(field)
    if as_json:
        _print_json([row.model_dump(mode="json") for row in rows])
        return
    if not rows:
        click.echo("No profile history yet.")
        return
    for row in rows:
        origin = row.source + (f" ep {row.source_episode}" if row.source_episode else "")
        line = f"#{row.id}  {row.since:%Y-%m-%d %H:%M}  {row.field} = {row.value}  [{origin}]"
        if row.ended is not None:
            by = f" by ep {row.ended_by_episode}" if row.ended_by_episode else ""
            line += f"  ended {row.ended:%Y-%m-%d %H:%M}{by}: {row.ended_reason}"
        click.echo(line)


@profile.command(name="set")
@click.argument("field")
@click.argument("value")
@click.pass_context
def set_(ctx: click.Context, field: str, value: str) -> None:
    """Set FIELD to VALUE by hand (for a list field: add VALUE)."""
    services = ctx.find_root().obj.services()
    store = services.profile
    value, _, withheld = services.controller.redact(value)
    if withheld:
        click.echo(f"aniso: {withheld}", err=True)
    _print_changes(store.set(field, value))


@profile.command()
@click.argument("field")
@click.argument("item", required=False)
@click.pass_context
def unset(ctx: click.Context, field: str, item: str | None) -> None:
    """End FIELD's value, or one ITEM of a list field (no ITEM: every item)."""
    changes = _open(ctx).unset(field, item)
    if not changes:
        what = f"{field} has no item {item!r}" if item else f"{field} has no current value"
        raise InputError(f"nothing to unset: {what}; see `aniso profile show`")
    _print_changes(changes)


@profile.command()
@click.option("--json", "as_json", is_flag=True, help="Print what was undone as JSON.")
@click.pass_context
def undo(ctx: click.Context, as_json: bool) -> None:
    """Take back what the last message that changed the profile changed.

    Values it set end (reason "undone") and values it ended hold again; the history
    keeps both. Run it again to go one message further back. With nothing to undo it
    says so and exits 0.
    """
    from aniso.profile.notice import undo_dict, undone

    done = _open(ctx).undo_last()
    if as_json:
        _print_json(undo_dict(done))
        return
    click.echo(undone(done))
    if done.changes:
        _print_changes(done.changes)
