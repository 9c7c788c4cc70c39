"""open_microblog on Bluesky: the AT Protocol's XRPC calls to the account's own PDS.

open_microblog is pressroom's extension beside the spec's eight labels. It publishes for
real once ``PRESSROOM_OPEN_MICROBLOG_SERVICE_URL`` is set (``https://bsky.social``);
Bluesky needs no app registration.

Connect (https://docs.bsky.app/docs/advanced-guides/oauth-client names OAuth the way
forward and app passwords the fallback): the person gives their handle. Where their
PDS offers OAuth, pressroom is an OAuth client of it (``atproto_oauth``: PAR, PKCE,
DPoP-bound tokens, each call to the PDS then signed with the grant's key); else they
give an app password too (Settings → Privacy and security → App passwords), never
their account password. The handle resolves to a DID at the service
(``com.atproto.identity.resolveHandle``), the DID to its document (the PLC directory
for ``did:plc``, ``/.well-known/did.json`` for ``did:web``), the document to the
account's PDS, where ``com.atproto.server.createSession`` opens a session;
``refreshSession`` renews it before its access JWT lapses (two hours on Bluesky).

Publish: ``com.atproto.repo.uploadBlob`` for an image (``app.bsky.embed.images``, its
alt text with it) or a video (``app.bsky.embed.video``), then
``com.atproto.repo.createRecord`` of an ``app.bsky.feed.post`` with the links, mentions
and hashtags of the text as facets (``atproto.spans``; a mention whose handle does not
resolve stays plain text, as in Bluesky's app) and OUR record key (``atproto.tid``).

Exactly once: every attempt at a post record writes the same key, and the PDS refuses a
second record at a key it has. So after a failure of any kind, and when an unknown
outcome is looked up, ``com.atproto.repo.getRecord`` at that key says whether the post
exists: found, it is the post; not found, nothing was published.

Errors (https://atproto.com/specs/xrpc): ``{"error": name, "message": words}``.
``ExpiredToken`` and ``InvalidToken`` (400, or 401) mean the session is gone: the
connection turns inactive until it is connected again. ``RateLimitExceeded`` is 429 with
``ratelimit-reset`` (epoch seconds).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx

from pressroom.platforms import MediaKind, Platform
from pressroom.service.db.base import utcnow
from pressroom.service.drivers import atproto, atproto_oauth
from pressroom.service.drivers.answers import json_of, parse_time
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    Media,
    MediaSource,
    MetricsUnsupported,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
    PostMetrics,
    Profile,
    Published,
    ThumbnailChange,
    ThumbnailSet,
    TokenRefused,
    TokenSet,
    check_before_sending,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.inspection import (
    Finding,
    Inspection,
    Standing,
    quota_finding,
    scope_finding,
    scope_states,
)
from pressroom.service.drivers.tokens import TokenSource
from pressroom.settings import NetworkSettings

POST = "app.bsky.feed.post"
PROFILE = "app.bsky.actor.profile"
WEB = "https://bsky.app"
SESSION_GONE = frozenset({"ExpiredToken", "InvalidToken", "AccountTakedown"})
APPVIEW: str = NetworkSettings.model_fields["open_microblog_appview"].default
"""The service a PDS passes Bluesky's own reads (``app.bsky.*``) to: Bluesky's AppView,
unless ``PRESSROOM_OPEN_MICROBLOG_APPVIEW`` names another."""
SCOPES = ("atproto", "transition:generic")
"""What an AT Protocol OAuth grant names (https://atproto.com/specs/oauth#authorization-scopes):
``atproto`` for any session, ``transition:generic`` for an app password's powers (write
records, upload blobs). pressroom's OAuth client asks for both at consent
(``atproto_oauth``); an app-password session has exactly these powers; the sandbox's
consent page asks for them."""
PUBLISH_SCOPES = SCOPES
METRICS_REQUESTS_PER_HOUR = 36_000
"""Bluesky limits API requests to 3,000 per five minutes from one address (36,000 an
hour), reads of a post's counts included; the AppView's own read limits are higher.
Source: https://docs.bsky.app/docs/advanced-guides/rate-limits"""


