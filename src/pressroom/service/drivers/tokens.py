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
from pressroom.service.drivers.base import AccessRevoked
from pressroom.service.oauth.vault import Vault


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
        before the network's driver was configured, or its grant was dropped). One
        prepared statement (``db.reads``): the sandbox asks on every publish."""
        row = reads.read_now(self.engine, lambda link: encrypted_tokens(link, connection_id))
        encrypted = None
        if row is not None:
            encrypted = row.access_token_enc
            if row.parent_id and not encrypted:
                encrypted = row.parent_access_token_enc
        if encrypted is None:
            raise AccessRevoked("the connection holds no token for this network: reconnect it")
        return self.vault.decrypt(encrypted)
