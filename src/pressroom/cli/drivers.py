"""``pressroom drivers``: which driver serves each label; ``drivers check``: a live test.

``check`` is for an operator with real credentials: with each connection's stored token
it asks the network, with read-only calls, what it granted the connection (the scopes,
the account's type, its audit or verification status, the publishing quota left where
the network says) and prints what each means for publishing, as a table or as JSON. It
proves the app's credentials, the consent and the token vault end to end without
posting anything (``--draft`` adds a draft where the network has drafts). It runs
against the real network and is not part of the test suite (its tests replay the
networks' answers).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from pressroom.cli.errors import fail
from pressroom.cli.options import DataDir, apply_overrides

if TYPE_CHECKING:
    from pressroom.platforms import Platform
    from pressroom.service.drivers.base import PlatformDriver
    from pressroom.service.oauth.service import Flow

app = typer.Typer(
    help="Which driver serves each platform label; check a real network's connections.",
    invoke_without_command=True,
)


@app.callback()
def drivers(ctx: typer.Context, data_dir: DataDir = None) -> None:
    """List each platform label's driver: its real network where the label's credentials
    are set, the sandbox otherwise."""
    apply_overrides(data_dir=data_dir)
    if ctx.invoked_subcommand is not None:
        return
    from pressroom.service.drivers import describe
    from pressroom.settings import get_settings

    table = Table("label", "driver", "credentials", "note", title="Platform drivers")
    choices = describe(get_settings())
    for choice in choices:
        table.add_row(
            choice.platform.value,
            choice.driver,
            "set" if choice.configured else "-",
            choice.note,
        )
    Console().print(table)
    for choice in choices:
        if choice.warning is not None:
            typer.echo(f"warning: {choice.platform.value}: {choice.warning}")
    typer.echo(
        "Real networks need an app registered with them; its redirect URL is "
        f"{get_settings().public_base_url}/oauth/callback/<label>."
    )


@app.command("check")
def check(
    platform: Annotated[str, typer.Option("--platform", help="The label to check.")],
    connection: Annotated[
        str | None, typer.Option("--connection", help="One connection id (default: all).")
    ] = None,
    draft: Annotated[
        str | None,
        typer.Option(
            "--draft",
            help="Also make a draft (or unpublished) post with this text, where the "
            "network has drafts (professional_network, page_social); nothing is published.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Ask the real network, for each connection of a label and with its stored token,
    what it granted (scopes, account type, audit or verification, quota left) and what
    that means for publishing, posting nothing; with --draft, also make a draft post
    where the network has drafts. Exit 1 when the label is on the sandbox, or a
    connection fails or cannot publish."""
    from pressroom.platforms import Platform
    from pressroom.service.drivers import describe
    from pressroom.service.oauth.service import flow_for
    from pressroom.settings import get_settings

    try:
        label = Platform(platform)
    except ValueError:
        fail(f"no platform label {platform!r}; one of: {', '.join(p.value for p in Platform)}")
    settings = get_settings()
    choice = next(c for c in describe(settings) if c.platform is label)
    if not choice.configured:
        fail(f"{label.value} is on the sandbox: {choice.note}")
    flow = flow_for(settings)
    try:
        failed = _check(flow, label, connection, draft, as_json, choice.driver)
    finally:
        # Run in process (a test, or a script importing the command) as much as from a
        # shell: the connections the command opened go with it.
        flow.sessions.kw["bind"].dispose()
    if failed:
        raise typer.Exit(1)


def _check(
    flow: Flow,
    label: Platform,
    connection: str | None,
    draft: str | None,
    as_json: bool,
    network: str,
) -> int:
    """Inspect each connection of ``label`` (and draft where asked); how many failed."""
    from pressroom.service.db.models import Connection
    from pressroom.service.db.session import transaction

    with transaction(flow.sessions, write=False) as db:
        query = db.query(Connection).filter(
            Connection.platform == label.value, Connection.removed_at.is_(None)
        )
        if connection is not None:
            query = query.filter(Connection.id == connection)
        found = [(c.id, c.name, c.access_token_enc is not None or c.parent_id) for c in query]
    if not found:
        fail(f"no {label.value} connection to check; connect one in the dashboard first")
    driver = flow.drivers[label]
    failed = _version(driver, quiet=as_json)
    reports = []
    for connection_id, name, has_token in found:
        report = _inspect(driver, connection_id, name, network, bool(has_token))
        if not as_json:
            _render(report)
        if draft is not None and report["ok"]:
            report["draft"] = _draft(driver, connection_id, name, draft, network, as_json)
            failed += "error" in report["draft"]
        failed += not report["ok"] or report["inspection"]["canPublish"] is False
        reports.append(report)
    if as_json:
        typer.echo(json.dumps(reports, indent=2))
    return failed


