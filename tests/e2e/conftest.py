"""A real `stich serve` (private Redis, worker, gunicorn) shared by the e2e tests, and one headless
Chromium shared by the browser tests of /play (test_play_*_browser.py)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from stich.redis_server import free_port
from tests.prerequisites import skip_unless_required


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    # Quick play's bots fill a table after 2 s here, not 20: test_play_players_browser.py waits for
    # them. A test that joins a pool and wants no bots says so in its join ("bots": false).
    env.setdefault("STICH_POOL_WAIT", "2")
    data_dir = tmp_path_factory.mktemp("stich-data")
    process = subprocess.Popen([sys.executable, "-m", "stich.cli", "serve", "--port", str(port),
                                "--data-dir", str(data_dir)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started = time.monotonic()
    url = None
    for line in process.stdout:
        if "serving on" in line:
            url = f"http://127.0.0.1:{port}"
            break
        if time.monotonic() - started > 60:
            break
    assert url, "stich serve did not start"
    yield {"url": url, "startup_s": time.monotonic() - started, "data_dir": data_dir}
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()




# Debian's packages (the README's install line); elsewhere whatever the PATH or these variables name.
CHROMIUM = os.environ.get("STICH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("STICH_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"


def _missing() -> str | None:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    return ", ".join(missing) or None


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """Headless Chromium through chromedriver; without them the tests skip, saying why, unless
    STICH_REQUIRE_BROWSER=1 (CI) makes that a failure. Each test leaves the emulated width and
    media as it found them."""
    missing = _missing()
    if missing:
        skip_unless_required("STICH_REQUIRE_BROWSER", f"no browser for the /play tests: {missing} missing",
                             "apt-get install chromium chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # Without the background-networking switches Chromium waits on services a closed network never answers.
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--window-size=1280,1100",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def width(browser, request):
    """The page at a desktop's width, or a phone's (emulated as Chromium's device mode does): a
    browser test parametrizes it indirectly, None for the desktop."""
    px = request.param
    if px:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": px, "height": 780, "deviceScaleFactor": 1, "mobile": True})
    yield px
    if px:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
