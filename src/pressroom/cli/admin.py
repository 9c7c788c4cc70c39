"""``pressroom admin``: what the web dashboard does, straight on the database."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from pressroom.cli.options import DataDir, apply_overrides
from pressroom.plans import Plan
from pressroom.platforms import Platform

app = typer.Typer(
    help="Dashboard operations on the database (accounts, connections).", no_args_is_help=True
)

Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
ConnectionId = Annotated[str, typer.Option("--connection", help="Connection id.")]


@app.callback()
def _where(data_dir: DataDir = None) -> None:
    """Dashboard operations on the database of ``--data-dir`` (or PRESSROOM_DATA_DIR /
    PRESSROOM_DATABASE_URL)."""
    apply_overrides(data_dir=data_dir)


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(1)


def _emit(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(data))
    else:
        typer.echo("  ".join(f"{k}={v}" for k, v in data.items()))


@app.command()
def migrate() -> None:
    """Apply the database migrations."""
    from pressroom.service.db.migrate import upgrade
    from pressroom.settings import get_settings

    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.database_url)
    typer.echo("database is up to date")


@app.command("create-account")
def create_account(
    email: Annotated[
        str,
        typer.Option(help="The account's email (unique; kept normalised, in lower case)."),
    ],
    plan: Annotated[Plan, typer.Option(help="business, agency or blogger.")],
    as_json: Json = False,
) -> None:
    """Create an account and print its API key (shown once; only its hash is kept)."""
    from pressroom.service.accounts.service import AccountExists
    from pressroom.service.accounts.service import create_account as create
    from pressroom.service.admin import admin_session
    from pressroom.service.auth.service import create_sign_in_link
    from pressroom.service.errors import ServiceError

    try:
        with admin_session() as db:
            account, key = create(db, email=email, plan=plan)
            link = _link(create_sign_in_link(db, account.email))
            data = {
                "accountId": account.id,
                "email": account.email,
                "plan": plan.value,
                "apiKey": key,
                "signInLink": link,
            }
    except AccountExists as exc:
        _fail(str(exc))
    except ServiceError as exc:  # the email is not an address: nothing was made
        _fail(exc.message)
    if as_json:
        typer.echo(json.dumps(data))
    else:
        typer.echo(key)  # alone on stdout, so KEY=$(pressroom admin create-account ...) works
        typer.echo(f"dashboard sign-in link (one time, 24 hours): {link}", err=True)


def _link(token: str) -> str:
    from pressroom.settings import get_settings

    return f"{get_settings().public_base_url}/sign-in/link/{token}"


@app.command("set-password")
def set_password(
    email: Annotated[str, typer.Option(help="The account's email.")],
    password: Annotated[
        str,
        typer.Option(
            prompt=True,
            hide_input=True,
            confirmation_prompt=True,
            envvar="PRESSROOM_NEW_PASSWORD",
            help="The new dashboard password (prompted; env: PRESSROOM_NEW_PASSWORD).",
        ),
    ],
) -> None:
    """Set an account's dashboard password; its browsers are signed out."""
    from pressroom.service.admin import admin_session
    from pressroom.service.auth.schemas import FormError
    from pressroom.service.auth.service import set_password as set_it

    try:
        with admin_session() as db:
            set_it(db, email, password)
    except FormError as exc:
        _fail(" ".join(exc.errors.values()))
    typer.echo(f"password set for {email}")


@app.command("sign-in-link")
def sign_in_link(email: Annotated[str, typer.Option(help="The account's email.")]) -> None:
    """Print a one-time dashboard sign-in link for an account (valid 24 hours)."""
    from pressroom.service.admin import admin_session
    from pressroom.service.auth.schemas import FormError
    from pressroom.service.auth.service import create_sign_in_link

    try:
        with admin_session() as db:
            token = create_sign_in_link(db, email)
    except FormError as exc:
        _fail(" ".join(exc.errors.values()))
    typer.echo(_link(token))


def _connection_json(db: Any, connection: Any) -> dict[str, Any]:
    from pressroom.service.connections.service import status_of

    return {
        "id": connection.id,
        "platform": connection.platform,
        "name": connection.name,
        "displayName": connection.display_name,
        "status": status_of(db, connection),
    }