class SignInRefused(Exception):
    """The handle or the app password was refused; the message says which, in words."""


class BlueskyDriver:
    platform = Platform.OPEN_MICROBLOG
    refresh_ahead = timedelta(minutes=15)

    def __init__(
        self,
        service_url: str,
        plc_url: str,
        tokens: TokenSource,
        http: NetworkClient,
        media: MediaSource,
        *,
        client_keys: tuple[str, ...] = (),
        appview: str = APPVIEW,
    ) -> None:
        self.service_url = service_url.rstrip("/")
        self.plc_url = plc_url.rstrip("/")
        self.tokens = tokens
        self.http = http
        self.media = media
        self.nonces = atproto_oauth.Nonces()
        self.client_keys = client_keys
        """pressroom's OAuth client keys (``atproto_oauth.client_key``), current first."""
        self.appview = appview

    # --- connect: handle and app password ----------------------------------------------
    def sign_in(self, identifier: str, password: str) -> tuple[TokenSet, Profile]:
        """Open a session for a handle (or DID) and an app password."""
        did = self.resolve_handle(identifier)
        pds = self.pds_of(did)
        try:
            response = self.http.request(
                "POST",
                _xrpc(pds, "com.atproto.server.createSession"),
                json={"identifier": did, "password": password},
                read=True,  # opening a session publishes nothing: safe to try again
            )
        except AccessRevoked:  # 401 AuthenticationRequired: the password is wrong
            raise SignInRefused("the handle or the app password was refused") from None
        body = json_of(response)
        if response.status_code != 200:
            if body.get("error") == "AuthFactorTokenRequired":
                raise SignInRefused(
                    "this account asks for a code sent by email to sign in: use an app "
                    "password, which never does"
                )
            raise SignInRefused(f"the handle or the app password was refused ({_words(response)})")
        handle = str(body.get("handle") or identifier)
        access = atproto.Session(pds, str(body["did"]), handle, str(body["accessJwt"]))
        refresh = atproto.Session(pds, access.did, handle, str(body["refreshJwt"]))
        tokens = TokenSet(access.dumps(), refresh.dumps(), atproto.jwt_expiry(access.token))
        return tokens, self.fetch_profile(tokens)

    # --- connect: AT Protocol OAuth -----------------------------------------------------
    def client(self, base_url: str) -> atproto_oauth.Client:
        """The OAuth client pressroom is at ``base_url``; ``OAuthUnavailable`` when none."""
        return atproto_oauth.client_of(base_url, SCOPES, self.client_keys)

    def _signer(self, kid: str | None, client_id: str, issuer: str) -> tuple[str, str, str] | None:
        """What authenticates the client to ``issuer``: the key ``kid`` names (None for a
        public client); ``TokenRefused`` when the service no longer holds it (its secret
        was replaced without keeping the old one in ``PRESSROOM_OLD_SECRET_KEYS``)."""
        if not kid:
            return None
        key = next((k for k in self.client_keys if atproto_oauth.kid_of(k) == kid), None)
        if key is None:
            raise TokenRefused("client_key_gone")
        return key, client_id, issuer

    def start_oauth(
        self, identifier: str, client: atproto_oauth.Client, state: str
    ) -> tuple[str, str]:
        """Where to send the browser to authorize pressroom for a handle's account, and
        the pending authorization to keep with ``state`` until the callback (it holds the
        PKCE verifier and the grant's DPoP key). ``SignInRefused`` for an unknown
        handle, ``OAuthUnavailable`` where the account's PDS offers no OAuth."""
        did = self.resolve_handle(identifier)
        pds = self.pds_of(did)
        server = atproto_oauth.discover(self.http, pds)
        verifier = secrets.token_urlsafe(64)  # 86 characters: within RFC 7636's 43..128
        key = atproto_oauth.new_key()
        handle = identifier.strip().lstrip("@")
        url = atproto_oauth.push(
            self.http,
            self.nonces,
            server,
            client,
            state=state,
            verifier=verifier,
            key=key,
            login_hint=handle,
        )
        pending = atproto_oauth.Pending(
            verifier,
            key,
            server.issuer,
            server.token_endpoint,
            did,
            pds,
            handle,
            client.client_id,
            atproto_oauth.kid_of(client.keys[0]) if client.confidential else "",
        )
        return url, pending.dumps()

    def check_issuer(self, code_verifier: str, issuer: str) -> None:
        """The callback's ``iss`` must name the server the authorization was asked of
        (RFC 9207; https://atproto.com/specs/oauth#authorization-request)."""
        pending = atproto_oauth.Pending.loads(code_verifier)
        if pending is not None and issuer.rstrip("/") != pending.issuer:
            raise TokenRefused("issuer_mismatch")

    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        raise TokenRefused("open_microblog connects from the handle (start_oauth)")

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        """The code for DPoP-bound tokens; ``code_verifier`` is the pending
        authorization ``start_oauth`` made."""
        pending = atproto_oauth.Pending.loads(code_verifier)
        if pending is None:
            raise TokenRefused("open_microblog connects from the handle (start_oauth)")
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": pending.verifier,
            "client_id": pending.client_id,
        }
        signer = self._signer(pending.client_kid, pending.client_id, pending.issuer)
        answer = atproto_oauth.dpop_post(
            self.http, self.nonces, pending.token_endpoint, form, pending.key, client=signer
        )
        grant = atproto_oauth.grant_of(answer, pending.did)
        access = atproto.Session(
            pending.pds,
            pending.did,
            self._handle_of(pending.pds, pending.did, pending.handle),
            grant.access_token,
            pending.key,
            pending.token_endpoint,
            pending.client_id,
            pending.issuer,
            pending.client_kid or None,
        )
        return self._oauth_tokens(access, grant)

    def _handle_of(self, pds: str, did: str, typed: str) -> str:
        """The account's handle as its PDS names it (``com.atproto.repo.describeRepo``),
        which the connection is named after, as an app-password session's is: what the
        person typed may differ in case, or be the DID."""
        response = self.http.request(
            "GET", _xrpc(pds, "com.atproto.repo.describeRepo"), params={"repo": did}
        )
        handle = json_of(response).get("handle") if response.status_code == 200 else None
        return str(handle) if handle else typed

    def _oauth_tokens(self, access: atproto.Session, grant: atproto_oauth.Grant) -> TokenSet:
        refresh = (
            replace(access, token=grant.refresh_token) if grant.refresh_token is not None else None
        )
        expires_at = (
            utcnow() + timedelta(seconds=grant.expires_in)
            if grant.expires_in is not None
            else atproto.jwt_expiry(grant.access_token)
        )
        return TokenSet(access.dumps(), refresh.dumps() if refresh else None, expires_at)

    def fetch_profile(self, tokens: TokenSet) -> Profile:
        session = atproto.Session.loads(tokens.access_token)
        response = self.http.request(
            "GET",
            _xrpc(session.pds, "com.atproto.repo.getRecord"),
            params={"repo": session.did, "collection": PROFILE, "rkey": "self"},
        )
        value = json_of(response).get("value") if response.status_code == 200 else None
        display = value.get("displayName") if isinstance(value, dict) else None
        return Profile(name=f"@{session.handle}", display_name=str(display or session.handle))

    def refresh(self, refresh_token: str) -> TokenSet:
        held = atproto.Session.loads(refresh_token)
        if held.by_oauth:
            return self._refresh_oauth(held)
        try:
            response = self.http.request(
                "POST",
                _xrpc(held.pds, "com.atproto.server.refreshSession"),
                token=held.token,
            )
        except AccessRevoked:
            raise TokenRefused("ExpiredToken") from None
        body = json_of(response)
        if response.status_code != 200:
            raise TokenRefused(str(body.get("error") or f"http_{response.status_code}"))
        handle = str(body.get("handle") or held.handle)
        access = atproto.Session(held.pds, held.did, handle, str(body["accessJwt"]))
        renewed = atproto.Session(held.pds, held.did, handle, str(body["refreshJwt"]))
        return TokenSet(access.dumps(), renewed.dumps(), atproto.jwt_expiry(access.token))

    def _refresh_oauth(self, held: atproto.Session) -> TokenSet:
        """A refresh token for new DPoP-bound tokens, with the grant's own key; the
        answer brings the next refresh token (each is used once)."""
        assert held.token_endpoint is not None and held.client_id is not None
        assert held.dpop_key is not None
        signer = self._signer(held.client_kid, held.client_id, held.issuer or "")
        form = {
            "grant_type": "refresh_token",
            "refresh_token": held.token,
            "client_id": held.client_id,
        }
        answer = atproto_oauth.dpop_post(
            self.http, self.nonces, held.token_endpoint, form, held.dpop_key, client=signer
        )
        grant = atproto_oauth.grant_of(answer, held.did)
        return self._oauth_tokens(replace(held, token=grant.access_token), grant)

    def _send(
        self, session: atproto.Session, method: str, url: str, **kwargs: Any
    ) -> httpx.Response:
        """One call to the PDS as the session: its bearer token (an app password's), or
        its DPoP-bound token with a proof made afresh for each attempt, the call made
        once more with the nonce the PDS asks for (RFC 9449 section 9)."""
        if not session.by_oauth:
            return self.http.request(method, url, token=session.token, **kwargs)
        key = session.dpop_key
        assert key is not None

        def signed() -> dict[str, str]:
            proof = atproto_oauth.proof(
                key, method, url, nonce=self.nonces.get(url), access_token=session.token
            )
            return {"Authorization": f"DPoP {session.token}", "DPoP": proof}

        response = None
        for _ in range(2):
            response = self.http.request(method, url, answer_401=True, signed=signed, **kwargs)
            self.nonces.note(url, response)
            if not atproto_oauth.wants_nonce(response):
                break
        assert response is not None
        if response.status_code == 401:
            raise AccessRevoked(f"Bluesky refused the connection's session ({_words(response)})")
        return response

    # --- publish ---------------------------------------------------------------------
    def publish(self, delivery: Delivery) -> Published:
        check_before_sending(delivery)
        session = self._session(delivery)
        rkey = atproto.tid(delivery.created_at, delivery.reference)
        record = self._record(session, delivery)
        try:
            response = self._send(
                session,
                "POST",
                _xrpc(session.pds, "com.atproto.repo.createRecord"),
                creates=True,
                json={"repo": session.did, "collection": POST, "rkey": rkey, "record": record},
            )
        except PlatformRateLimited:
            raise
        except PlatformUnavailable as failed:
            # A 5xx or a broken answer: the record may be there (a second write at this
            # key is refused, with a 500 on the reference PDS). Its key says.
            found = self._at_key(session, rkey, failed, text=record["text"])
            if found is not None:
                return found
            raise
        if response.status_code == 200:
            body = json_of(response)
            return self._published(session, str(body["uri"]), str(body.get("cid") or ""))
        found = self._at_key(session, rkey, None, text=record["text"])
        if found is not None:
            return found
        raise refusal_of(response)

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        session = self._session(delivery)
        cannot_tell = PlatformUnavailable(
            "Bluesky could not say whether the post exists", retry_after=60, sent=True
        )
        text = _post_text(delivery)
        keys = [atproto.tid(delivery.created_at, delivery.reference)]
        if delivery.created_at is not None:
            keys.append(atproto.legacy_tid(delivery.created_at, delivery.reference))
        for rkey in keys:
            found = self._at_key(session, rkey, cannot_tell, text=text)
            if found is not None:
                return found
        return None

    def delete(self, connection_id: str, post_uri: str) -> None:
        """Remove a post (``com.atproto.repo.deleteRecord``); gone already is fine."""
        session = atproto.Session.loads(self.tokens.access_token(connection_id))
        response = self._send(
            session,
            "POST",
            _xrpc(session.pds, "com.atproto.repo.deleteRecord"),
            read=True,  # deleting twice leaves the same: safe to try again
            json={"repo": session.did, "collection": POST, "rkey": atproto.rkey_of(post_uri)},
        )
        if response.status_code != 200:
            raise refusal_of(response)

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        raise PlatformRefused("open_microblog posts have no thumbnails")

    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics:
        """``app.bsky.feed.getPosts`` for the post's AT URI, asked of the account's PDS,
        which passes it to Bluesky's AppView (the ``atproto-proxy`` header,
        https://docs.bsky.app/docs/advanced-guides/api-directory#service-proxying): its
        ``likeCount``, ``replyCount``, and ``repostCount`` with ``quoteCount`` together as
        shares (as Threads' reposts and quotes are). A post the AppView does not show (gone,
        or taken down) has no figures to give."""
        session = atproto.Session.loads(self.tokens.access_token(account.connection_id))
        response = self._send(
            session,
            "GET",
            _xrpc(session.pds, "app.bsky.feed.getPosts"),
            read=True,
            headers={"atproto-proxy": self.appview},
            params={"uris": platform_post_id},
        )
        if response.status_code != 200:
            raise refusal_of(response)
        posts = json_of(response).get("posts")
        post = posts[0] if isinstance(posts, list) and posts else None
        if not isinstance(post, dict):
            raise MetricsUnsupported(f"Bluesky shows no post {platform_post_id}")

        def count(name: str) -> int | None:
            value = post.get(name)
            return value if isinstance(value, int) else None

        reposts, quotes = count("repostCount"), count("quoteCount")
        shares = None if reposts is None and quotes is None else (reposts or 0) + (quotes or 0)
        return PostMetrics(likes=count("likeCount"), comments=count("replyCount"), shares=shares)

    def inspect(self, account: Account) -> Inspection:
        """``com.atproto.server.getSession`` (https://docs.bsky.app/docs/api/com-atproto-server-get-session):
        the session's account, and whether the PDS holds it active. An app-password
        session carries ``transition:generic``'s powers whole, so its scopes are granted
        by the session answering at all."""
        session = atproto.Session.loads(self.tokens.access_token(account.connection_id))
        response = self._send(session, "GET", _xrpc(session.pds, "com.atproto.server.getSession"))
        if response.status_code != 200:
            raise refusal_of(response)
        body = json_of(response)
        active = body.get("active", True) is not False
        status = str(body.get("status") or ("active" if active else "inactive"))
        kind = (
            "an OAuth session (granted at consent)"
            if session.by_oauth
            else "an app-password session"
        )
        source = f"com.atproto.server.getSession answered {kind}"
        scopes = scope_states(SCOPES, granted=SCOPES)
        return Inspection(
            network="Bluesky",
            account=f"@{body.get('handle') or session.handle}",
            scopes=scopes,
            scopes_source=source,
            account_type=status,
            findings=(
                scope_finding(scopes, PUBLISH_SCOPES, source),
                Finding(
                    "account",
                    status,
                    "posts are accepted"
                    if active
                    else "the PDS takes no posts from a deactivated or suspended account",
                    Standing.OK if active else Standing.BLOCKED,
                ),
                quota_finding("Bluesky", None),
            ),
        )

    # --- identity --------------------------------------------------------------------
    def resolve_handle(self, identifier: str, *, at: str | None = None) -> str:
        """The DID of a handle (a DID is its own); ``SignInRefused`` when none."""
        handle = identifier.strip().lstrip("@")
        if handle.startswith("did:"):
            return handle
        response = self.http.request(
            "GET",
            _xrpc(at or self.service_url, "com.atproto.identity.resolveHandle"),
            params={"handle": handle},
        )
        did = json_of(response).get("did") if response.status_code == 200 else None
        if not did:
            raise SignInRefused(f"no Bluesky account has the handle {handle!r}")
        return str(did)

    def pds_of(self, did: str) -> str:
        """The PDS that holds a DID's repository, from its DID document."""
        if did.startswith("did:plc:"):
            url = f"{self.plc_url}/{did}"
        elif did.startswith("did:web:"):
            url = f"https://{did.removeprefix('did:web:')}/.well-known/did.json"
        else:
            raise SignInRefused(f"{did} is not a DID pressroom can resolve (plc or web)")
        response = self.http.request("GET", url)
        pds = atproto.pds_of(json_of(response)) if response.status_code == 200 else None
        if pds is None:
            raise SignInRefused(f"the DID document of {did} names no PDS")
        return pds

    # --- helpers ---------------------------------------------------------------------
    def _session(self, delivery: Delivery) -> atproto.Session:
        return atproto.Session.loads(self.tokens.access_token(delivery.account.connection_id))

    def _record(self, session: atproto.Session, delivery: Delivery) -> dict[str, Any]:
        text = _post_text(delivery)
        record: dict[str, Any] = {
            "$type": POST,
            "text": text,
            "createdAt": _iso(delivery.created_at or utcnow()),
        }
        facets = self._facets(session, text)
        if facets:
            record["facets"] = facets
        if delivery.reply_to is not None:  # a thread's later part
            record["reply"] = self._reply_ref(session, delivery.reply_to)
        # Each file's alt text travels with it (``Media.alt_text``, from ``fileAlts``);
        # ``altText`` says the same for a post's one file. The lexicon requires ``alt``
        # on an image: a file without one is sent with an empty one.
        if delivery.items:
            images = [self._image(session, item, item.alt_text or "") for item in delivery.items]
            record["embed"] = {"$type": "app.bsky.embed.images", "images": images}
        elif delivery.media is not None:
            alt = delivery.media.alt_text or str(delivery.fields.get("altText") or "")
            record["embed"] = self._embed(session, delivery.media, alt)
        elif (card := link_card(text)) is not None:
            record["embed"] = card
        return record

    def _reply_ref(self, session: atproto.Session, parent_uri: str) -> dict[str, Any]:
        """``app.bsky.feed.post#replyRef``: strong references (URI and CID) to the post
        replied to and to its thread's first post, which the parent's own ``reply``
        names, or the parent itself when it starts the thread
        (https://docs.bsky.app/docs/advanced-guides/posts#replies-quote-posts-and-embeds)."""
        repo, collection, rkey = parent_uri.removeprefix("at://").split("/", 2)
        response = self.http.request(
            "GET",
            _xrpc(session.pds, "com.atproto.repo.getRecord"),
            params={"repo": repo, "collection": collection, "rkey": rkey},
        )
        if response.status_code != 200:
            raise PlatformRefused(
                f"Bluesky could not show the post this part replies to ({_words(response)})",
                field="thread",
            )
        body = json_of(response)
        parent = {"uri": str(body["uri"]), "cid": str(body["cid"])}
        value = body.get("value")
        reply = value.get("reply") if isinstance(value, dict) else None
        root = reply.get("root") if isinstance(reply, dict) else None
        root = root if isinstance(root, dict) else parent
        return {"root": {"uri": str(root["uri"]), "cid": str(root["cid"])}, "parent": parent}

    def _facets(self, session: atproto.Session, text: str) -> list[dict[str, Any]]:
        found = []
        for span in atproto.spans(text):
            if span.kind != "mention":
                found.append(atproto.facet(span))
                continue
            try:
                did = self.resolve_handle(span.value, at=session.pds)
            except SignInRefused:
                continue  # an unknown handle stays plain text, as in Bluesky's app
            found.append(atproto.facet(span, did))
        return found

    def _embed(self, session: atproto.Session, media: Media, alt: str) -> dict[str, Any]:
        if media.kind is MediaKind.VIDEO:
            blob = self._upload(session, media)
            return {"$type": "app.bsky.embed.video", "video": blob, "alt": alt, **_ratio(media)}
        return {"$type": "app.bsky.embed.images", "images": [self._image(session, media, alt)]}

    def _image(self, session: atproto.Session, media: Media, alt: str) -> dict[str, Any]:
        """One ``app.bsky.embed.images#image``: the uploaded blob, its alt text (required
        by the lexicon, empty when none was given) and its shape."""
        return {"image": self._upload(session, media), "alt": alt, **_ratio(media)}

    def _upload(self, session: atproto.Session, media: Media) -> dict[str, Any]:
        size = media.size or 0
        response = self._send(
            session,
            "POST",
            _xrpc(session.pds, "com.atproto.repo.uploadBlob"),
            read=True,  # a blob is content-addressed: sending it twice stores it once
            headers={"Content-Type": media.content_type, "Content-Length": str(size)},
            content=_joined(self.media.read(media.storage_key, 0, size)),
        )
        if response.status_code != 200:
            raise refusal_of(response, field="fileId")
        blob: dict[str, Any] = json_of(response)["blob"]
        return blob

    def _at_key(
        self,
        session: atproto.Session,
        rkey: str,
        cannot_tell: PlatformUnavailable | None,
        *,
        text: str,
    ) -> Published | None:
        """Our post at our key, None when there is none; ``cannot_tell`` is raised when
        the PDS does not answer (None: the PDS's silence counts as no post). A record
        there with another text is not ours (another part of the thread that drew the same
        key): it is never taken for this one."""
        try:
            response = self.http.request(
                "GET",
                _xrpc(session.pds, "com.atproto.repo.getRecord"),
                params={"repo": session.did, "collection": POST, "rkey": rkey},
            )
        except PlatformUnavailable:
            if cannot_tell is not None:
                raise cannot_tell from None
            return None
        if response.status_code == 200:
            body = json_of(response)
            value = body.get("value") if isinstance(body.get("value"), dict) else {}
            if not value or value.get("text") != text:
                return None
            return self._published(
                session,
                str(body["uri"]),
                str(body.get("cid") or ""),
                parse_time(value.get("createdAt") if value else None),
            )
        if json_of(response).get("error") == "RecordNotFound" or response.status_code == 404:
            return None
        if cannot_tell is not None:
            raise cannot_tell
        return None

    def _published(
        self, session: atproto.Session, uri: str, cid: str, at: datetime | None = None
    ) -> Published:
        url = f"{WEB}/profile/{session.handle}/post/{atproto.rkey_of(uri)}"
        return Published(uri, url, at or utcnow(), extra={"cid": cid or None})


