"""The memory browser (`memcore ui`) end to end in a real browser: headless Chromium
(Debian's package) driven by Selenium (from PyPI) against the real `memcore` binary
(`MEMCORE_CLI`, set by scripts/test-ui) serving a store in a temporary directory.

It searches, edits a memory and finds the edit in the file (and a stale edit refused),
changes a keepit weight and sees the decay preview move, builds a composition and exports
it, walks the session and lifecycle pages, and checks the pages on a narrow window and from
the keyboard. A screenshot of each page goes to `MEMCORE_UI_ARTIFACTS` (default: a temporary
directory), with the first page's load time in `timings.json` there (BENCHMARKS.md).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

CLI = os.environ.get("MEMCORE_CLI", "")
ROOT = Path(__file__).resolve().parents[3]
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", shutil.which("chromedriver") or "/usr/bin/chromedriver")
ARTIFACTS = Path(os.environ.get("MEMCORE_UI_ARTIFACTS") or tempfile.mkdtemp(prefix="memcore-ui-"))

pytestmark = pytest.mark.skipif(not CLI, reason="MEMCORE_CLI names the memcore binary")

GPU = (
    "Prefer Metal on Apple silicon. ##keepit0.80## Always profile before tuning kernels. "
    "##keepit0.25## Maybe try CUDA later, see [[knowledge/cuda]]."
)


@dataclass
class Served:
    """A running `memcore ui` on a store, and where it answers."""

    url: str
    store: Path
    env: dict[str, str]

    def memcore(self, *args: str, stdin: str | None = None) -> str:
        """Runs `memcore --store STORE ARGS...` in the repository; its standard output."""
        done = subprocess.run(
            [CLI, "--store", str(self.store), *args], input=stdin, capture_output=True,
            text=True, env=self.env, cwd=ROOT, check=True, timeout=120,
        )
        return done.stdout


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A store with two memories, a session compressed once, served by `memcore ui` on a
    free port of 127.0.0.1."""
    home = tmp_path_factory.mktemp("ui")
    env = {**os.environ, "MEMCORE_HOME": str(home / "home")}
    served = Served("", home / "store", env)
    served.memcore("put", "-", "--id", "gpu", "--collection", "knowledge", "--title", "GPU choice",
                   "--tags", "gpu", stdin=GPU)
    served.memcore("put", "-", "--id", "cuda", "--collection", "knowledge", "--title", "CUDA notes",
                   stdin="CUDA needs the proprietary driver.")
    served.memcore("session", "add", "tests/parity/session.jsonl", "--id", "import-job")
    served.memcore("session", "compress", "import-job")
    with serving(served.store, env) as url:
        served.url = url
        yield served


