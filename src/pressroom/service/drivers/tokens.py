"""The clear access token a real driver sends for a connection, read when it is needed.

Tokens stay encrypted in the database (``oauth.vault``); a driver asks for one per
call and forgets it. A text_thread connection publishes with its own token where its
network gave it one (Threads' chained consent), else with its photo_sharing account's
(the sandbox, where one grant covers both).
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.db.models import Connection
from pressroom.service.db.session import transaction
from pressroom.service.drivers.base import AccessRevoked
from pressroom.service.oauth.vault import Vault


class TokenSource(Protocol):
    def access_token(self, connection_id: str) -> str: ...


class ConnectionTokens:
    """Tokens from the connections table, decrypted by the vault."""

    def __init__(self, sessions: sessionmaker[Session], vault: Vault) -> None:
        self.sessions = sessions
        self.vault = vault

    def access_token(self, connection_id: str) -> str:
        """The connection's access token; ``AccessRevoked`` when it holds none (made
        before the network's driver was configured, or its grant was dropped)."""
        with transaction(self.sessions, write=False) as db:
            connection = db.get(Connection, connection_id)
            if connection is not None and connection.parent_id and not connection.access_token_enc:
                connection = db.get(Connection, connection.parent_id)
            encrypted = connection.access_token_enc if connection is not None else None
        if encrypted is None:
            raise AccessRevoked("the connection holds no token for this network: reconnect it")
        return self.vault.decrypt(encrypted)
