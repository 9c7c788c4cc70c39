"""The clear access token a real driver sends for a connection, read when it is needed.

Tokens stay encrypted in the database (``oauth.vault``); a driver asks for one per
call and forgets it. A text_thread connection publishes with its own token where its
network gave it one (Threads' chained consent), else with its photo_sharing account's
(the sandbox, where one grant covers both).
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.connections.repository import encrypted_tokens
from pressroom.service.db import reads
from pressroom.service.db.prepared import Link, Row
from pressroom.service.drivers.base import AccessRevoked, SecretKeyMissing
from pressroom.service.oauth.vault import Vault, VaultError


class TokenSource(Protocol):
    def access_token(self, connection_id: str) -> str: ...


class ConnectionTokens:
    """Tokens from the connections table, decrypted by the vault."""

    def __init__(self, sessions: sessionmaker[Session], vault: Vault) -> None:
        self.sessions = sessions
        self.vault = vault
        self.engine: Engine = sessions.kw["bind"]

    def access_token(self, connection_id: str) -> str:
        """The connection's access token; ``AccessRevoked`` when it holds none (made
        before the network's driver was configured, or its grant was dropped),
        ``SecretKeyMissing`` when the service's keys cannot decrypt it. One
        prepared statement (``db.reads``): the sandbox asks on every publish."""
        return self._decrypted(
            reads.read_now(self.engine, lambda link: encrypted_tokens(link, connection_id))
        )

    def access_token_on(self, link: Link, connection_id: str) -> str:
        """The same, read in the transaction of a unit of work already open on ``link``
        (the sandbox's delivery): no pooled connection taken for it."""
        return self._decrypted(encrypted_tokens(link, connection_id))

    def _decrypted(self, row: Row | None) -> str:
        encrypted = None
        if row is not None:
            encrypted = row.access_token_enc
            if row.parent_id and not encrypted:
                encrypted = row.parent_access_token_enc
        if encrypted is None:
            raise AccessRevoked("the connection holds no token for this network: reconnect it")
        try:
            return self.vault.decrypt(encrypted)
        except VaultError as exc:
            raise SecretKeyMissing.of(exc) from exc