@contextmanager
def serving(store: Path, env: dict[str, str]) -> Iterator[str]:
    """`memcore ui` on `store` on a free port of 127.0.0.1, stopped afterwards; its URL."""
    server = subprocess.Popen(
        [CLI, "--store", str(store), "ui", "--addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.search(r"http://[0-9.:]+/", line)
        assert found, f"no address in {line!r}"
        yield found.group(0).rstrip("/")
    finally:
        server.kill()
        server.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """Headless Chromium at a desktop size."""
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1280,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(browser: WebDriver, css: str, text: str | None = None) -> WebElement:
    """The element `css` selects, once it exists (and shows `text`), within ten seconds."""
    def found(driver: WebDriver) -> WebElement | bool:
        elements = driver.find_elements(By.CSS_SELECTOR, css)
        if elements and (text is None or text in elements[0].text):
            return elements[0]
        return False

    # A navigation can replace the page between finding an element and reading its text.
    wait = WebDriverWait(browser, 10, ignored_exceptions=(StaleElementReferenceException,))
    element = wait.until(found)
    assert isinstance(element, WebElement)
    return element


def shoot(browser: WebDriver, name: str) -> None:
    """Saves a screenshot of the whole page as ARTIFACTS/name.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    width = browser.get_window_size()["width"]
    browser.set_window_size(width, max(900, min(int(height) + 120, 4000)))
    assert browser.save_screenshot(str(ARTIFACTS / f"{name}.png"))
    browser.set_window_size(width, 900)


def test_first_page_loads_and_its_time_is_recorded(browser: WebDriver, served: Served) -> None:
    browser.get(served.url + "/")
    wait_for(browser, "#memories", "GPU choice")
    # The load event ends just after the page reports itself complete: wait for its time.
    timing = WebDriverWait(browser, 10).until(lambda d: d.execute_script(
        "const n = performance.getEntriesByType('navigation')[0];"
        "return n.loadEventEnd > 0 && {load_ms: n.loadEventEnd - n.startTime,"
        " dom_ms: n.domContentLoadedEventEnd - n.startTime, bytes: n.transferSize};"
    ))
    assert timing["load_ms"] > 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "timings.json").write_text(json.dumps({"first_page": timing}, indent=2))
    print(f"first page load: {timing}")
    shoot(browser, "memories")


def test_search_then_edit_a_memory_and_find_it_in_the_file(browser: WebDriver, served: Served) -> None:
    browser.get(served.url + "/")
    query = browser.find_element(By.ID, "q")
    query.send_keys("profile kernels")
    Select(browser.find_element(By.ID, "mode")).select_by_value("text")
    query.send_keys(Keys.ENTER)
    # The first page lists the memory too: wait for the results page before looking for it.
    WebDriverWait(browser, 10).until(lambda d: "q=profile" in d.current_url)
    hit = wait_for(browser, "#memories a", "GPU choice")
    shoot(browser, "search")
    hit.click()
    content = wait_for(browser, "#editor textarea")
    content.send_keys(Keys.END, " Edited in the browser.")
    browser.find_element(By.CSS_SELECTOR, "#editor button[type=submit]").click()
    wait_for(browser, "#save-status", "Saved as version 2")
    assert "Edited in the browser." in (served.store / "knowledge/gpu.md").read_text()
    shoot(browser, "memory")

    # Someone else saves first: this page's save is refused as stale, and nothing is lost.
    content = browser.find_element(By.CSS_SELECTOR, "#editor textarea")
    content.send_keys(" A second edit.")
    served.memcore("update", "knowledge/gpu", "--tags", "gpu,reviewed")
    browser.find_element(By.CSS_SELECTOR, "#editor button[type=submit]").click()
    status = wait_for(browser, "#save-status", "Not saved")
    assert "version" in status.text, status.text
    text = (served.store / "knowledge/gpu.md").read_text()
    assert "reviewed" in text and "A second edit." not in text
    kept = browser.find_element(By.CSS_SELECTOR, "#editor textarea").get_attribute("value") or ""
    assert kept.endswith(" A second edit."), "the refused edit is still in the editor"


def test_a_keepit_weight_moves_the_decay_preview(browser: WebDriver, served: Served) -> None:
    browser.get(served.url + "/memories/knowledge/gpu")
    survives = wait_for(browser, '#keepits [data-index="1"] .survives')
    assert survives.text == "0"
    browser.find_element(By.CSS_SELECTOR, '#keepits [data-index="1"] button[data-weight="1"]').click()
    wait_for(browser, "#keepit-status", "Weight set")
    assert wait_for(browser, '#keepits [data-index="1"] .survives').text == "10"
    row = browser.find_elements(By.CSS_SELECTOR, "#decay tbody tr")[1]
    assert len(row.find_elements(By.CSS_SELECTOR, "td.kept")) == 10
    assert "##keepit1.00## Maybe try CUDA" in (served.store / "knowledge/gpu.md").read_text()
    # A higher ratio summarises the 0.80 marker sooner: the preview follows the choice.
    Select(browser.find_element(By.ID, "ratio")).select_by_value("100")
    browser.find_element(By.CSS_SELECTOR, "form.ratio button").click()
    wait_for(browser, "#decay caption", "100")
    shoot(browser, "keepits")
    assert browser.find_element(By.ID, "keepits").screenshot(str(ARTIFACTS / "keepit-editor.png"))


def test_links_and_backlinks_are_shown(browser: WebDriver, served: Served) -> None:
    browser.get(served.url + "/memories/knowledge/cuda")
    backlink = wait_for(browser, "#links a", "knowledge/gpu")
    backlink.click()
    wait_for(browser, "#links a", "knowledge/cuda")


def test_build_a_composition_preview_and_export_it(browser: WebDriver, served: Served) -> None:
    browser.get(served.url + "/sessions")
    wait_for(browser, "main section h2")
    wait_for(browser, "main table a", "import-job")
    shoot(browser, "sessions")
    browser.get(served.url + "/sessions/import-job")
    wait_for(browser, "#versions", "v001")
    shoot(browser, "session")
    browser.find_element(By.LINK_TEXT, "v001").click()
    wait_for(browser, "#version-text", "Session import-job, v001")

    browser.get(served.url + "/compose")
    budget = wait_for(browser, "#budget")
    budget.clear()
    budget.send_keys("300")
    Select(browser.find_element(By.CSS_SELECTOR, ".component select")).select_by_value("original")
    wait_for(browser, "#budget-text", "97 / 300 tokens")
    name = browser.find_element(By.ID, "name")
    name.clear()
    name.send_keys("import-context")
    shoot(browser, "compose")
    browser.find_element(By.CSS_SELECTOR, "#composer button[type=submit]").click()
    composed = wait_for(browser, "#composed", "import")
    assert browser.current_url.endswith("/compositions/import-context")
    assert "97 / 300 tokens" in browser.find_element(By.ID, "budget-text").text
    shoot(browser, "composition")

    export = browser.find_element(By.LINK_TEXT, "Export").get_attribute("href")
    assert export is not None
    with urllib.request.urlopen(export) as reply:
        assert reply.headers["Content-Disposition"] == 'attachment; filename="import-context.md"'
        exported = reply.read().decode()
    assert composed.text.strip() and composed.text.strip() in exported

    # Composing again under the same name asks before replacing.
    browser.get(served.url + "/compose")
    name = wait_for(browser, "#name")
    name.clear()
    name.send_keys("import-context")
    browser.find_element(By.CSS_SELECTOR, "#composer button[type=submit]").click()
    WebDriverWait(browser, 10).until(expected_conditions.alert_is_present())
    assert "Replace the composition import-context" in browser.switch_to.alert.text
    browser.switch_to.alert.accept()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith("/compositions/import-context"))
    # The replacement is the builder's default: 8,000 tokens, the version chosen by score.
    wait_for(browser, "#budget-text", "/ 8000 tokens")

    wait_for(browser, "#delete-composition").click()
    WebDriverWait(browser, 10).until(expected_conditions.alert_is_present())
    browser.switch_to.alert.accept()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith("/sessions"))
    assert "import-context" not in served.memcore("session", "list")


def test_the_lifecycle_plan_of_a_dry_run(browser: WebDriver, served: Served) -> None:
    browser.get(served.url + "/lifecycle?days=400")
    wait_for(browser, "main p[role=status]", "nothing has changed")
    assert browser.find_elements(By.CSS_SELECTOR, "#plan tbody tr"), "a year on, memories age"
    shoot(browser, "lifecycle")
    assert "active" in (served.store / "knowledge/cuda.md").read_text()


def test_a_narrow_window_and_the_keyboard(browser: WebDriver, served: Served) -> None:
    browser.set_window_size(390, 844)
    try:
        for path in ("/", "/memories/knowledge/gpu", "/sessions", "/compose", "/lifecycle"):
            browser.get(served.url + path)
            wait_for(browser, "main h1")
            overflow = browser.execute_script(
                "return document.documentElement.scrollWidth - window.innerWidth"
            )
            assert overflow <= 0, f"{path} is {overflow}px wider than the window"
        shoot(browser, "narrow-lifecycle")
        browser.get(served.url + "/memories/knowledge/gpu")
        wait_for(browser, "main h1")
        shoot(browser, "narrow-memory")
        browser.get(served.url + "/")
        body = wait_for(browser, "body")
        body.send_keys(Keys.TAB)
        active = browser.switch_to.active_element
        assert active.text == "Skip to content"
        active.send_keys(Keys.ENTER)
        for _ in range(8):
            browser.switch_to.active_element.send_keys(Keys.TAB)
            if browser.switch_to.active_element.get_attribute("id") == "q":
                break
        assert browser.switch_to.active_element.get_attribute("id") == "q"
    finally:
        browser.set_window_size(1280, 900)


def test_a_browser_logs_in_to_a_server_with_a_token(browser: WebDriver, served: Served) -> None:
    env = {**served.env, "MEMCORE_SERVE_TOKEN": "correct horse battery staple"}
    with serving(served.store, env) as url:
        try:
            log_in(browser, url)
        finally:
            browser.delete_all_cookies()


def log_in(browser: WebDriver, url: str) -> None:
    """Logs in to the server at `url` (token `correct horse battery staple`) as a user would,
    checking the refusal of a wrong token and the cookie the right one sets."""
    browser.get(url + "/memories/knowledge/gpu")
    token = wait_for(browser, "#login input[type=password]")
    assert browser.current_url == url + "/login"
    # The page's own stylesheet loaded before logging in (the header is tinted).
    header = browser.find_element(By.TAG_NAME, "header")
    assert header.value_of_css_property("background-color") != "rgba(0, 0, 0, 0)"
    token.send_keys("wrong")
    token.send_keys(Keys.ENTER)
    wait_for(browser, "#login-status", "wrong token")
    token.clear()
    token.send_keys("correct horse battery staple", Keys.ENTER)
    wait_for(browser, "#memories", "GPU choice")
    assert "correct horse" not in browser.current_url
    cookie = browser.get_cookie("memcore_session")
    assert cookie is not None and cookie["httpOnly"] and "horse" not in cookie["value"]
