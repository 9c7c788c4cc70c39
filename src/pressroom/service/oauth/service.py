"""The connect flow, refreshes and token expiry, shared by the dashboard and the CLI."""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from sqlalchemy.orm import Session, sessionmaker

from pressroom.platforms import Platform
from pressroom.service import leases
from pressroom.service.accounts.repository import AccountRepository
from pressroom.service.connections import service as connections
from pressroom.service.connections.repository import ConnectionRepository
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Connection, OAuthState
from pressroom.service.db.session import transaction
from pressroom.service.drivers.base import (
    AccessRevoked,
    PlatformDriver,
    PlatformUnavailable,
    Profile,
    SecretKeyMissing,
    TokenRefused,
    TokenSet,
)
from pressroom.service.events.catalog import InactiveReason
from pressroom.service.oauth.repository import OAuthStateRepository
from pressroom.service.oauth.vault import Vault, VaultError

if TYPE_CHECKING:
    from pressroom.service.drivers.page_social import FacebookPagesDriver, GrantedPage

log = logging.getLogger(__name__)

STATE_TTL = timedelta(minutes=10)
PAGE_CHOICE = "page_social.choice"
"""The OAuth state rows that hold a Facebook grant until the person chooses its Pages."""


class OAuthFailure(Exception):
    """The connect flow stopped; ``title`` and the message are for the person."""

    def __init__(self, title: str, message: str) -> None:
        super().__init__(message)
        self.title = title
        self.message = message


class ChoiceError(Exception):
    """The Page choice form was sent without a valid choice; nothing was connected."""


@dataclass(frozen=True)
class PageChoice:
    """Facebook's consent granted several Pages: the person chooses which to connect
    at the dashboard's ``/connections/pages/{choice}``, each its own connection."""

    choice: str
    """The choice's id in its URL: random, kept hashed, this account's, for STATE_TTL."""


@dataclass(frozen=True)
class Flow:
    """What the flow needs from the app: its units of work, drivers, vault and address."""

    sessions: sessionmaker[Session]
    drivers: Mapping[Platform, PlatformDriver]
    vault: Vault
    base_url: str

    def callback(self, platform: Platform) -> str:
        return f"{self.base_url}/oauth/callback/{platform.value}"


def flow_of(app: object) -> Flow:
    """The flow of a running app."""
    from pressroom.service.drivers import drivers_of

    state = app.state  # type: ignore[attr-defined]
    return Flow(
        sessions=state.session_factory,
        drivers=drivers_of(app),  # type: ignore[arg-type]
        vault=Vault.from_settings(state.settings),
        base_url=state.settings.public_base_url,
    )


def flow_for(settings: object) -> Flow:
    """A flow outside the app (the operator's CLI), on the same database."""
    from pressroom.service.db.session import make_engine, make_session_factory
    from pressroom.service.drivers import build_drivers
    from pressroom.settings import Settings

    assert isinstance(settings, Settings)
    sessions = make_session_factory(make_engine(settings.database_url))
    return Flow(
        sessions=sessions,
        drivers=build_drivers(settings, sessions),
        vault=Vault.from_settings(settings),
        base_url=settings.public_base_url,
    )


