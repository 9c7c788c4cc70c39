"""The dashboard's operations on the database, for ``pressroom admin`` and the demo.

They never go through the public API: creating accounts and connections is exactly what
the API cannot do.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

from pressroom.service.db.migrate import upgrade
from pressroom.service.db.session import make_engine, make_session_factory, transaction
from pressroom.settings import Settings, get_settings


@contextmanager
def admin_session(settings: Settings | None = None) -> Iterator[Session]:
    """A migrated database and one committed unit of work."""
    settings = settings or get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        with transaction(make_session_factory(engine)) as session:
            yield session
    finally:
        engine.dispose()


def connect_through_sandbox(
    email: str,
    platform: object,
    *,
    name: str,
    display_name: str | None = None,
    account_type: str | None = None,
    page_kind: str = "page",
    pages_permission: bool = True,
    verified: bool = False,
    withheld: tuple[str, ...] = (),
    settings: Settings | None = None,
) -> str:
    """``admin connect``: the dashboard's OAuth flow with the consent given in code,
    every permission granted but those ``withheld`` (unticked on the consent page).

    The same ``oauth.service`` calls as the dashboard: a state and PKCE verifier are
    recorded, the sandbox platform approves (as its consent page's Allow does), and the
    callback exchanges the code for tokens and makes the connection. Returns its id.
    """
    from urllib.parse import parse_qs, urlparse

    from pressroom.platforms import Platform
    from pressroom.service.accounts.service import find_by_email
    from pressroom.service.connections.service import ConnectionRuleError
    from pressroom.service.drivers.sandbox_oauth import SCOPES
    from pressroom.service.drivers.sandbox_pages import approve_profile
    from pressroom.service.oauth import service as oauth

    settings = settings or get_settings()
    chosen = Platform(str(platform))
    with admin_session(settings) as db:
        owner = find_by_email(db, email)
        if owner is None:
            raise ConnectionRuleError(f"no account with email {email!r}")
        account_id = owner.id
    if account_type is not None and account_type not in ("business", "creator", "personal"):
        raise ConnectionRuleError("account type must be one of business, creator, personal")
    asked = SCOPES.get(chosen, ())
    unknown = [scope for scope in withheld if scope not in asked]
    if unknown:
        raise ConnectionRuleError(
            f"{chosen.value} asks for no scope {unknown[0]!r}; it asks for {' '.join(asked)}"
        )
    flow = oauth.flow_for(settings)
    try:
        url = oauth.start(flow, account_id, chosen)
        query = {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}
        with transaction(flow.sessions) as db:
            code = approve_profile(
                db,
                chosen,
                query["redirect_uri"],
                query["code_challenge"],
                {
                    "name": name,
                    "display_name": display_name,
                    "account_type": account_type,
                    "page_kind": page_kind,
                    "pages_permission": pages_permission,
                    "verified": verified,
                    **(
                        {"granted": tuple(s for s in asked if s not in withheld)}
                        if withheld
                        else {}
                    ),
                },
            )
        connection = oauth.finish(
            flow, account_id, chosen.value, {"state": query["state"], "code": code}
        )
    finally:
        flow.sessions.kw["bind"].dispose()  # the demo and tests call this in process
    # The sandbox's consent names one account: never a choice of Pages.
    assert not isinstance(connection, oauth.PageChoice)
    return connection.id


DEMO_EMAIL = "demo@pressroom.example"
FORMER_DEMO_EMAIL = "demo@pressroom.local"
"""The demo account's email in data dirs made before emails were checked (``.local`` is
a special-use domain, refused now): such an account is renamed, not left behind."""
DEMO_CONNECTIONS: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("microblog", "@acme", {}),
    ("microblog", "@acme_support", {}),
    ("video_sharing", "Acme Channel", {"verified": True}),
    ("short_video", "@acme.clips", {}),
    ("photo_sharing", "acme.photos", {"account_type": "business"}),
    ("page_social", "Acme Page", {}),
    ("pin_board", "acme-pins", {}),
    ("professional_network", "Acme Inc.", {}),
)


def seed_demo(db: Session, key: str | None = None) -> tuple[str, str]:
    """The demo account with connections on all eight platforms; returns (id, its key).

    Run again, it keeps the account and its connections and issues a new key (only a
    hash of the old one was kept, so it cannot be shown again). ``key``, when given, is
    the one issued: ``pressroom demo`` makes it, so that its run can start before the
    service has seeded anything.
    """
    from pressroom.plans import Plan
    from pressroom.platforms import Platform
    from pressroom.service.accounts import keys
    from pressroom.service.accounts.repository import AccountRepository
    from pressroom.service.accounts.service import create_account
    from pressroom.service.connections.repository import ConnectionRepository
    from pressroom.service.connections.service import NewConnection, connect
    from pressroom.service.db.base import utcnow

    repo = AccountRepository(db)
    account = repo.get_by_email(DEMO_EMAIL)
    if account is None:
        account = repo.get_by_email(FORMER_DEMO_EMAIL)
        if account is not None:
            account.email = DEMO_EMAIL
    if account is None:
        account, first_key = create_account(db, email=DEMO_EMAIL, plan=Plan.AGENCY)
        key = key or first_key
    else:
        key = key or keys.generate_key()
    if not keys.matches(key, account.api_key_hash):
        repo.swap_key(
            account.id, account.api_key_hash, keys.hash_key(key), utcnow(), keys.last4(key)
        )
    existing = {(c.platform, c.name) for c in ConnectionRepository(db).list_for_account(account.id)}
    for platform, name, extra in DEMO_CONNECTIONS:
        if (platform, name) not in existing:
            connect(db, account, NewConnection(platform=Platform(platform), name=name, **extra))  # type: ignore[arg-type]
    return account.id, key
