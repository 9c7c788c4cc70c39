"""The service of ``pressroom demo``, in a process of its own.

Importing, migrating and seeding the service takes about 3 s of CPU; importing Prefect,
loading the flow and starting its run another 2.5 s. In one process they took turns on
one core. Here they run side by side on two: the demo binds the service's port itself
and hands the listening socket to this process (as systemd's socket activation does),
with the demo account's API key, which the demo made. The address answers from the first
moment, so the flow starts at once: its first request to the service waits in the
socket's queue until the service serves, and the first published row comes that much
sooner (``benchmarks/README.md``, "tenth round").

Its lifetime is its standard input: it serves until the demo closes that pipe, which
happens however the demo ends (a return, Ctrl-C, a crash or a kill), so it never
outlives the demo. It ignores Ctrl-C itself, so that the demo decides when the service
stops. Once it serves, it writes one JSON line on the pipe named by ``--ready-fd`` (a
one-time sign-in link to the dashboard); a service that stops before is reported by the
demo at once, and its socket closes with it, so no request waits for it.

Run as ``python -m pressroom.cli.demo_service``; the data dir and the public address come
from ``PRESSROOM_DATA_DIR`` and ``PRESSROOM_BASE_URL``, which the demo sets.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TextIO, TypedDict

STARTUP_TIMEOUT_SECONDS = 30.0
STOP_TIMEOUT_SECONDS = 15.0
# The demo's run opens at most a few dozen connections while the service starts.
BACKLOG = 128
# The service yields the processor to Prefect's server starting beside it on a fresh
# Prefect home, which the first published row waits for longest.
NICENESS = 5


class Ready(TypedDict):
    """What the service tells the demo once it serves."""

    sign_in_link: str


def bind(port: int) -> socket.socket:
    """The service's listening socket on 127.0.0.1; ``OSError`` when the port is taken."""
    return socket.create_server(("127.0.0.1", port), backlog=BACKLOG)


class DemoService:
    """The demo's end: starts the service on a socket ``bind`` made, watches it, stops it.

    A thread reads the service's ready line; ``on_failure(why)`` is called from it if the
    service stops before it serves.
    """

    def __init__(
        self,
        listener: socket.socket,
        *,
        data_dir: Path,
        base_url: str,
        log_level: str,
        on_failure: Callable[[str], None],
    ) -> None:
        from pressroom.service.accounts.keys import generate_key

        self.key = generate_key()
        self._ready: Ready | None = None
        self._failure: str | None = None
        self._watched = threading.Event()
        with listener:
            read_end, write_end = os.pipe()
            command = [sys.executable, "-m", "pressroom.cli.demo_service", "--log-level"]
            command += [log_level, "--fd", str(listener.fileno()), "--ready-fd", str(write_end)]
            env = os.environ | {"PRESSROOM_DATA_DIR": str(data_dir), "PRESSROOM_BASE_URL": base_url}
            self._process = subprocess.Popen(
                command, stdin=subprocess.PIPE, pass_fds=(listener.fileno(), write_end), env=env
            )
            # The service's copies are the only ones left: when it ends, its socket closes
            # (a request then fails at once) and its ready pipe reads empty.
            os.close(write_end)
        assert self._process.stdin is not None
        # A service that ended already is reported by the watcher, from its ready pipe.
        with contextlib.suppress(BrokenPipeError):
            self._process.stdin.write(f"{self.key}\n".encode())
            self._process.stdin.flush()
        threading.Thread(
            target=self._watch,
            args=(os.fdopen(read_end), on_failure),
            name="pressroom-demo-service",
            daemon=True,
        ).start()

    @property
    def pid(self) -> int:
        return self._process.pid

    def _watch(self, ready_pipe: TextIO, on_failure: Callable[[str], None]) -> None:
        with ready_pipe:
            line = ready_pipe.readline()
        if line:
            self._ready = json.loads(line)
        else:
            code = self._process.wait()
            self._failure = f"the demo's service stopped before it served (exit status {code})"
            on_failure(self._failure)
        self._watched.set()

    @property
    def failure(self) -> str | None:
        """Why the service stopped before it served, once the watcher knows."""
        return self._failure

    def wait_ready(self) -> Ready | None:
        """The service's ready line, or None if it stopped before (``on_failure`` has been
        told by then)."""
        self._watched.wait()
        return self._ready

    def wait(self) -> int:
        """Until the service ends (``--serve``); Ctrl-C reaches the demo, not the service."""
        return self._process.wait()

    def stop(self) -> None:
        """Close its standard input and let it finish the requests it holds."""
        if self._process.stdin is not None and not self._process.stdin.closed:
            with contextlib.suppress(BrokenPipeError):  # it has ended already
                self._process.stdin.close()
        try:
            self._process.wait(timeout=STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m pressroom.cli.demo_service")
    parser.add_argument("--fd", type=int, required=True, help="the listening socket")
    parser.add_argument("--ready-fd", type=int, required=True)
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    os.nice(NICENESS)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit)
    key = sys.stdin.buffer.readline().decode().strip()
    if not key:
        sys.exit("error: no API key on standard input (the demo gives one)")

    import uvicorn

    from pressroom.service.admin import DEMO_EMAIL, admin_session, seed_demo
    from pressroom.service.app import create_app
    from pressroom.service.auth.service import create_sign_in_link
    from pressroom.service.http_protocol import PROTOCOL
    from pressroom.service.ops.logs import configure_logging
    from pressroom.settings import get_settings

    configure_logging(args.log_level)
    settings = get_settings()
    with admin_session(settings) as db:
        seed_demo(db, key=key)
        link = f"{settings.public_base_url}/sign-in/link/{create_sign_in_link(db, DEMO_EMAIL)}"

    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings, migrate=False),  # admin_session has migrated it
            log_level=args.log_level,
            log_config=None,  # configure_logging's handler, under pressroom's log rule
            access_log=False,  # pressroom.access writes the route, never the query
            http=PROTOCOL,
        )
    )
    listener = socket.socket(fileno=args.fd)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [listener]}, name="pressroom-service", daemon=True
    )
    thread.start()
    try:
        _wait_started(server, thread)
        with os.fdopen(args.ready_fd, "w") as ready:
            ready.write(json.dumps(Ready(sign_in_link=link)) + "\n")
        sys.stdin.buffer.read()  # until the demo closes it
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _wait_started(server: object, thread: threading.Thread) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
    while not getattr(server, "started", False):
        if not thread.is_alive():
            sys.exit("error: the service could not start")
        if time.monotonic() > deadline:
            sys.exit("error: the service did not start in time")
        time.sleep(0.02)


def _exit(signum: int, frame: object) -> NoReturn:
    """SIGTERM stops the server as the end of standard input does."""
    sys.exit(0)


if __name__ == "__main__":
    main()
