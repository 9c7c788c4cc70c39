"""``pressroom drivers``: which driver serves each label; ``drivers check``: a live test.

``check`` is for an operator with real credentials: it reads, with the stored token,
the profile of each connection of a label, which proves the app's credentials, the
consent and the token vault work end to end, without posting anything. It runs against
the real network and is not part of the test suite.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from pressroom.cli.errors import fail
from pressroom.cli.options import DataDir, apply_overrides

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
) -> None:
    """Read each connection's profile on the real network with its stored token; with
    --draft, also make a draft post where the network has drafts. Exit 1 when the label
    is on the sandbox or a connection fails."""
    from pressroom.platforms import Platform
    from pressroom.service.db.models import Connection
    from pressroom.service.db.session import transaction
    from pressroom.service.drivers import describe
    from pressroom.service.drivers.base import (
        AccessRevoked,
        PlatformUnavailable,
        TokenRefused,
        TokenSet,
    )
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
    with transaction(flow.sessions, write=False) as db:
        query = db.query(Connection).filter(
            Connection.platform == label.value, Connection.removed_at.is_(None)
        )
        if connection is not None:
            query = query.filter(Connection.id == connection)
        found = [(c.id, c.name, c.access_token_enc) for c in query]
    if not found:
        fail(f"no {label.value} connection to check; connect one in the dashboard first")
    failed = _version(flow.drivers[label])
    for connection_id, name, encrypted in found:
        if encrypted is None:
            typer.echo(
                f"{connection_id}  {name}: no token (connected before {choice.driver} was configured): reconnect it"
            )
            failed += 1
            continue
        try:
            profile = flow.drivers[label].fetch_profile(
                TokenSet(flow.vault.decrypt(encrypted), None, None)
            )
        except (AccessRevoked, TokenRefused) as exc:
            typer.echo(f"{connection_id}  {name}: refused by {choice.driver} ({exc}): reconnect it")
            failed += 1
        except PlatformUnavailable as exc:
            typer.echo(f"{connection_id}  {name}: {choice.driver} did not answer ({exc})")
            failed += 1
        else:
            extra = ", ".join(
                f"{k}={v}"
                for k, v in (
                    ("account type", profile.account_type),
                    ("page", profile.page_kind),
                    ("verified", profile.verified if label is Platform.VIDEO_SHARING else None),
                )
                if v is not None
            )
            typer.echo(
                f"{connection_id}  {name}: ok, {choice.driver} says {profile.name!r}"
                + (f" ({extra})" if extra else "")
            )
            if draft is not None:
                ok = _draft(flow.drivers[label], connection_id, name, draft, choice.driver)
                failed += not ok
    if failed:
        raise typer.Exit(1)


def _version(driver: object) -> int:
    """Print how the API version the driver sends stands, where the network versions its
    API by date (LinkedIn); 1 when the network no longer serves it, else 0."""
    from pressroom.service.drivers.linkedin_versions import Standing
    from pressroom.service.drivers.professional_network import LinkedInDriver

    if not isinstance(driver, LinkedInDriver):
        return 0
    check = driver.version_check()
    prefix = "" if check.standing is Standing.SERVED else "warning: "
    typer.echo(prefix + check.message)
    return int(check.standing is Standing.UNSERVED)


def _draft(driver: object, connection_id: str, name: str, text: str, network: str) -> bool:
    """Make a draft post where the network has drafts; True unless it failed."""
    from pressroom.service.drivers.base import (
        AccessRevoked,
        Account,
        DraftingDriver,
        NetworkMisconfigured,
        PermissionMissing,
        PlatformRefused,
        PlatformUnavailable,
    )

    if not isinstance(driver, DraftingDriver):
        typer.echo(f"{connection_id}  {name}: {network} has no drafts; nothing posted")
        return True
    try:
        draft_id = driver.draft_post(Account(connection_id, name), text)
    except (
        AccessRevoked,
        NetworkMisconfigured,
        PermissionMissing,
        PlatformRefused,
        PlatformUnavailable,
    ) as exc:
        typer.echo(f"{connection_id}  {name}: {network} refused the draft ({exc})")
        return False
    typer.echo(f"{connection_id}  {name}: draft {draft_id} made on {network}; delete it there")
    return True