def link_card(text: str) -> dict[str, Any] | None:
    """``app.bsky.embed.external`` for the text's first link, so Bluesky shows it as a
    card (https://docs.bsky.app/docs/advanced-guides/posts#website-card-embeds): its
    address, its host as the title and the post's text around it as the description,
    all from the text itself. The page is not fetched: reading an address a user gave
    from the service would reach whatever it names (an address on the service's own
    network included), so no page title, description or picture is read."""
    link = next((span for span in atproto.spans(text) if span.kind == "link"), None)
    if link is None:
        return None
    host = urlsplit(link.value).hostname or link.value
    around = " ".join(text.replace(link.value, " ").split())
    return {
        "$type": "app.bsky.embed.external",
        "external": {"uri": link.value, "title": host, "description": around},
    }


def _ratio(media: Media) -> dict[str, Any]:
    if media.width and media.height:
        return {"aspectRatio": {"width": media.width, "height": media.height}}
    return {}


def _xrpc(base: str, nsid: str) -> str:
    return f"{base.rstrip('/')}/xrpc/{nsid}"


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _joined(chunks: Iterator[bytes]) -> bytes:
    return b"".join(chunks)


def _words(response: httpx.Response) -> str:
    body = json_of(response)
    name = str(body.get("error") or f"HTTP {response.status_code}")
    message = body.get("message")
    return f"{name}: {message}" if message else name


def _post_text(delivery: Delivery) -> str:
    """The record's text: what a record at our key must hold to be ours."""
    return str(delivery.fields.get("text") or "")


def refusal_of(response: httpx.Response, *, field: str = "text") -> Exception:
    """What a refusal of the PDS means: the session gone (``AccessRevoked``), or the
    post refused, naming the field."""
    error = str(json_of(response).get("error") or "")
    if error in SESSION_GONE or response.status_code in (401, 403):
        return AccessRevoked(f"Bluesky refused the connection's session ({_words(response)})")
    if "embed" in str(json_of(response).get("message") or ""):
        field = "fileId"  # the PDS refuses the record for its image or video
    return PlatformRefused(f"Bluesky answered: {_words(response)}", field=field)
