#!/usr/bin/env python3
"""How fast the memory browser's pages load, in headless Chromium, on a store of N corpus
passages (filled through the API as ``http_api.py`` does).

For each page (the first page, a text search, a memory with its links and decay preview, the
lifecycle plan) it loads the page ``--loads`` times in one browser and reports the median and
worst of the navigation timing (``loadEventEnd``: HTML, stylesheet and script fetched, parsed
and run), the first load separately (a cold browser cache). Beside it, the server's own time
for the HTML (one kept-alive client, no browser).

Needs Selenium (PyPI) and Debian's chromium and chromium-driver. Run (a release build; not
part of any test suite)::

    cargo build --release -p memcore-cli
    python3 benches/python/ui_load.py --binary target/release/memcore --n 10000
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

from http_api import Client, fill, questions, start


def browser() -> webdriver.Chrome:
    """Headless Chromium (Debian's) at a desktop size, as the browser test runs it."""
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1280,900"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))


def load_time(chrome: webdriver.Chrome, url: str) -> float:
    """Loads `url`; the navigation's `loadEventEnd` in ms, once the browser has set it."""
    chrome.get(url)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        took = chrome.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "return n && n.loadEventEnd > 0 ? n.loadEventEnd - n.startTime : 0;"
        )
        if took > 0:
            return float(took)
        time.sleep(0.005)
    raise TimeoutError(f"{url} did not finish loading")


def main() -> None:
    """Fills a store, then loads each page `--loads` times and prints the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="target/release/memcore")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--loads", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server, addr = start(args.binary, tmp, text_only=True)
        try:
            client = Client(addr)
            fill(client, args.n)
            query = urllib.parse.quote_plus(questions()[0])
            pages = {
                f"first page (50 of {args.n} memories)": "/",
                "text search": f"/?q={query}&mode=text",
                "a memory (links, decay preview)": "/memories/c7/p000007",
                "lifecycle plan (dry run)": "/lifecycle",
            }
            chrome = browser()
            try:
                for name, path in pages.items():
                    loads = []
                    for _ in range(args.loads):
                        loads.append(load_time(chrome, f"http://{addr}{path}"))
                    served = []
                    for _ in range(args.loads):
                        status, body, took = client.call("GET", path)
                        assert status == 200, body[:300]
                        served.append(took * 1000)
                    print(f"{name:<34} browser: first {loads[0]:6.1f} ms, median {statistics.median(loads):6.1f}"
                          f" ms, worst {max(loads):6.1f} ms; server HTML median {statistics.median(served):6.1f} ms"
                          f" ({len(body) // 1024} KiB)")
            finally:
                chrome.quit()
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