def _inspect(
    driver: PlatformDriver, connection_id: str, name: str, network: str, has_token: bool
) -> dict[str, Any]:
    """One connection's report: what the network said, or why it could not say."""
    from pressroom.service.drivers.base import (
        AccessRevoked,
        Account,
        NetworkMisconfigured,
        PermissionMissing,
        PlatformRefused,
        PlatformUnavailable,
        TokenRefused,
    )

    report: dict[str, Any] = {
        "connectionId": connection_id,
        "name": name,
        "network": network,
        "ok": False,
    }
    if not has_token:
        report["error"] = f"no token (connected before {network} was configured): reconnect it"
        return report
    try:
        inspection = driver.inspect(Account(connection_id, name))
    except (AccessRevoked, TokenRefused) as exc:
        report["error"] = f"refused by {network} ({exc}): reconnect it"
    except (NetworkMisconfigured, PermissionMissing, PlatformRefused) as exc:
        report["error"] = f"{network} refused the check ({exc})"
    except PlatformUnavailable as exc:
        report["error"] = f"{network} did not answer ({exc})"
    else:
        report["ok"] = True
        report["inspection"] = _jsonable(inspection)
    return report


def _jsonable(inspection: Any) -> dict[str, Any]:
    from pydantic.alias_generators import to_camel

    data = {to_camel(k): v for k, v in asdict(inspection).items()}
    data["scopes"] = {scope: str(state) for scope, state in inspection.scopes.items()}
    data["findings"] = [{k: str(v) for k, v in f.items()} for f in data["findings"]]
    if inspection.quota is not None:
        data["quota"] = {
            **{to_camel(k): v for k, v in data["quota"].items()},
            "left": inspection.quota.left,
        }
    data["missingScopes"] = list(inspection.missing)
    data["canPublish"] = inspection.can_publish
    return data


VERDICTS = {
    True: "can publish",
    None: "may publish: the network leaves some of it unsaid (see unknown lines)",
    False: "cannot publish until each blocked line is dealt with",
}


def _render(report: dict[str, Any]) -> None:
    """A connection's report as people read it: a line, then a table of findings."""
    head = f"{report['connectionId']}  {report['name']}"
    if not report["ok"]:
        typer.echo(f"{head}: {report['error']}")
        return
    inspection = report["inspection"]
    typer.echo(f"{head}: ok, {report['network']} says {inspection['account']!r}")
    table = Table("", "topic", f"{inspection['network']} says", "for publishing")
    marks = {"ok": "ok", "warning": "!", "blocked": "x", "unknown": "?"}
    for finding in inspection["findings"]:
        table.add_row(
            marks[finding["standing"]], finding["topic"], finding["says"], finding["meaning"]
        )
    Console().print(table)
    scopes = " ".join(f"{s}={state}" for s, state in inspection["scopes"].items())
    typer.echo(f"{head}: scopes {scopes}")
    said = {k: inspection[k] or "not said" for k in ("accountType", "audit")}
    typer.echo(f"{head}: account type {said['accountType']}; audit {said['audit']}")
    typer.echo(f"{head}: {VERDICTS[inspection['canPublish']]}")


def _version(driver: object, *, quiet: bool) -> int:
    """Print how the API version the driver sends stands, where the network versions its
    API by date (LinkedIn); 1 when the network no longer serves it, else 0."""
    from pressroom.service.drivers.linkedin_versions import Standing
    from pressroom.service.drivers.professional_network import LinkedInDriver

    if not isinstance(driver, LinkedInDriver):
        return 0
    check = driver.version_check()
    prefix = "" if check.standing is Standing.SERVED else "warning: "
    if not quiet:
        typer.echo(prefix + check.message)
    return int(check.standing is Standing.UNSERVED)


def _draft(
    driver: object, connection_id: str, name: str, text: str, network: str, quiet: bool
) -> dict[str, str]:
    """Make a draft post where the network has drafts: its id, or why none was made."""
    from pressroom.service.drivers.base import (
        AccessRevoked,
        Account,
        DraftingDriver,
        NetworkMisconfigured,
        PermissionMissing,
        PlatformRefused,
        PlatformUnavailable,
    )

    def say(line: str) -> None:
        if not quiet:
            typer.echo(line)

    if not isinstance(driver, DraftingDriver):
        say(f"{connection_id}  {name}: {network} has no drafts; nothing posted")
        return {"note": f"{network} has no drafts; nothing posted"}
    try:
        draft_id = driver.draft_post(Account(connection_id, name), text)
    except (
        AccessRevoked,
        NetworkMisconfigured,
        PermissionMissing,
        PlatformRefused,
        PlatformUnavailable,
    ) as exc:
        say(f"{connection_id}  {name}: {network} refused the draft ({exc})")
        return {"error": f"{network} refused the draft ({exc})"}
    say(f"{connection_id}  {name}: draft {draft_id} made on {network}; delete it there")
    return {"id": draft_id}
