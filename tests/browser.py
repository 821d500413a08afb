"""Headless Chromium for the tests: installs Debian's chromium and chromium-driver when missing (as root).

`require_chromium()` returns the paths of the browser and its driver, or ends the test: a failure
when CI=true (the browser check must not vanish silently in CI), a skip with the reason otherwise."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import time

import pytest

PACKAGES = ("chromium", "chromium-driver")
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _found() -> tuple[str | None, str | None]:
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    return browser, shutil.which("chromedriver")


def _give_up(reason: str):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and the browser test cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def _apt_install() -> str:
    """apt-get install (after apt-get update when the first try fails); returns what went wrong, or ''."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", *PACKAGES]
    started = time.monotonic()
    done = subprocess.run(install, capture_output=True, text=True, env=env, timeout=1200)
    if done.returncode != 0:
        subprocess.run(["apt-get", "update"], capture_output=True, text=True, env=env, timeout=600)
        done = subprocess.run(install, capture_output=True, text=True, env=env, timeout=1200)
    print(f"apt-get install {' '.join(PACKAGES)}: exit {done.returncode} after {time.monotonic() - started:.0f} s")
    if done.returncode != 0:
        return f"`{' '.join(install)}` failed: {(done.stderr or done.stdout).strip()[-400:]}"
    return ""


def require_chromium() -> tuple[str, str]:
    if importlib.util.find_spec("selenium") is None:
        _give_up("selenium is not installed (pip install -e '.[test]')")
    browser, driver = _found()
    if browser and driver:
        return browser, driver
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        _give_up(f"chromium/chromedriver not on PATH and not root: install the Debian packages {' '.join(PACKAGES)}")
    if shutil.which("apt-get") is None:
        _give_up("chromium/chromedriver not on PATH and no apt-get to install them")
    problem = _apt_install()
    browser, driver = _found()
    if not (browser and driver):
        _give_up(problem or "chromium/chromedriver still not on PATH after apt-get install")
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