@app.command()
def connect(
    account: Annotated[str, typer.Option("--account", help="The account's email.")],
    platform: Annotated[Platform, typer.Option(help="Platform label.")],
    name: Annotated[str, typer.Option(help="Handle or name of the social account.")],
    display_name: Annotated[str | None, typer.Option(help="Display name.")] = None,
    account_type: Annotated[
        str | None, typer.Option(help="photo_sharing: business, creator or personal.")
    ] = None,
    profile: Annotated[
        bool, typer.Option("--profile", help="page_social: a personal profile, not a page.")
    ] = False,
    no_pages_permission: Annotated[
        bool, typer.Option("--no-pages-permission", help="page_social: Pages permission denied.")
    ] = False,
    verified: Annotated[
        bool, typer.Option("--verified", help="video_sharing: a verified channel.")
    ] = False,
    withhold: Annotated[
        list[str] | None,
        typer.Option(
            "--withhold",
            help="A scope to leave unticked on the consent page (repeatable): a post "
            "that needs it is refused as the network refuses it.",
        ),
    ] = None,
    as_json: Json = False,
) -> None:
    """Link a social account to an account, as the dashboard's Connect button does: the
    sandbox platform's authorization runs programmatically, and its tokens are stored.
    Every scope the real network is asked for is granted, unless withheld."""
    from pressroom.service.admin import admin_session, connect_through_sandbox
    from pressroom.service.connections.service import ConnectionRuleError
    from pressroom.service.oauth.service import OAuthFailure

    try:
        connection_id = connect_through_sandbox(
            account,
            platform,
            name=name,
            display_name=display_name,
            account_type=account_type,
            page_kind="profile" if profile else "page",
            pages_permission=not no_pages_permission,
            verified=verified,
            withheld=tuple(withhold or ()),
        )
        with admin_session() as db:
            from pressroom.service.connections.repository import ConnectionRepository

            found = ConnectionRepository(db).get(connection_id)
            data = _connection_json(db, found)
    except (ConnectionRuleError, OAuthFailure) as exc:
        _fail(str(exc))
    _emit(data, as_json)


def _move(action: str, connection_id: str, as_json: bool) -> None:
    from pressroom.service.admin import admin_session
    from pressroom.service.connections import service

    move = {
        "disconnect": service.disconnect,
        "expire-token": None,
        "reconnect": service.reconnect,
    }[action]
    try:
        if move is None:
            # At the platform: the access token expires, the refresh token is revoked, and
            # the refresh that follows fails, as when a real network revokes access.
            from pressroom.service.oauth.service import expire_at_platform, flow_for
            from pressroom.settings import get_settings

            flow = flow_for(get_settings())
            try:
                expire_at_platform(flow, connection_id)
            finally:  # run in process too (tests, scripts): its connections go with it
                flow.sessions.kw["bind"].dispose()
        with admin_session() as db:
            connection = (
                service.owned_anywhere(db, connection_id)
                if move is None
                else move(db, connection_id)
            )
            data = _connection_json(db, connection)
            if action == "disconnect":
                data["status"] = "removed"
    except service.ConnectionRuleError as exc:
        _fail(str(exc))
    _emit(data, as_json)


@app.command()
def disconnect(connection: ConnectionId, as_json: Json = False) -> None:
    """Remove a connection: gone from every list, its id a 404 from now on."""
    _move("disconnect", connection, as_json)


@app.command("expire-token")
def expire_token(connection: ConnectionId, as_json: Json = False) -> None:
    """Expire a connection's access token: it turns inactive (a photo_sharing twin too)."""
    _move("expire-token", connection, as_json)


@app.command()
def reconnect(connection: ConnectionId, as_json: Json = False) -> None:
    """Reconnect an inactive connection (a photo_sharing one brings its twin back)."""
    _move("reconnect", connection, as_json)


@app.command()
def posts(
    platform: Annotated[Platform | None, typer.Option(help="Only this platform.")] = None,
    connection: Annotated[
        str | None, typer.Option("--connection", help="Only this connection id.")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many, newest first.")] = 50,
    as_json: Json = False,
) -> None:
    """What the sandbox platforms received (posts and thumbnails), newest first."""
    from pressroom.service.admin import admin_session
    from pressroom.service.drivers.deliveries import (
        DeliveryRepository,
        delivery_json,
        delivery_line,
    )

    with admin_session() as db:
        found = DeliveryRepository(db).newest_first(
            platform=platform.value if platform else None, connection_id=connection, limit=limit
        )
        rows = [delivery_json(d) for d in found] if as_json else [delivery_line(d) for d in found]
    if as_json:
        typer.echo(json.dumps(rows))
    else:
        typer.echo("\n".join(map(str, rows)) if rows else "no posts yet")
