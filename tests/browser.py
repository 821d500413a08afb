"""Headless Chromium for the tests. The set-up installs it (`make browser`, run by `make test`: Debian's
chromium and chromium-driver, as root); a test never installs anything.

`require_chromium()` returns the paths of the browser and its driver, or ends the test: a failure
when CI=true (the browser check must not vanish silently in CI), a skip with the reason otherwise."""

from __future__ import annotations

import importlib.util
import os
import shutil

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _found() -> tuple[str | None, str | None]:
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    return browser, shutil.which("chromedriver")


def _give_up(reason: str):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and the browser test cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def require_chromium() -> tuple[str, str]:
    if importlib.util.find_spec("selenium") is None:
        _give_up("selenium is not installed (pip install -e '.[test]')")
    browser, driver = _found()
    if not (browser and driver):
        _give_up("chromium/chromedriver not on PATH: `make browser` installs Debian's chromium and chromium-driver (as root)")
    return browser, driver


def start_driver(browser: str, driver: str, width: int = 1400, height: int = 1000):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)