def _hash(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()


def remember_state(
    db: Session,
    flow: Flow,
    state: str,
    account_id: str,
    platform: Platform,
    secret: str,
    reconnect_id: str | None,
) -> None:
    """Keep an authorization in flight until its callback: the state only as a hash, and
    what the callback needs to finish it (a PKCE verifier, or a pending AT Protocol
    authorization) encrypted, for ``STATE_TTL``."""
    now = utcnow()
    OAuthStateRepository(db).add(
        OAuthState(
            state_hash=_hash(state),
            account_id=account_id,
            platform=platform.value,
            code_verifier_enc=flow.vault.encrypt(secret),
            reconnect_id=reconnect_id,
            created_at=now,
            expires_at=now + STATE_TTL,
        )
    )


def start(
    flow: Flow, account_id: str, platform: Platform, *, reconnect_id: str | None = None
) -> str:
    """Record a state and a PKCE verifier; return where to send the browser.
    ConnectionRuleError when the connection could not be made anyway."""
    state = secrets.token_urlsafe(32)
    verifier = secrets.token_urlsafe(64)  # 86 characters: within RFC 7636's 43..128
    with transaction(flow.sessions) as db:
        account = AccountRepository(db).get(account_id)
        assert account is not None
        if reconnect_id is not None:
            target = connections.owned(db, account, reconnect_id)
            if target.platform == Platform.TEXT_THREAD:
                raise connections.ConnectionRuleError(
                    "a text_thread connection follows its photo_sharing account: "
                    "reconnect that one."
                )
            platform = Platform(target.platform)
        else:
            connections.check_can_connect(db, account, platform)
        remember_state(db, flow, state, account_id, platform, verifier, reconnect_id)
    return flow.drivers[platform].authorization_url(
        redirect_uri=flow.callback(platform), state=state, code_verifier=verifier
    )


def chains_twin_consent(flow: Flow) -> bool:
    """Whether text_thread needs a consent of its own (Threads), given after photo_sharing's
    in the same Connect; the sandbox's twin shares its account's grant."""
    from pressroom.service.drivers.text_thread import ThreadsDriver

    return isinstance(flow.drivers.get(Platform.TEXT_THREAD), ThreadsDriver)


def next_consent(flow: Flow, account_id: str, connection: Connection) -> str | None:
    """Where the browser goes after ``connection`` was connected: Threads' consent for a
    photo_sharing account's twin when Threads has its own driver, else nowhere (None)."""
    if connection.platform != Platform.PHOTO_SHARING or not chains_twin_consent(flow):
        return None
    with transaction(flow.sessions, write=False) as db:
        twin = ConnectionRepository(db).twin_of([connection.id])
        twin_id = twin.id if twin is not None else None
    if twin_id is None:
        return None
    state = secrets.token_urlsafe(32)
    verifier = secrets.token_urlsafe(64)
    with transaction(flow.sessions) as db:
        now = utcnow()
        OAuthStateRepository(db).add(
            OAuthState(
                state_hash=_hash(state),
                account_id=account_id,
                platform=Platform.TEXT_THREAD.value,
                code_verifier_enc=flow.vault.encrypt(verifier),
                reconnect_id=twin_id,
                created_at=now,
                expires_at=now + STATE_TTL,
            )
        )
    return flow.drivers[Platform.TEXT_THREAD].authorization_url(
        redirect_uri=flow.callback(Platform.TEXT_THREAD), state=state, code_verifier=verifier
    )


def finish(
    flow: Flow, account_id: str, platform_name: str, params: dict[str, str]
) -> Connection | PageChoice:
    """The callback: consume the state, exchange the code, read the profile, connect.

    Where one consent grants several Pages (Facebook), a new connection waits for the
    person's choice instead (``PageChoice``); a reconnect takes the Page it had."""
    try:
        platform = Platform(platform_name)
    except ValueError:
        raise OAuthFailure("Unknown platform", "No platform has this name.") from None
    with transaction(flow.sessions) as db:
        taken = OAuthStateRepository(db).take(
            _hash(params.get("state", "")), account_id, platform.value, utcnow()
        )
        verifier = flow.vault.decrypt(taken.code_verifier_enc) if taken else None
        reconnect_id = taken.reconnect_id if taken else None
        target = ConnectionRepository(db).get(reconnect_id) if reconnect_id else None
        reconnect_name = target.name if target is not None else None
    if verifier is None:
        raise OAuthFailure(
            "This authorization cannot be used",
            "The link back from the platform is unknown, was already used, or expired, so "
            "nothing was connected. Start again from Connections.",
        )
    if params.get("error"):
        denied = params["error"] == "access_denied"
        raise OAuthFailure(
            "Nothing was connected",
            "You denied pressroom access on the platform, so nothing was connected."
            if denied
            else f"The platform answered {params['error']!r}, so nothing was connected.",
        )
    driver = flow.drivers[platform]
    chooser = page_chooser(flow) if platform == Platform.PAGE_SOCIAL else None
    with _network_step(platform):
        check_issuer = getattr(driver, "check_issuer", None)
        if check_issuer is not None:  # AT Protocol OAuth: the callback names its server
            check_issuer(verifier, params.get("iss", ""))
        tokens = driver.exchange_code(
            code=params.get("code", ""),
            redirect_uri=flow.callback(platform),
            code_verifier=verifier,
        )
        if chooser is None:
            profile = driver.fetch_profile(tokens)
        else:
            pages = chooser.granted_pages(tokens)
            if reconnect_name is None and len(pages) > 1:
                return _await_choice(flow, account_id, tokens)
            same = [p for p in pages if p.name == reconnect_name] or pages
            profile = (
                chooser.page_profile(tokens, same[0]) if same else chooser.person_profile(tokens)
            )
        if profile.page_token is not None:  # a Facebook Page acts with its own token
            tokens = TokenSet(profile.page_token, None, None)
    with transaction(flow.sessions) as db:
        account = AccountRepository(db).get(account_id)
        assert account is not None
        if platform == Platform.TEXT_THREAD:  # the chained consent of a photo_sharing twin
            try:
                twin = connections.owned(db, account, reconnect_id or "")
            except connections.ConnectionRuleError as exc:
                raise OAuthFailure("Nothing was connected", str(exc)) from None
            _store(flow.vault, twin, tokens)
            db.flush()
            return twin
        try:
            connection = _connect(db, account, platform, profile, reconnect_id)
        except connections.ConnectionRuleError as exc:
            raise OAuthFailure("Nothing was connected", str(exc)) from None
        _store(flow.vault, connection, tokens)
        db.flush()
        return connection


@contextmanager
def _network_step(platform: Platform) -> Iterator[None]:
    """A call to the platform while connecting: its refusal or silence, in words."""
    try:
        yield
    except (TokenRefused, AccessRevoked) as exc:
        raise OAuthFailure(
            "The platform refused the authorization",
            f"The platform refused to issue tokens ({exc}), so nothing was connected. "
            "Start again from Connections.",
        ) from None
    except PlatformUnavailable as exc:
        raise OAuthFailure(
            "The platform did not answer",
            f"{platform.value} could not be reached to finish connecting ({exc}), so "
            "nothing was connected. Start again from Connections in a minute.",
        ) from None


def page_chooser(flow: Flow) -> FacebookPagesDriver | None:
    """page_social's driver when one consent may grant several Pages (Facebook's); the
    sandbox's consent names one account, as before."""
    from pressroom.service.drivers.page_social import FacebookPagesDriver

    driver = flow.drivers.get(Platform.PAGE_SOCIAL)
    return driver if isinstance(driver, FacebookPagesDriver) else None


def _await_choice(flow: Flow, account_id: str, tokens: TokenSet) -> PageChoice:
    choice = secrets.token_urlsafe(32)
    with transaction(flow.sessions) as db:
        now = utcnow()
        OAuthStateRepository(db).add(
            OAuthState(
                state_hash=_hash(choice),
                account_id=account_id,
                platform=PAGE_CHOICE,
                code_verifier_enc=flow.vault.encrypt(tokens.access_token),
                reconnect_id=None,
                created_at=now,
                expires_at=now + STATE_TTL,
            )
        )
    return PageChoice(choice)


_CHOICE_GONE = OAuthFailure(
    "This choice of Pages cannot be used",
    "It was already made, or it expired after ten minutes, or it is not yours, so "
    "nothing was connected. Connect page_social again from Connections.",
)


def _grant_of(flow: Flow, account_id: str, choice: str) -> tuple[FacebookPagesDriver, TokenSet]:
    chooser = page_chooser(flow)
    with transaction(flow.sessions, write=False) as db:
        row = OAuthStateRepository(db).peek(_hash(choice), account_id, PAGE_CHOICE, utcnow())
        token = flow.vault.decrypt(row.code_verifier_enc) if row is not None else None
    if token is None or chooser is None:
        raise _CHOICE_GONE
    return chooser, TokenSet(token, None, None)


def pages_to_choose(flow: Flow, account_id: str, choice: str) -> list[GrantedPage]:
    """The Pages the person granted, read again from Facebook for the choice page."""
    chooser, tokens = _grant_of(flow, account_id, choice)
    with _network_step(Platform.PAGE_SOCIAL):
        return chooser.granted_pages(tokens)


def connect_pages(
    flow: Flow, account_id: str, choice: str, page_ids: list[str]
) -> list[Connection]:
    """Connect each chosen Page as its own connection, with its own token; a Page
    already connected is reconnected. ``ChoiceError`` or ``ConnectionRuleError`` (the
    plan's cap) leave the choice open to be made again; success uses it up."""
    if not page_ids:
        raise ChoiceError("Choose at least one Page to connect.")
    chooser, tokens = _grant_of(flow, account_id, choice)
    with _network_step(Platform.PAGE_SOCIAL):
        granted = {p.id: p for p in chooser.granted_pages(tokens)}
        unknown = [i for i in page_ids if i not in granted]
        if unknown:
            raise ChoiceError("Choose among the Pages you granted on Facebook.")
        profiles = [chooser.page_profile(tokens, granted[i]) for i in dict.fromkeys(page_ids)]
    with transaction(flow.sessions) as db:
        if OAuthStateRepository(db).take(_hash(choice), account_id, PAGE_CHOICE, utcnow()) is None:
            raise _CHOICE_GONE
        account = AccountRepository(db).get(account_id)
        assert account is not None
        made = []
        for profile in profiles:
            assert profile.page_token is not None
            same = ConnectionRepository(db).find_by_name(
                account_id, Platform.PAGE_SOCIAL.value, profile.name
            )
            if same:  # chosen again: the same Page, with a fresh token
                connection = connections.reconnect(db, same[0].id)
                connection.pages_permission = profile.pages_permission
            else:
                connection = _connect(db, account, Platform.PAGE_SOCIAL, profile, None)
            _store(flow.vault, connection, TokenSet(profile.page_token, None, None))
            made.append(connection)
        db.flush()
        return made


def _connect(
    db: Session, account: object, platform: Platform, profile: Profile, reconnect_id: str | None
) -> Connection:
    from pressroom.service.db.models import Account

    assert isinstance(account, Account)
    if reconnect_id is not None:
        target = connections.owned(db, account, reconnect_id)
        if target.name != profile.name:
            raise connections.ConnectionRuleError(
                f"you authorized {profile.name!r}, but this connection is {target.name!r}: "
                "sign in to that account on the platform and reconnect again."
            )
        return connections.reconnect(db, target.id)
    return connections.connect(
        db,
        account,
        connections.NewConnection(
            platform=platform,
            name=profile.name,
            display_name=profile.display_name,
            account_type=profile.account_type,
            page_kind=profile.page_kind,
            pages_permission=profile.pages_permission,
            verified=profile.verified,
        ),
    )


def _store(vault: Vault, connection: Connection, tokens: TokenSet) -> None:
    connection.access_token_enc = vault.encrypt(tokens.access_token)
    connection.refresh_token_enc = (
        vault.encrypt(tokens.refresh_token) if tokens.refresh_token else None
    )
    connection.access_expires_at = tokens.expires_at
    connection.token_expires_at = None


REFRESH_LEASE = timedelta(seconds=60)
"""How long one refresh of a connection may hold it before another may take over."""
REFRESH_WAIT_SECONDS = 15.0


def refresh(flow: Flow, connection_id: str) -> bool:
    """Renew the access token; when the platform refuses, the connection (and a
    photo_sharing one's twin) turns inactive. True when refreshed. A platform that
    cannot answer now raises ``PlatformUnavailable`` and changes nothing.

    One refresh of a connection at a time, across threads and processes (a lease per
    connection): networks that rotate refresh tokens (X) refuse the old one once it was
    used, so a second, concurrent refresh would turn a healthy connection inactive.
    Whoever waited for another's refresh takes its result instead of refreshing again."""
    with transaction(flow.sessions, write=False) as db:
        seen = ConnectionRepository(db).get(connection_id)
        if seen is None:
            return False
        seen_expiry = seen.access_expires_at
    lease, owner = f"refresh:{connection_id}", f"{os.getpid()}:{uuid.uuid4().hex}"
    deadline = time.monotonic() + REFRESH_WAIT_SECONDS
    while not leases.claim(flow.sessions, lease, owner, REFRESH_LEASE):
        if time.monotonic() > deadline:
            raise PlatformUnavailable(
                "another refresh of this connection is still running", retry_after=5, sent=False
            )
        time.sleep(0.1)
    try:
        return _refresh_held(flow, connection_id, seen_expiry)
    finally:
        leases.release(flow.sessions, lease, owner)


def _refresh_held(flow: Flow, connection_id: str, seen_expiry: datetime | None) -> bool:
    with transaction(flow.sessions, write=False) as db:
        connection = ConnectionRepository(db).get(connection_id)
        if connection is None:
            return False
        if connection.access_expires_at != seen_expiry or connection.token_expires_at:
            return connection.token_expires_at is None  # refreshed (or refused) meanwhile
        platform = Platform(connection.platform)
        parent_id = connection.parent_id
        try:
            refresh_token = (
                flow.vault.decrypt(connection.refresh_token_enc)
                if connection.refresh_token_enc
                else None
            )
        except VaultError as exc:
            raise SecretKeyMissing.of(exc) from exc
    try:
        if refresh_token is None:
            raise TokenRefused("no_refresh_token")
        tokens = flow.drivers[platform].refresh(refresh_token)
    except TokenRefused:
        # Without a refresh token the access token simply ran out; with one, the network
        # refused to renew it. A twin's state follows its photo_sharing account.
        reason = (
            InactiveReason.TOKEN_EXPIRED if refresh_token is None else InactiveReason.REFRESH_FAILED
        )
        with transaction(flow.sessions) as db:
            connections.expire_token(db, parent_id or connection_id, reason)
        return False
    if tokens.refresh_token is None:  # Google and others keep the refresh token as is
        tokens = TokenSet(tokens.access_token, refresh_token, tokens.expires_at)
    with transaction(flow.sessions) as db:
        connection = ConnectionRepository(db).get(connection_id)
        assert connection is not None
        _store(flow.vault, connection, tokens)
    return True


def due_for_refresh(db: Session, connection: Connection) -> str | None:
    """The id of the connection whose lapsed access token must be refreshed before
    ``connection`` is used (a text_thread's own photo_sharing account), or None."""
    holder = token_holder_id(connection)
    parent = ConnectionRepository(db).get(holder) if holder != connection.id else None
    return lapsed_token(parent if holder != connection.id else connection)


class TokenState(Protocol):
    """What says whether a connection's access token has lapsed (a model or a row)."""

    @property
    def id(self) -> str: ...
    @property
    def access_expires_at(self) -> datetime | None: ...
    @property
    def token_expires_at(self) -> datetime | None: ...
    @property
    def removed_at(self) -> datetime | None: ...


class TokenOwner(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def parent_id(self) -> str | None: ...
    @property
    def access_token_enc(self) -> str | None: ...


def token_holder_id(connection: TokenOwner) -> str:
    """Whose access token ``connection`` publishes with: a text_thread without a token
    of its own uses its photo_sharing account's."""
    if connection.parent_id and not connection.access_token_enc:
        return connection.parent_id
    return connection.id


def lapsed_token(holder: TokenState | None) -> str | None:
    """The holder's id when its access token has lapsed and may be refreshed, else None."""
    if (
        holder is None
        or holder.access_expires_at is None
        or holder.token_expires_at is not None
        or holder.removed_at is not None
    ):
        return None
    return holder.id if holder.access_expires_at <= utcnow() else None


def refresh_due(flow: Flow, account_id: str) -> None:
    """Refresh the account's connections whose access token has lapsed (the
    Connections page calls it, so what it shows is what publishing would meet)."""
    with transaction(flow.sessions, write=False) as db:
        now = utcnow()
        due = [
            c.id
            for c in ConnectionRepository(db).list_for_account(account_id)
            if c.access_expires_at is not None
            and c.access_expires_at <= now
            and c.token_expires_at is None
        ]
    for connection_id in due:
        try:
            refresh(flow, connection_id)
        except PlatformUnavailable:
            log.warning("could not refresh %s now; publishing will try again", connection_id)


def expire_at_platform(flow: Flow, connection_id: str) -> None:
    """The operator's ``admin expire-token``: the sandbox platform expires the access
    token and revokes the refresh token; the refresh that follows fails, and the
    connection turns inactive by the path a real revocation takes. A connection made
    before tokens were kept is simply marked expired."""
    from pressroom.service.drivers import sandbox_oauth

    with transaction(flow.sessions) as db:
        connection = ConnectionRepository(db).get(connection_id)
        if connection is None or connection.removed_at is not None:
            raise connections.ConnectionRuleError(f"no connection {connection_id!r}")
        if connection.platform == Platform.TEXT_THREAD or connection.access_token_enc is None:
            connections.expire_token(db, connection_id)
            return
        sandbox_oauth.expire_grant(db, flow.vault.decrypt(connection.access_token_enc))
        connection.access_expires_at = utcnow()
    refresh(flow, connection_id)
