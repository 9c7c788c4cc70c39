"""Take the picture of a campaign run in the Prefect UI for the README and the docs.

Runs the demo on a fresh data dir, starts a Prefect server on its Prefect home, opens
the demo's flow run in Debian's Chromium through Playwright and writes
``docs/screenshots/prefect-run.png`` (reduced to 256 colours to stay small). The
dashboard's screenshots come from the browser tests (``PRESSROOM_SCREENSHOTS``);
``bash scripts/docs generate`` runs both. Each records, beside the pictures, a digest of
the files it shows (``pressroom.docs.screenshots``), so a test names a picture older than
them.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from PIL import Image
from playwright.sync_api import sync_playwright

from pressroom.docs import screenshots

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
OUT = ROOT / "docs" / "screenshots" / "prefect-run.png"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    chromium = os.environ.get("PRESSROOM_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        sys.exit("the Prefect screenshot needs Chromium: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
        env |= {
            "PREFECT_HOME": str(data / "prefect"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "PRESSROOM_PIPELINE_STATE_DIR": str(Path(tmp) / "state"),
            "PRESSROOM_PIPELINE_RESULTS_DIR": str(Path(tmp) / "results"),
        }
        subprocess.run(
            [str(BIN / "pressroom"), "demo", "--data-dir", str(data), "--port", str(free_port())],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port = free_port()
        env["PREFECT_UI_API_URL"] = f"http://127.0.0.1:{port}/api"  # the UI calls 4200 otherwise
        server = subprocess.Popen(
            [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        api = f"http://127.0.0.1:{port}/api"
        try:
            deadline = time.monotonic() + 90
            while True:
                try:
                    if httpx.get(f"{api}/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    sys.exit("the Prefect server did not start within 90 s")
                time.sleep(0.5)
            runs = httpx.post(
                f"{api}/flow_runs/filter", json={"limit": 1, "sort": "START_TIME_DESC"}, timeout=10
            ).json()
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium)
                page = browser.new_page(viewport={"width": 1280, "height": 760})
                page.goto(f"http://127.0.0.1:{port}/runs/flow-run/{runs[0]['id']}")
                page.wait_for_load_state("networkidle")
                time.sleep(3)  # the timeline draws after the data arrives
                shot = page.screenshot()
                browser.close()
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    image = Image.open(io.BytesIO(shot)).convert("RGB").quantize(colors=256)
    image.save(OUT, optimize=True)
    screenshots.record(OUT.stem, OUT.parent, ROOT)  # what it shows, for the staleness test
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
