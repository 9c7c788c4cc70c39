"""How the sender reaches a receiver: only at an address it has just checked, and never
past the attempt's deadline.

- **Checked addresses, pinned.** Each connection resolves the host afresh (with the
  sender's resolver, injectable for tests), refuses the host if any address it gives is
  not allowed (``targets``), and connects to one of those very addresses, so a DNS answer
  that changes between the check and the connection changes nothing. TLS still names the
  host (SNI, certificate checks). Connections are not kept alive: every attempt is
  checked anew, and a connection cut at a deadline is never reused.
- **One deadline for the whole attempt.** httpx's timeouts bound each read, so a receiver
  that trickles a byte every few seconds could hold a send for minutes. Here each step
  (resolving, connecting, TLS, every write, every read) waits only for what is left until
  the deadline the sender set for its thread (``deadline``), and a step past it fails at
  once: the attempt ends at the deadline whatever the receiver does, headers included.
- **Small reads.** A read takes at most ``READ_SIZE`` bytes: the sender wants an
  answer's first few KiB, not what a receiver can push into a 64 KiB buffer.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

from pressroom.service.webhooks.addresses import Address
from pressroom.service.webhooks.targets import Resolver, TargetPolicy, system_resolver

READ_SIZE = 4096
"""The most bytes one read from a receiver's socket takes."""

Connector = Callable[[Address, int, float | None], socket.socket]
"""(address, port, timeout) -> a connected socket: ``open_socket`` unless a test injects
its own (to see whether anything would have been connected at all)."""


def open_socket(address: Address, port: int, timeout: float | None) -> socket.socket:
    return socket.create_connection((str(address), port), timeout=timeout)


class _Deadline(threading.local):
    ends: float | None = None


_deadline = _Deadline()


@contextmanager
def deadline(ends: float) -> Iterator[None]:
    """Inside, every network step on this thread ends by ``ends`` (``time.monotonic()``)."""
    _deadline.ends = ends
    try:
        yield
    finally:
        _deadline.ends = None


def past_deadline() -> bool:
    ends = _deadline.ends
    return ends is not None and time.monotonic() >= ends


def _left(timeout: float | None, late: type[Exception]) -> float | None:
    """The shorter of ``timeout`` and what is left of this thread's deadline; raises
    ``late`` once nothing is left (a zero timeout would make the socket non-blocking)."""
    ends = _deadline.ends
    if ends is None:
        return timeout
    left = ends - time.monotonic()
    if left <= 0:
        raise late("the attempt's deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            self._sock.settimeout(_left(timeout, httpcore.ReadTimeout))
            return self._sock.recv(min(max_bytes, READ_SIZE))
        except TimeoutError as exc:
            raise httpcore.ReadTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.ReadError(str(exc)) from exc

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        try:
            while buffer:  # each send waits only for what is left
                self._sock.settimeout(_left(timeout, httpcore.WriteTimeout))
                sent = self._sock.send(buffer)
                buffer = buffer[sent:]
        except TimeoutError as exc:
            raise httpcore.WriteTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.WriteError(str(exc)) from exc

    def close(self) -> None:
        self._sock.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        try:
            self._sock.settimeout(_left(timeout, httpcore.ConnectTimeout))
            wrapped = ssl_context.wrap_socket(self._sock, server_hostname=server_hostname)
        except TimeoutError as exc:
            self.close()
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except OSError as exc:
            self.close()
            raise httpcore.ConnectError(str(exc)) from exc
        except BaseException:
            self.close()
            raise
        return _Stream(wrapped)

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object" and isinstance(self._sock, ssl.SSLSocket):
            return self._sock._sslobj  # type: ignore[attr-defined]
        if info == "client_addr":
            return self._sock.getsockname()
        if info == "server_addr":
            return self._sock.getpeername()
        if info == "socket":
            return self._sock
        return None


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore's network backend for the sender: checked addresses, one deadline."""

    def __init__(
        self,
        policy: TargetPolicy,
        resolve: Resolver = system_resolver,
        connect: Connector = open_socket,
    ) -> None:
        self.policy = policy
        self.resolve = resolve
        self.connect = connect
        # getaddrinfo cannot be interrupted: a lookup runs here, and the attempt stops
        # waiting for it at its deadline.
        self._lookups = ThreadPoolExecutor(max_workers=4, thread_name_prefix="pressroom-dns")

    def close(self) -> None:
        self._lookups.shutdown(wait=False, cancel_futures=True)

    def _resolve_in_time(self, host: str, port: int) -> list[str]:
        wait = _left(None, httpcore.ConnectTimeout)
        if wait is None:
            return self.resolve(host, port)
        lookup = self._lookups.submit(self.resolve, host, port)
        try:
            return lookup.result(timeout=wait)
        except FutureTimeout:
            raise httpcore.ConnectTimeout(f"resolving {host} outlasted the deadline") from None

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        allowed = self.policy.allowed_addresses(host, port, self._resolve_in_time)
        failure: OSError | None = None
        for address in allowed:
            try:
                sock = self.connect(address, port, _left(timeout, httpcore.ConnectTimeout))
            except OSError as exc:  # a timeout too: the next address may answer
                failure = exc
                continue
            for option in socket_options or ():
                sock.setsockopt(*option)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return _Stream(sock)
        if isinstance(failure, TimeoutError):
            raise httpcore.ConnectTimeout(str(failure)) from failure
        raise httpcore.ConnectError(str(failure)) from failure

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("webhooks are sent over TCP only")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def guarded_client(
    backend: GuardedBackend, *, timeout: float, headers: dict[str, str]
) -> httpx.Client:
    """An httpx client that connects only through ``backend``, keeps no connection alive,
    follows no redirect and ignores proxy settings (the checks apply to the peer itself)."""
    transport = httpx.HTTPTransport(trust_env=False)
    # httpx takes no network backend of its own: its connection pool is swapped for one
    # that connects through ours (httpcore's documented extension point).
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(trust_env=False),
        max_keepalive_connections=0,
        network_backend=backend,
    )
    return httpx.Client(
        transport=transport, follow_redirects=False, timeout=timeout, headers=headers
    )
