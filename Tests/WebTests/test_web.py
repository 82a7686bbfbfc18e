"""The web client in a real browser (headless Chromium through Debian's chromedriver): sign-in,
the grid at each layout environment's window size, endless scroll, crates (made, renamed,
reordered, emptied, deleted), search, a copy's fields, the artist page and the mini-player; then
sign-out and the back-forward cache, ‹ Back links, the keyboard, and failures (a page that does not
load, a play refused). One browser and one daemon serve every test. Run by Tests/WebTests/run.sh."""

from __future__ import annotations

import os
import sys
import time
import unittest
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, TimeoutException  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

ALBUMS = 2000
ARTEFACTS = Path(os.environ.get("CRATED_TEST_ARTEFACTS", harness.ROOT / ".build/artefacts/web"))
SIZES = [  # (width, height, environment crated resolves with derived size classes)
    (390, 844, "iPhonePortrait"),
    (844, 390, "iPhoneLandscape"),
    (507, 1024, "iPadSplitView"),
    (320, 1024, "iPhonePortrait"),
    (1366, 1024, "iPadFullscreen"),
]

server: harness.Server
driver = None
image_host: harness.ImageHost
COVER_RGB = (200, 40, 120)


def setUpModule():
    global server, driver, image_host
    crated = Path(os.environ.get("CRATED_BINARY", harness.ROOT / ".build/debug/crated"))
    server = harness.Server(crated, ALBUMS)
    server.start()
    status, page, _ = server.call("GET", "/v1/grid/collection?limit=3&sort=title")
    server.played_album = page["items"][0]["albumId"]
    # An album of two-second tracks, so that a play counts (half a track heard) within the test.
    server.short_album = page["items"][1]["albumId"]
    # And one of eight-second tracks, whose play counts well before the turntable moves on.
    server.eight_second_album = page["items"][2]["albumId"]
    # The daemon reads tracks from the database: add them with the daemon stopped, then start again.
    server.process.terminate()
    server.process.wait(10)
    server.add_tracks(server.played_album, {"A": [("Opening", 200_000), ("Second", 180_000, "A Guest")], "B": [("Flip side", 240_000)]})
    server.add_credits(server.played_album, [("Producer", "A Producer", 9001, None, None), ("Design", "A Designer", None, "A1, B1", None),
                                             ("Remix", "A Remixer", None, None, "B1")])
    image_host = harness.ImageHost(harness.solid_png(300, 300, COVER_RGB))
    server.add_cover(server.played_album, image_host.url, 300, 300)
    server.add_tracks(server.short_album, {"A": [("Short", 2_000), ("Shorter", 2_000)]})
    server.add_tracks(server.eight_second_album, {"A": [("Eight", 8_000), ("Eight more", 8_000)]})
    server.add_cover(server.short_album, image_host.url, 300, 300)
    server.start()
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    driver = harness.chromium(server.work)
    driver.set_script_timeout(30)


def tearDownModule():
    if driver:
        driver.quit()
    server.stop()
    image_host.stop()


def wait(condition, timeout=15, message=""):
    """Polls `condition` until it is truthy; `message` may be a function, for the state at the timeout."""
    try:
        # The page redraws what it shows (an album page after a change, the grid as it loads): an
        # element found a moment ago may be gone by the time it is read, and is looked up again.
        return WebDriverWait(driver, timeout, poll_frequency=0.05, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda _: condition())
    except TimeoutException:
        raise AssertionError(message() if callable(message) else message) from None


def js(script, *arguments):
    return driver.execute_script(script, *arguments)


def fetch(path, method="GET", body=None, csrf=None):
    """An API call from the page itself, with its cookie: [status, JSON]."""
    return driver.execute_async_script("""
        const [path, method, body, csrf, done] = arguments;
        const headers = {'Content-Type': 'application/json'};
        if (csrf) headers['X-CSRF-Token'] = csrf;
        fetch(path, {method, headers, body: body === null ? undefined : JSON.stringify(body)})
          .then(async (r) => done([r.status, await r.json().catch(() => null)]), (e) => done([0, String(e)]));
    """, path, method, body, csrf)


def sign_in(password=harness.PASSWORD):
    driver.get(server.base + "/")
    wait(lambda: driver.find_element(By.ID, "sign-in").is_displayed() or driver.find_element(By.ID, "bar").is_displayed())
    if driver.find_element(By.ID, "bar").is_displayed():
        return
    name = driver.find_element(By.ID, "sign-in-name")
    name.clear()
    name.send_keys(harness.USER)
    field = driver.find_element(By.ID, "sign-in-password")
    field.clear()
    field.send_keys(password)
    field.submit()


def signed_in():
    sign_in()
    wait(lambda: driver.find_element(By.ID, "bar").is_displayed(), message="signed in")


def page_state():
    """What the page shows and logged, for a failure message."""
    return f"{js('return document.getElementById(`main`).outerHTML')[:1500]!r} {driver.get_log('browser')}"


def loaded_image(selector, message):
    """Waits for the image at `selector` to load; its source and its natural and drawn widths. On a
    timeout, says what the element held and which covers the daemon served."""
    def state():
        element = js(f"""const i = document.querySelector("{selector}");
            return i ? {{src: i.src, complete: i.complete, natural: i.naturalWidth}} : null;""")
        served = [line for line in (server.work / "serve.log").read_text().splitlines() if "/v1/artwork/" in line]
        return f"{message() if callable(message) else message}; the element: {element}; covers served: {served[-10:]}"
    wait(lambda: js(f"const i = document.querySelector(\"{selector}\"); return !!i && i.complete && i.naturalWidth > 0"),
         timeout=45, message=state)
    return js(f"""const i = document.querySelector("{selector}");
        return {{src: i.src, natural: i.naturalWidth, shown: i.getBoundingClientRect().width}};""")


def grid_ready():
    wait(lambda: js("return document.querySelectorAll('ol.grid > li').length") > 0, message="grid drawn")


def open_first_album():
    """Opens the grid's first album and returns its title. Found and clicked as one step, tried
    again if the grid is drawn anew in between (as its layout settles after the first page)."""
    def click():
        item = driver.find_element(By.CSS_SELECTOR, "ol.grid > li")
        title = item.get_attribute("aria-label")
        item.find_element(By.TAG_NAME, "a").click()
        return title
    return wait(click, message="the first album opened")


def grid_state():
    return js("""
        const list = document.querySelector('ol.grid');
        if (!list) return {count: 0, total: 0};
        const items = [...list.children];
        // Asked while a page loads, the grid may have no item yet: a count of 0, not a script error.
        const top = items.length ? items[0].getBoundingClientRect().top : 0;
        return {
          columns: Number(list.dataset.columns), environment: list.dataset.environment,
          width: Number(list.dataset.width), height: Number(list.dataset.height),
          drawnColumns: items.filter((item) => Math.abs(item.getBoundingClientRect().top - top) < 1).length,
          count: items.length, total: Number(list.dataset.total),
          scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
          listRight: list.getBoundingClientRect().right, lastRight: Math.max(...items.map((i) => i.getBoundingClientRect().right)),
        };
    """)


def page_width():
    """The width the grid draws in: the window's, less the scrollbar's reserved gutter."""
    return js("return document.documentElement.clientWidth")


def first_row_albums():
    """The albums of the first row below the bar: a re-resolved grid may put the top album in
    another column, but it must stay in the top row."""
    return js("""
        const bar = document.getElementById('bar').getBoundingClientRect().bottom;
        const items = [...document.querySelectorAll('ol.grid > li')];
        const first = items.find((li) => li.getBoundingClientRect().bottom > bar + 1);
        if (!first) return [];
        const top = first.getBoundingClientRect().top;
        return items.filter((li) => Math.abs(li.getBoundingClientRect().top - top) < 1).map((li) => Number(li.dataset.albumId));
    """)


def top_album():
    return js("""
        const bar = document.getElementById('bar').getBoundingClientRect().bottom;
        const item = [...document.querySelectorAll('ol.grid > li')].find((li) => li.getBoundingClientRect().bottom > bar + 1);
        return item ? Number(item.dataset.albumId) : null;
    """)


def fresh_grid_with_jump_bar(path="/collection?sort=title"):
    """Opens the grid at `path` from its start (no place remembered from an earlier visit, which
    the history page, having no grid, cannot note again) and waits for its jump bar."""
    driver.get(server.base + "/history")
    js("sessionStorage.clear()")
    driver.get(server.base + path)
    grid_ready()
    wait(lambda: js("return !document.querySelector('nav.jump').hidden"), message="the jump bar")


def scrolled_grid(path):
    """Opens the grid at `path` afresh (no place remembered), scrolls it well down, and returns the
    album then at its top."""
    js("sessionStorage.clear()")
    driver.get(server.base + path)
    grid_ready()
    wait(lambda: grid_state()["width"] == page_width(), message="laid out for the window")
    js("window.scrollTo(0, 2500)")
    time.sleep(0.3)
    return top_album()


class T1SignIn(unittest.TestCase):
    def test_sign_in_wrong_password_csrf_and_sign_out(self):
        driver.delete_all_cookies()
        harness.set_viewport(driver, 1366, 1024)
        sign_in("not the password")
        wait(lambda: "Wrong" in driver.find_element(By.ID, "sign-in-error").text, message="wrong password shown")
        # The same failure again is a new alert, which a screen reader announces again.
        first_alert = driver.find_element(By.ID, "sign-in-error")
        field = driver.find_element(By.ID, "sign-in-password")
        field.clear()
        field.send_keys("still not the password")
        field.submit()
        wait(lambda: "Wrong" in driver.find_element(By.ID, "sign-in-error").text and first_alert != driver.find_element(By.ID, "sign-in-error"),
             message="the second failure is a new alert")
        self.assertEqual(driver.find_element(By.ID, "sign-in-error").get_attribute("role"), "alert")
        # Sent from its button, which is disabled while it waits: the keyboard comes back to the password.
        second_alert = driver.find_element(By.ID, "sign-in-error")
        field.clear()
        field.send_keys("not it either")
        driver.find_element(By.CSS_SELECTOR, "#sign-in button").click()
        wait(lambda: second_alert != driver.find_element(By.ID, "sign-in-error"), message="the third failure")
        wait(lambda: js("return document.activeElement.id") == "sign-in-password", message=lambda: f"focus: {js('return document.activeElement.outerHTML')}")
        self.assertFalse(driver.find_element(By.ID, "bar").is_displayed())
        self.assertEqual(driver.get_cookies(), [])

        signed_in()
        grid_ready()
        cookie = next(c for c in driver.get_cookies() if c["name"] == "crated_session")
        self.assertTrue(cookie["httpOnly"])
        self.assertEqual(cookie["sameSite"], "Strict")
        self.assertIsNone(js("return document.cookie.match(/crated_session/)"), "the page's script cannot read the cookie")

        # A write with the cookie but without the CSRF token is refused, from the page and from outside.
        status, body = fetch("/v1/crates", "POST", {"name": "no token"})
        self.assertEqual((status, body["error"]["code"]), (403, "csrf_failed"))
        status, _, _ = server.call("POST", "/v1/crates", {"name": "no token"}, token=None,
                                   headers={"Cookie": f"crated_session={cookie['value']}"})
        self.assertEqual(status, 403)
        _, session = fetch("/v1/session")
        status, _ = fetch("/v1/crates", "POST", {"name": "With the token"}, csrf=session["csrfToken"])
        self.assertEqual(status, 201)

        driver.find_element(By.ID, "sign-out").click()
        wait(lambda: driver.find_element(By.ID, "sign-in").is_displayed(), message="signed out")
        self.assertEqual([c for c in driver.get_cookies() if c["name"] == "crated_session"], [])
        # The old cookie opens nothing any more.
        status, _, _ = server.call("GET", "/v1/me", token=None, headers={"Cookie": f"crated_session={cookie['value']}"})
        self.assertEqual(status, 401)


class T0Layout(unittest.TestCase):
    def test_window_sizes_draw_the_columns_crated_resolves(self):
        signed_in()
        for width, height, environment in SIZES:
            with self.subTest(size=f"{width}x{height}"):
                harness.set_viewport(driver, width, height)
                driver.get(server.base + "/collection")
                grid_ready()
                wait(lambda: grid_state()["width"] == page_width(), message=lambda: f"laid out for {width}: {grid_state()} in {page_width()}")
                state = grid_state()
                self.assertLess(state["width"], width, "the scrollbar's gutter is not the grid's")
                status, layout, _ = server.call("GET", f"/v1/layout?width={state['width']}&height={state['height']}")
                self.assertEqual(status, 200)
                self.assertEqual(layout["environment"], environment)
                self.assertEqual(state["environment"], environment)
                self.assertEqual(state["columns"], layout["columns"])
                self.assertEqual(state["drawnColumns"], layout["columns"], "columns drawn")
                self.assertLessEqual(state["scrollWidth"], state["clientWidth"], "no horizontal overflow")
                self.assertLessEqual(state["lastRight"], state["clientWidth"] + 0.5)
                self.assertTrue(state["count"] % layout["columns"] == 0 or state["count"] == state["total"], "whole rows")
                # The padding and spacing crated resolved are the ones drawn.
                drawn = js("""const s = getComputedStyle(document.querySelector('ol.grid'));
                              return [parseFloat(s.paddingLeft), parseFloat(s.columnGap)];""")
                self.assertEqual(drawn, [layout["padding"], layout["spacing"]])
                # And so is the cell's width: covers come at the pixels drawn.
                cell = js("return document.querySelector('ol.grid > li').getBoundingClientRect().width")
                self.assertAlmostEqual(cell, layout["itemWidth"], delta=0.5)
                driver.save_screenshot(str(ARTEFACTS / f"collection-{width}x{height}.png"))

    def test_every_tab_is_in_view_at_phone_widths(self):
        signed_in()
        # Under 560 px the tabs take a row of their own below the brand and Sign out; before, they
        # scrolled sideways in the bar, Search and History out of view.
        for width in (320, 390, 560):
            with self.subTest(width=width):
                harness.set_viewport(driver, width, 700)
                driver.get(server.base + "/collection")
                grid_ready()
                state = """const nav = document.querySelector('.bar nav'), bar = document.getElementById('bar');
                           const right = document.documentElement.clientWidth;
                           const hidden = [...nav.querySelectorAll('a'), document.getElementById('sign-out')].filter((element) => {
                               const rect = element.getBoundingClientRect();
                               return rect.left < -0.5 || rect.right > right + 0.5 || rect.bottom > bar.getBoundingClientRect().bottom + 0.5; });
                           return { scrolls: nav.scrollWidth > nav.clientWidth, hidden: hidden.map((element) => element.textContent),
                                    barBottom: bar.getBoundingClientRect().bottom,
                                    jumpTop: document.querySelector('nav.jump').getBoundingClientRect().top };"""
                wait(lambda: not js(state)["scrolls"], message=lambda: f"{width} px: {js(state)}")
                drawn = js(state)
                self.assertEqual(drawn["hidden"], [], f"{width} px: every tab and Sign out within the bar and the window")
                self.assertGreaterEqual(drawn["jumpTop"], drawn["barBottom"], "the jump bar starts below the bar")
                driver.save_screenshot(str(ARTEFACTS / f"tabs-{width}.png"))

    def test_the_jump_bar_keeps_to_the_grids_margin(self):
        signed_in()
        # The letters sit in the padding crated resolved, beside the covers rather than over them.
        for width, height in ((320, 700), (390, 844), (844, 390), (1366, 1024)):
            with self.subTest(width=width):
                harness.set_viewport(driver, width, height)
                driver.get(server.base + "/collection")
                grid_ready()
                wait(lambda: grid_state()["width"] == page_width(), message=lambda: f"laid out for {width}: {grid_state()} in {page_width()}")
                wait(lambda: js("return !document.querySelector('nav.jump').hidden"), message="the jump bar")
                edges = """const covers = [...document.querySelectorAll('ol.grid > li')].map((li) => li.getBoundingClientRect().right);
                           const letters = [...document.querySelectorAll('nav.jump button')].map((button) => button.getBoundingClientRect());
                           return { coversRight: Math.max(...covers), lettersLeft: Math.min(...letters.map((rect) => rect.left)),
                                    lettersRight: Math.max(...letters.map((rect) => rect.right)),
                                    windowRight: document.documentElement.clientWidth };"""
                drawn = js(edges)
                self.assertGreaterEqual(drawn["lettersLeft"], drawn["coversRight"] - 0.5, f"{width} px: {drawn}")
                self.assertLessEqual(drawn["lettersRight"], drawn["windowRight"] + 0.5, f"{width} px: {drawn}")

    def test_the_jump_bar_stops_above_the_mini_player(self):
        signed_in()
        # A phone held sideways: the letters need all the height there is, and the player takes some.
        harness.set_viewport(driver, 844, 390)
        self.assertEqual(server.call("POST", "/v1/player/play", {"albumId": server.played_album})[0], 200)
        try:
            driver.get(server.base + "/collection")
            grid_ready()
            player = driver.find_element(By.ID, "player")
            wait(lambda: player.is_displayed(), message="the mini-player")
            wait(lambda: js("return !document.querySelector('nav.jump').hidden"), message="the jump bar")
            measure = """const buttons = [...document.querySelectorAll('nav.jump button')];
                         const letters = buttons.map((button) => button.getBoundingClientRect());
                         return { shown: buttons.map((button) => button.textContent).join(''),
                                  fontSize: Math.min(...buttons.map((button) => parseFloat(getComputedStyle(button).fontSize))),
                                  lettersBottom: Math.max(...letters.map((rect) => rect.bottom)),
                                  jumpBottom: document.querySelector('nav.jump').getBoundingClientRect().bottom,
                                  playerTop: document.getElementById('player').getBoundingClientRect().top };"""
            wait(lambda: js(measure)["lettersBottom"] <= js(measure)["playerTop"], message=lambda: f"letters above the player: {js(measure)}")
            drawn = js(measure)
            self.assertLessEqual(drawn["jumpBottom"], drawn["playerTop"], f"{drawn}")
            # Too little room for all 27: every second letter, still readable, rather than a scrolling bar.
            self.assertGreaterEqual(drawn["fontSize"], 10, f"{drawn}")
            self.assertTrue(drawn["shown"].startswith("ACEG"), f"{drawn}")
            driver.save_screenshot(str(ARTEFACTS / "jump-bar-above-player-844x390.png"))
        finally:
            server.call("POST", "/v1/player/stop")

    def test_resize_keeps_the_top_album_and_reload_restores_it(self):
        harness.set_viewport(driver, 1366, 1024)
        driver.get("about:blank")
        signed_in()
        js("sessionStorage.clear()")
        driver.get(server.base + "/collection")
        grid_ready()
        wait(lambda: grid_state()["width"] == page_width(), message="laid out for the window")
        js("window.scrollTo(0, 2500)")
        time.sleep(0.3)
        before = top_album()
        self.assertIsNotNone(before)
        harness.set_viewport(driver, 390, 844)
        wait(lambda: grid_state()["width"] == page_width() and grid_state()["environment"] == "iPhonePortrait",
             message=lambda: f"re-resolved: {grid_state()} {driver.get_log('browser')}")
        where = """const li = document.querySelector(`ol.grid > li[data-album-id='${arguments[0]}']`);
                   return li && [li.dataset.position, li.getBoundingClientRect().top, document.getElementById('bar').getBoundingClientRect().bottom,
                                 scrollY, document.querySelector('ol.grid > li').dataset.position, document.documentElement.scrollHeight];"""
        wait(lambda: before in first_row_albums(), message=lambda: f"the top album stays on top: {before} {first_row_albums()} {js(where, before)}")
        state = grid_state()
        self.assertEqual(state["drawnColumns"], state["columns"])
        driver.save_screenshot(str(ARTEFACTS / "resize-1366-to-390.png"))
        driver.refresh()
        grid_ready()
        wait(lambda: before in first_row_albums(), message=lambda: f"reload restores the position: {before} {first_row_albums()}")


class T3Scroll(unittest.TestCase):
    def test_scrolling_to_the_end_reaches_every_album_once_in_order(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        js("sessionStorage.clear()")
        driver.get(server.base + "/collection?sort=title")
        grid_ready()
        deadline = time.time() + 120
        while time.time() < deadline:
            state = grid_state()
            if state["count"] >= state["total"]:
                break
            js("window.scrollTo(0, document.documentElement.scrollHeight)")
            time.sleep(0.05)
        ids = js("return [...document.querySelectorAll('ol.grid > li')].map((li) => Number(li.dataset.albumId))")
        positions = js("return [...document.querySelectorAll('ol.grid > li')].map((li) => Number(li.dataset.position))")
        self.assertEqual(len(ids), ALBUMS)
        self.assertEqual(len(set(ids)), ALBUMS, "every album once")
        self.assertEqual(positions, list(range(ALBUMS)))
        expected, cursor = [], None
        while True:
            _, page, _ = server.call("GET", "/v1/grid/collection?sort=title&limit=500" + (f"&cursor={cursor}" if cursor else ""))
            expected += [item["albumId"] for item in page["items"]]
            cursor = page.get("next")
            if not cursor:
                break
        self.assertEqual(ids, expected, "in the collection's order")

    def test_the_jump_bar_starts_at_a_letter(self):
        signed_in()
        harness.set_viewport(driver, 844, 390)
        # From a page without a grid, so no grid's listeners note a position after the clearing.
        driver.get(server.base + "/history")
        js("sessionStorage.clear()")
        driver.get(server.base + "/collection?sort=title")
        grid_ready()
        wait(lambda: grid_state()["width"] == page_width(), message="laid out for the window")
        _, page, _ = server.call("GET", "/v1/grid/collection?sort=title&sections=true&width=844&height=390")
        section = next(s for s in page["sections"] if s["letter"] == "M")
        # Every letter shows in a window this short, the first one too.
        letters = """const bar = document.querySelector('nav.jump');
                     const box = bar.getBoundingClientRect();
                     const outside = [...bar.querySelectorAll('button')].filter((button) => {
                         const rect = button.getBoundingClientRect();
                         return rect.top < box.top - 0.5 || rect.bottom > box.bottom + 0.5; });
                     return [bar.hidden, bar.querySelectorAll('button').length, outside.map((button) => button.textContent)];"""
        wait(lambda: js(letters)[1] == len(page["sections"]), message=lambda: f"the jump bar: {js(letters)}")
        self.assertEqual(js(letters), [False, len(page["sections"]), []], "every letter within the bar")
        def jump():
            # Clicked by script: the bar is fixed beside the grid, nothing to scroll into view.
            js("document.querySelector(`nav.jump button[aria-label='Jump to M']`).click()")
        jump()
        # The first M album is in the first row below the bar.
        first_row = """
            const bar = document.getElementById('bar').getBoundingClientRect().bottom;
            const item = document.querySelector(`ol.grid > li[data-position='${arguments[0]}']`);
            if (!item) return null;
            const rect = item.getBoundingClientRect();
            return [rect.top >= bar - 1 && rect.top < bar + rect.height, item.getAttribute('aria-label'), rect.top, bar, rect.height, window.scrollY];
        """
        wait(lambda: (js(first_row, section["position"]) or [False])[0],
             message=lambda: f"jumped to M: {js(first_row, section['position'])} {section} "
                             f"{js('return [...document.querySelectorAll(`ol.grid > li`)].slice(0, 3).map((li) => li.dataset.position)')} "
                             f"{driver.get_log('browser')}")
        self.assertTrue(js(first_row, section["position"])[1].startswith("M"))
        # Scrolling up from there reaches the start again: previous pages come before.
        def at_start():
            js("window.scrollTo(0, 0)")
            return js("return document.querySelector('ol.grid > li').dataset.position") == "0"
        wait(at_start, timeout=60, message=lambda: "previous pages: first is " + js("return document.querySelector('ol.grid > li').dataset.position"))

    def test_a_grid_by_year_jumps_by_decade_and_one_by_rating_by_stars(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        for sort, expected, label, aria in [
            ("year", ["50s", "60s", "70s", "80s", "90s", "00s", "10s"], "70s", "Jump to the 1970s"),
            ("rating", ["5★", "4★", "3★", "2★", "1★", "?"], "3★", "Jump to 3 stars"),
        ]:
            driver.get(server.base + f"/collection?sort={sort}")
            grid_ready()
            _, page, _ = server.call("GET", f"/v1/grid/collection?sort={sort}&sections=true&width=1366&height=1024")
            buttons = "return [...document.querySelectorAll('nav.jump button')].map((b) => [b.textContent, b.getAttribute('aria-label')])"
            wait(lambda: [text for text, _ in js(buttons)] == expected, message=lambda: f"the jump bar by {sort}: {js(buttons)}")
            self.assertIn([label, aria], js(buttons))
            section = page["sections"][expected.index(label)]
            js("[...document.querySelectorAll('nav.jump button')].find((b) => b.textContent === arguments[0]).click()", label)
            wait(lambda: js("return document.querySelector(`ol.grid > li[data-position='${arguments[0]}']`) !== null", section["position"])
                 and js("return document.querySelector(`ol.grid > li[data-position='${arguments[0]}']`).getBoundingClientRect().top",
                        section["position"]) < 400,
                 message=f"jumped to {label} at {section}")


class T4Flows(unittest.TestCase):
    def test_search_open_album_add_to_new_crate_and_see_it_there(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/search")
        field = wait(lambda: driver.find_element(By.CSS_SELECTOR, "input[type=search]"))
        field.send_keys("01234")
        wait(lambda: js("return document.querySelectorAll('ol.grid > li').length") == 1, message="results as typed")
        self.assertIn("q=01234", driver.current_url)
        title = open_first_album()
        self.assertEqual(title[1:], "ecord 01234")
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title, message="album page")
        self.assertIn("/search/albums/", driver.current_url)
        choice = driver.find_element(By.CSS_SELECTOR, "form.add-to-crate select")
        choice.find_element(By.CSS_SELECTOR, "option[value=new]").click()
        name = driver.find_element(By.CSS_SELECTOR, "form.add-to-crate input[name=newCrate]")
        name.send_keys("Found by search")
        driver.find_element(By.CSS_SELECTOR, "form.add-to-crate button[type=submit]").click()
        wait(lambda: "Found by search" in driver.find_element(By.CSS_SELECTOR, "p.in-crates").text, message="added")
        # Back goes back to the results, in the same tab.
        driver.back()
        wait(lambda: "/search" in driver.current_url and js("return document.querySelectorAll('ol.grid > li').length") == 1)

        driver.find_element(By.CSS_SELECTOR, "#tabs a[data-tab=crates]").click()
        link = wait(lambda: next((a for a in driver.find_elements(By.CSS_SELECTOR, "ul.rows a") if "Found by search" in a.text), None))
        link.click()
        labels = lambda: [li.get_attribute("aria-label") for li in driver.find_elements(By.CSS_SELECTOR, "ol.grid > li")]
        wait(lambda: labels() == [title], message=lambda: f"the album is in the crate: {driver.current_url} {labels()[:5]} "
                     f"{server.call('GET', '/v1/grid/crates/' + driver.current_url.rsplit('/', 1)[1])[1]} {driver.get_log('browser')}")
        driver.save_screenshot(str(ARTEFACTS / "crate.png"))
        # The crate's own tab path survives a reload.
        path = driver.current_url
        driver.refresh()
        wait(lambda: driver.find_elements(By.CSS_SELECTOR, "ol.grid > li") and driver.current_url == path)

    def test_mini_player_appears_for_a_play_elsewhere_and_goes_on_stop(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        server.call("POST", "/v1/player/stop")
        driver.get(server.base + "/collection")
        grid_ready()
        player = driver.find_element(By.ID, "player")
        self.assertFalse(player.is_displayed(), "hidden while idle")
        self.assertEqual(player.get_attribute("aria-label"), "Now playing")
        time.sleep(0.5)  # the event stream is open
        status, state, _ = server.call("POST", "/v1/player/play", {"albumId": server.played_album})
        self.assertEqual(status, 200)
        started = time.time()
        wait(lambda: player.is_displayed() and "Opening" in player.text, timeout=5, message="shown on play")
        self.assertLess(time.time() - started, 2.0)
        driver.save_screenshot(str(ARTEFACTS / "mini-player.png"))
        # Commands from the page carry the revision it shows.
        player.find_element(By.CSS_SELECTOR, "button[aria-label=Next]").click()
        wait(lambda: "Second" in player.text, message="next")
        _, now, _ = server.call("GET", "/v1/player")
        self.assertEqual(now["track"]["title"], "Second")
        # A track credited to other artists than the album's shows them.
        self.assertIn("A Guest", player.find_element(By.CSS_SELECTOR, ".detail").text)
        # The record on the turntable links to its page.
        self.assertEqual(player.find_element(By.CSS_SELECTOR, ".detail a").get_attribute("href"),
                         f"{server.base}/collection/albums/{server.played_album}")
        # From the keyboard: the controls are drawn anew on each state, the focus stays where it was.
        pause = player.find_element(By.CSS_SELECTOR, "button[aria-label=Pause]")
        js("arguments[0].focus()", pause)
        pause.send_keys(Keys.ENTER)
        wait(lambda: server.call("GET", "/v1/player")[1]["state"] == "paused", message="paused")
        wait(lambda: js("return document.activeElement.getAttribute('aria-label')") == "Play", message="the keyboard on Play")
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        wait(lambda: server.call("GET", "/v1/player")[1]["state"] == "playing", message="playing again from the keyboard")
        player.find_element(By.CSS_SELECTOR, "button[aria-label=Pause]").click()
        wait(lambda: server.call("GET", "/v1/player")[1]["state"] == "paused", message="paused")
        server.call("POST", "/v1/player/stop")
        wait(lambda: not player.is_displayed(), timeout=5, message="hidden on stop")


class T5Covers(unittest.TestCase):
    def test_a_cover_loads_from_crated_sized_to_its_cell_and_paints_its_colour_first(self):
        signed_in()
        harness.set_viewport(driver, 390, 844, scale=2)
        driver.get(server.base + "/collection?sort=title")
        grid_ready()
        selector = f"ol.grid > li[data-album-id='{server.played_album}'] img"
        cover = loaded_image(selector, lambda: f"cover loaded; host asked {image_host.handler.requests} times; {driver.get_log('browser')}")
        self.assertTrue(cover["src"].startswith(server.base + "/v1/artwork/"), cover["src"])
        # Drawn in its cell at the window's pixel ratio, never wider than the 300-pixel original.
        self.assertLessEqual(cover["natural"], 300)
        self.assertGreaterEqual(cover["natural"], min(300, int(cover["shown"] * 2) - 1))
        self.assertEqual(image_host.handler.requests, 1)
        # Fetched now: the grid's next answer carries the cover's colour, painted behind the image.
        driver.refresh()
        grid_ready()
        colour = js(f"""return getComputedStyle(document.querySelector("ol.grid > li[data-album-id='{server.played_album}'] .cover")).backgroundColor""")
        channels = [int(part) for part in colour[colour.index("(") + 1:colour.index(")")].split(",")]
        self.assertTrue(all(abs(a - b) <= 3 for a, b in zip(channels, COVER_RGB)), colour)
        driver.save_screenshot(str(ARTEFACTS / "covers.png"))

    def test_the_crates_list_shows_each_crates_front_cover(self):
        signed_in()
        harness.set_viewport(driver, 390, 844, scale=2)
        _, album, _ = server.call("GET", f"/v1/albums/{server.played_album}")
        status, crate, _ = server.call("POST", "/v1/crates", {"name": "Front cover"})
        self.assertEqual(status, 201)
        status, _, _ = server.call("POST", f"/v1/crates/{crate['id']}/copies", {"copyIds": [album["copies"][0]["id"]]})
        self.assertEqual(status, 200)
        status, empty, _ = server.call("POST", "/v1/crates", {"name": "Front cover, none"})
        self.assertEqual(status, 201)
        try:
            driver.get(server.base + "/crates")
            row = lambda crate_id: f"ul.rows li:has(a[href='/crates/{crate_id}'])"
            drawn = loaded_image(f"{row(crate['id'])} .cover img", lambda: f"the crate's cover: {driver.get_log('browser')}")
            self.assertTrue(drawn["src"].startswith(server.base + "/v1/artwork/"), drawn["src"])
            self.assertEqual(drawn["shown"], 60)
            # 60 px at a pixel ratio of 2: the 128-pixel variant.
            self.assertEqual(drawn["natural"], 128)
            # An empty crate shows the blank record instead.
            self.assertTrue(js(f"return document.querySelector(\"{row(empty['id'])} .cover\").classList.contains('blank')"))
            driver.save_screenshot(str(ARTEFACTS / "crates.png"))
        finally:
            for made in (crate, empty):
                server.call("DELETE", f"/v1/crates/{made['id']}")

    def test_the_history_shows_each_plays_cover(self):
        signed_in()
        harness.set_viewport(driver, 390, 844, scale=2)
        status, _, _ = server.call("POST", "/v1/player/play", {"albumId": server.short_album})
        self.assertEqual(status, 200)
        try:
            # The first track counts once half of its two seconds is heard.
            wait(lambda: any(entry["albumId"] == server.short_album for entry in server.call("GET", "/v1/history")[1]["entries"]),
                 timeout=10, message="the play in the history")
        finally:
            server.call("POST", "/v1/player/stop")
        driver.get(server.base + "/history")
        drawn = loaded_image(f"ol.rows li:has(a[href='/history/albums/{server.short_album}']) .cover img",
                             lambda: f"the play's cover: {page_state()}")
        self.assertTrue(drawn["src"].startswith(server.base + "/v1/artwork/"), drawn["src"])
        self.assertEqual(drawn["shown"], 60)
        self.assertEqual(drawn["natural"], 128)
        driver.save_screenshot(str(ARTEFACTS / "history.png"))


@contextmanager
def made_crate(name):
    """A new crate of the user's, made through the API and deleted when the block ends."""
    status, crate, _ = server.call("POST", "/v1/crates", {"name": name})
    assert status == 201, f"crate {name!r} not made: {status}"
    try:
        yield crate
    finally:
        server.call("DELETE", f"/v1/crates/{crate['id']}")


def albums_by_title(count, offset=0):
    """(album id, title, copy id) of `count` albums in title order, from `offset` on."""
    _, page, _ = server.call("GET", f"/v1/grid/collection?limit={offset + count}&sort=title")
    albums = []
    for item in page["items"][offset:offset + count]:
        _, album, _ = server.call("GET", f"/v1/albums/{item['albumId']}")
        albums.append((album["id"], album["title"], album["copies"][0]["id"]))
    return albums


class T6CrateEditing(unittest.TestCase):
    def test_a_crate_is_renamed_reordered_emptied_and_deleted(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        first, second, third = albums_by_title(3, offset=10)
        status, crate, _ = server.call("POST", "/v1/crates", {"name": "Rename me"})
        self.assertEqual(status, 201)
        status, _, _ = server.call("POST", f"/v1/crates/{crate['id']}/copies", {"copyIds": [first[2], second[2], third[2]]})
        self.assertLess(status, 300)
        order = lambda: [item["copyId"] for item in server.call("GET", f"/v1/crates/{crate['id']}")[1]["items"]]

        driver.get(f"{server.base}/crates/{crate['id']}")
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == "Rename me", message="the crate's page")
        name = driver.find_element(By.CSS_SELECTOR, "input[aria-label='Crate name']")
        name.clear()
        name.send_keys("Sunday morning")
        name.submit()
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == "Sunday morning", message="renamed on the page")
        self.assertEqual(server.call("GET", f"/v1/crates/{crate['id']}")[1]["name"], "Sunday morning")
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "ol.grid").get_attribute("aria-label"), "Albums in Sunday morning")

        # The order panel: the third record moves above the second, then the first leaves the crate.
        driver.find_element(By.CSS_SELECTOR, "details.order-panel summary").click()
        driver.find_element(By.CSS_SELECTOR, f"button[aria-label='Move {third[1]} up']").click()
        wait(lambda: order() == [first[2], third[2], second[2]], message=lambda: f"moved up: {order()}")
        shown = lambda: [int(li.get_attribute("data-copy-id")) for li in driver.find_elements(By.CSS_SELECTOR, "ol.order > li")]
        wait(lambda: shown() == [first[2], third[2], second[2]], message=lambda: f"the panel after the move: {shown()}")
        # The grid below is in the crate's order, and follows the move.
        grid_titles = lambda: [li.get_attribute("aria-label") for li in driver.find_elements(By.CSS_SELECTOR, "ol.grid > li")]
        wait(lambda: grid_titles() == [first[1], third[1], second[1]], message=lambda: f"the grid after the move: {grid_titles()}")
        # The keyboard stays on the record that moved.
        self.assertEqual(js("return document.activeElement.getAttribute('aria-label')"), f"Move {third[1]} up")
        driver.find_element(By.CSS_SELECTOR, f"button[aria-label='Remove {first[1]} from the crate']").click()
        wait(lambda: order() == [third[2], second[2]], message=lambda: f"removed: {order()}")
        wait(lambda: grid_titles() == [third[1], second[1]], message=lambda: f"the grid after removing: {grid_titles()}")
        # The panel stays open, counts what is left, and the keyboard is on the record that took the place.
        wait(lambda: shown() == [third[2], second[2]], message=lambda: f"the panel after removing: {shown()}")
        self.assertEqual(js("const panel = document.querySelector('details.order-panel'); return [panel.open, panel.querySelector('summary').textContent]"),
                         [True, "Order (2)"])
        self.assertEqual(js("return document.activeElement.getAttribute('aria-label')"), f"Remove {third[1]} from the crate")
        # And open again when the page is drawn anew (back from one of its albums, or reloaded).
        driver.refresh()
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == "Sunday morning", message="the crate's page again")
        self.assertTrue(js("return document.querySelector('details.order-panel').open"), "the panel as it was left")

        # Deleting asks first; declined, nothing happens.
        js("window.confirm = () => false")
        driver.find_element(By.XPATH, "//button[text()='Delete crate']").click()
        time.sleep(0.3)
        self.assertEqual(server.call("GET", f"/v1/crates/{crate['id']}")[0], 200)
        js("window.confirm = () => true")
        driver.find_element(By.XPATH, "//button[text()='Delete crate']").click()
        wait(lambda: driver.current_url == server.base + "/crates", message=lambda: f"back at the crates: {driver.current_url}")
        self.assertEqual(server.call("GET", f"/v1/crates/{crate['id']}")[0], 404)
        wait(lambda: "Sunday morning" not in driver.find_element(By.ID, "view").text, message="the crate gone from the list")
        # The records stay in the collection.
        self.assertEqual(server.call("GET", f"/v1/albums/{first[0]}")[0], 200)
        # The deleted crate's page left the history: Back goes to the page before it.
        driver.back()
        wait(lambda: driver.current_url != server.base + "/crates", message="went back")
        self.assertNotEqual(driver.current_url, f"{server.base}/crates/{crate['id']}")


    def test_a_crate_is_filled_from_its_own_page(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        with made_crate("Filled here") as crate:
            driver.get(f"{server.base}/crates/{crate['id']}")
            wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == "Filled here", message="the crate's page")
            driver.find_element(By.CSS_SELECTOR, "details.add-panel summary").click()
            driver.find_element(By.CSS_SELECTOR, "input[aria-label='Find albums to add']").send_keys("01234")
            add = lambda: driver.find_element(By.CSS_SELECTOR, "ol.add-results li button")
            # Titles are generated as `<letter>ecord <number>`.
            wait(lambda: add().get_attribute("aria-label").endswith("ecord 01234"), message="found as typed")
            # From the keyboard: the keyboard stays on the button.
            js("document.querySelector('ol.add-results li button').focus()")
            ActionChains(driver).send_keys(Keys.ENTER).perform()
            wait(lambda: add().text == "Added", message=lambda: f"added: {add().text}")
            self.assertEqual(js("return document.activeElement.getAttribute('aria-label')"), add().get_attribute("aria-label"))
            # In the crate (a copy of the album), in its grid and in its Order panel's count.
            items = server.call("GET", f"/v1/crates/{crate['id']}")[1]["items"]
            self.assertEqual([item["album"]["title"][1:] for item in items], ["ecord 01234"])
            grid_titles = lambda: [li.get_attribute("aria-label")[1:] for li in driver.find_elements(By.CSS_SELECTOR, "ol.grid > li")]
            wait(lambda: grid_titles() == ["ecord 01234"], message=lambda: f"the grid: {grid_titles()}")
            self.assertEqual(driver.find_element(By.CSS_SELECTOR, "details.order-panel summary").text, "Order (1)")
            # Found again: already there, and said so.
            search = driver.find_element(By.CSS_SELECTOR, "input[aria-label='Find albums to add']")
            search.send_keys(Keys.ENTER)
            wait(lambda: add().text == "Add", message="found again")
            add().click()
            wait(lambda: add().text == "In the crate", message=lambda: f"already there: {add().text}")
            self.assertEqual(len(server.call("GET", f"/v1/crates/{crate['id']}")[1]["items"]), 1)

    def test_an_order_change_another_device_overtook_is_said(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        first, second = albums_by_title(2, offset=20)
        status, crate, _ = server.call("POST", "/v1/crates", {"name": "Overtaken"})
        self.assertEqual(status, 201)
        server.call("POST", f"/v1/crates/{crate['id']}/copies", {"copyIds": [first[2], second[2]]})
        try:
            driver.get(f"{server.base}/crates/{crate['id']}")
            wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == "Overtaken", message="the crate's page")
            driver.find_element(By.CSS_SELECTOR, "details.order-panel summary").click()
            # Another device takes the first copy out; this page still shows it.
            self.assertEqual(server.call("DELETE", f"/v1/crates/{crate['id']}/copies/{first[2]}")[0], 204)
            driver.find_element(By.CSS_SELECTOR, f"button[aria-label='Move {first[1]} down']").click()
            error = lambda: driver.find_element(By.CSS_SELECTOR, "#view p.error").text
            wait(lambda: "not found" in error(), message=lambda: f"the refusal said: {page_state()}")
            rows = lambda: [li.get_attribute("data-copy-id") for li in driver.find_elements(By.CSS_SELECTOR, "ol.order > li")]
            wait(lambda: rows() == [str(second[2])], message=lambda: f"the order as it is now: {rows()}")
        finally:
            server.call("DELETE", f"/v1/crates/{crate['id']}")


class T7CopyAndArtist(unittest.TestCase):
    def test_pages_left_behind_give_their_event_stream_up(self):
        """A browser opens six connections to a host at most: pages kept in its back-forward cache,
        and hidden tabs, must not hold theirs with the player's event stream, or the page shown
        waits for ever."""
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        for album_id, title, _ in albums_by_title(8, offset=40):
            driver.get(f"{server.base}/collection/albums/{album_id}")
            wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title and driver.find_elements(By.CSS_SELECTOR, "form.copy-form"),
                 message=lambda: f"album {album_id}: {page_state()}")
        started = time.time()
        self.assertEqual(fetch("/v1/crates")[0], 200)
        self.assertLess(time.time() - started, 5)
        # The page shown still follows the player.
        player = driver.find_element(By.ID, "player")
        self.assertEqual(server.call("POST", "/v1/player/play", {"albumId": server.played_album})[0], 200)
        wait(lambda: player.is_displayed() and "Opening" in player.text, message=lambda: f"shown on play: {page_state()}")
        server.call("POST", "/v1/player/stop")
        wait(lambda: not player.is_displayed(), message="hidden on stop")

        # A hidden tab closes its stream, so hears nothing; shown again, it catches up.
        def visibility(hidden):
            js("""Object.defineProperty(document, 'hidden', {value: arguments[0], configurable: true});
                  Object.defineProperty(document, 'visibilityState', {value: arguments[0] ? 'hidden' : 'visible', configurable: true});
                  document.dispatchEvent(new Event('visibilitychange'));""", hidden)
        visibility(True)
        self.assertEqual(server.call("POST", "/v1/player/play", {"albumId": server.played_album})[0], 200)
        time.sleep(1)
        self.assertFalse(player.is_displayed(), "a hidden tab's stream is closed")
        visibility(False)
        wait(lambda: player.is_displayed() and "Opening" in player.text, message=lambda: f"caught up when shown: {page_state()}")
        server.call("POST", "/v1/player/stop")

    def test_a_copys_fields_are_saved_and_cleared(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        album_id, title, copy_id = albums_by_title(1, offset=20)[0]
        copy = lambda: server.call("GET", f"/v1/albums/{album_id}")[1]["copies"][0]
        form = lambda: driver.find_element(By.CSS_SELECTOR, "form.copy-form")

        driver.get(f"{server.base}/collection/albums/{album_id}")
        # The copies are drawn last, once the crates to offer are known.
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title and form(), message="the album page")
        rating = Select(form().find_element(By.NAME, "rating"))
        self.assertEqual([option.accessible_name for option in rating.options], ["None", "1 star", "2 stars", "3 stars", "4 stars", "5 stars"])
        rating.select_by_value("4")
        Select(form().find_element(By.NAME, "mediaCondition")).select_by_value("Very Good Plus (VG+)")
        Select(form().find_element(By.NAME, "sleeveCondition")).select_by_value("Good (G)")
        notes = form().find_element(By.NAME, "notes")
        notes.clear()
        notes.send_keys("Plays through; a light scuff on B2")
        form().find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait(lambda: form().find_element(By.CSS_SELECTOR, "p.status").text == "Saved.", message="saved")
        # An edit since is not saved, and "Saved." goes.
        form().find_element(By.NAME, "notes").send_keys(" ")
        wait(lambda: form().find_element(By.CSS_SELECTOR, "p.status").text == "", message="the status cleared by an edit")
        saved = copy()
        self.assertEqual((saved["id"], saved["rating"], saved["mediaCondition"], saved["sleeveCondition"], saved["notes"]),
                         (copy_id, 4, "Very Good Plus (VG+)", "Good (G)", "Plays through; a light scuff on B2"))

        # Shown again after a reload, then cleared: none of the fields is left.
        driver.refresh()
        wait(lambda: Select(form().find_element(By.NAME, "rating")).first_selected_option.get_attribute("value") == "4",
             message="the saved rating is shown")
        self.assertEqual(form().find_element(By.NAME, "notes").get_attribute("value"), "Plays through; a light scuff on B2")
        Select(form().find_element(By.NAME, "rating")).select_by_value("")
        Select(form().find_element(By.NAME, "mediaCondition")).select_by_value("")
        Select(form().find_element(By.NAME, "sleeveCondition")).select_by_value("")
        form().find_element(By.NAME, "notes").clear()
        form().find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait(lambda: form().find_element(By.CSS_SELECTOR, "p.status").text == "Saved.", message="cleared")
        cleared = copy()
        self.assertEqual([key for key in ("rating", "mediaCondition", "sleeveCondition", "notes") if cleared.get(key) is not None], [])

    def test_leaving_edits_not_saved_asks_first(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        album_id, title, _ = albums_by_title(1, offset=21)[0]
        album_page = f"{server.base}/collection/albums/{album_id}"
        form = lambda: driver.find_element(By.CSS_SELECTOR, "form.copy-form")
        driver.get(server.base + "/collection")
        grid_ready()
        # Opened from the grid, in the page: Back is the page's own.
        js("const link = document.createElement('a'); link.href = arguments[0]; document.body.append(link); link.click(); link.remove();",
           f"/collection/albums/{album_id}")
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title and form(), message="the album page")
        form().find_element(By.NAME, "notes").send_keys("not saved yet")
        tab = lambda: driver.find_element(By.CSS_SELECTOR, "#tabs a[data-tab=crates]")

        def alert():
            try:
                return driver.switch_to.alert
            except NoAlertPresentException:
                return None

        def answer(accept):
            asked = wait(alert, message="asked before leaving")
            self.assertIn("not saved", asked.text)
            asked.accept() if accept else asked.dismiss()

        # A link: staying keeps the page and what was typed.
        tab().click()
        answer(accept=False)
        self.assertEqual(driver.current_url, album_page)
        self.assertEqual(form().find_element(By.NAME, "notes").get_attribute("value").endswith("not saved yet"), True)
        # Back: the page is put back, as it was.
        driver.back()
        answer(accept=False)
        wait(lambda: driver.current_url == album_page, message=lambda: f"still on the album: {driver.current_url}")
        self.assertTrue(form().find_element(By.NAME, "notes").get_attribute("value").endswith("not saved yet"))
        # Closing or reloading the tab: the page asks the browser to ask (headless Chromium shows no
        # such dialog, so the event is sent here as the browser would send it).
        unload = "const event = new Event('beforeunload', { cancelable: true }); window.dispatchEvent(event); return event.defaultPrevented;"
        self.assertTrue(js(unload), "the page holds the tab while edits are not saved")
        # Saved, nothing is asked.
        form().find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait(lambda: form().find_element(By.CSS_SELECTOR, "p.status").text == "Saved.", message="saved")
        self.assertFalse(js(unload), "nothing to lose once saved")
        tab().click()
        wait(lambda: driver.current_url.startswith(server.base + "/crates"), message=lambda: f"left without asking: {driver.current_url}")
        # Leaving anyway goes.
        driver.get(album_page)
        wait(lambda: form(), message="the album page again")
        form().find_element(By.NAME, "notes").send_keys(" and more")
        tab().click()
        answer(accept=True)
        wait(lambda: driver.current_url.startswith(server.base + "/crates"), message=lambda: f"left: {driver.current_url}")
        server.call("PATCH", f"/v1/copies/{albums_by_title(1, offset=21)[0][2]}", {"notes": None})

    def test_adding_a_copy_to_a_crate_keeps_what_is_typed(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        album_id, title, copy_id = albums_by_title(1, offset=23)[0]
        form = lambda: driver.find_element(By.CSS_SELECTOR, "form.copy-form")
        with made_crate("Kept typing") as crate:
            driver.get(f"{server.base}/collection/albums/{album_id}")
            wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title and form(), message="the album page")
            form().find_element(By.NAME, "notes").send_keys("typed, not saved")
            Select(driver.find_element(By.CSS_SELECTOR, "form.add-to-crate select")).select_by_visible_text("Kept typing")
            driver.find_element(By.CSS_SELECTOR, "form.add-to-crate button[type=submit]").click()
            wait(lambda: "Kept typing" in driver.find_element(By.CSS_SELECTOR, "p.in-crates").text, message="added")
            self.assertEqual(driver.find_element(By.CSS_SELECTOR, "form.add-to-crate p.status").text, "Added to Kept typing.")
            # The page was not drawn again: the notes still hold what was typed, and the crate is no longer offered.
            self.assertEqual(form().find_element(By.NAME, "notes").get_attribute("value"), "typed, not saved")
            offered = [option.text for option in Select(driver.find_element(By.CSS_SELECTOR, "form.add-to-crate select")).options]
            self.assertNotIn("Kept typing", offered)
            self.assertEqual([item["copyId"] for item in server.call("GET", f"/v1/crates/{crate['id']}")[1]["items"]], [copy_id])

    def test_saving_a_copy_keeps_its_sleeve_grade_and_shows_its_custom_fields(self):
        """Discogs grades a sleeve `Generic`, `No Cover` or `Not Graded` as well (58 of the 316 copies
        of a real export): saving the notes must not clear it. A grade no list offers is kept too."""
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        album_id, title, copy_id = albums_by_title(1, offset=25)[0]
        self.assertEqual(server.call("PATCH", f"/v1/copies/{copy_id}", {
            "sleeveCondition": "Generic", "mediaCondition": "Very Good (VG)",
            "customFields": {"Purchased At": "Amoeba", "Color": "Teal"}})[0], 200)
        form = lambda: driver.find_element(By.CSS_SELECTOR, "form.copy-form")
        driver.get(f"{server.base}/collection/albums/{album_id}")
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title and form(), message="the album page")
        self.assertEqual(Select(form().find_element(By.NAME, "sleeveCondition")).first_selected_option.get_attribute("value"), "Generic")
        facts = form().find_element(By.CSS_SELECTOR, "p.facts").text
        self.assertIn("Purchased At: Amoeba", facts)
        self.assertIn("Color: Teal", facts)
        notes = form().find_element(By.NAME, "notes")
        notes.clear()
        notes.send_keys("Generic sleeve, original inner")
        form().find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait(lambda: form().find_element(By.CSS_SELECTOR, "p.status").text == "Saved.", message="saved")
        saved = server.call("GET", f"/v1/albums/{album_id}")[1]["copies"][0]
        self.assertEqual((saved["sleeveCondition"], saved["mediaCondition"], saved["notes"], saved["customFields"]),
                         ("Generic", "Very Good (VG)", "Generic sleeve, original inner", {"Purchased At": "Amoeba", "Color": "Teal"}))

    def test_an_artist_link_leads_to_the_artists_albums(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        album_id, title, _ = albums_by_title(1, offset=30)[0]
        _, album, _ = server.call("GET", f"/v1/albums/{album_id}")
        artist = album["artists"][0]
        _, expected, _ = server.call("GET", f"/v1/grid/artists/{artist['id']}?limit=100")

        driver.get(f"{server.base}/collection/albums/{album_id}")
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title, message="the album page")
        wait(lambda: driver.title == f"{title} · Collection · crated", message=lambda: f"the window named for the album: {driver.title}")
        driver.find_element(By.CSS_SELECTOR, "p.artists a").click()
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == artist["name"], message=lambda: f"the artist page: {driver.current_url} {page_state()}")
        # The artist goes on the tab's path above the album, so that ‹ Back returns to the album.
        self.assertEqual(driver.current_url, f"{server.base}/collection/albums/{album_id}/artists/{artist['id']}")
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "#view a.back").get_attribute("href"), f"{server.base}/collection/albums/{album_id}")
        ids = lambda: [int(li.get_attribute("data-album-id")) for li in driver.find_elements(By.CSS_SELECTOR, "ol.grid > li")]
        wait(lambda: sorted(ids()) == sorted(item["albumId"] for item in expected["items"]),
             message=lambda: f"the artist's albums: {ids()} against {[item['albumId'] for item in expected['items']]}")
        self.assertIn(album_id, ids())
        # Back returns to the album.
        driver.back()
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title, message="back at the album")

    def test_an_album_page_names_a_tracks_own_artists_and_credits(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(f"{server.base}/collection/albums/{server.played_album}")
        view_ready()
        tracks = driver.find_elements(By.CSS_SELECTOR, "ol.tracks button.track")
        self.assertEqual([track.get_attribute("aria-label") for track in tracks],
                         ["Play A1 Opening", "Play A2 Second by A Guest", "Play B1 Flip side, Remix: A Remixer"])
        self.assertEqual([by.text for by in driver.find_elements(By.CSS_SELECTOR, "ol.tracks .by")], ["A Guest", "Remix: A Remixer"])

    def test_an_album_pages_credits_link_to_the_artists_crated_knows(self):
        signed_in()
        harness.set_viewport(driver, 390, 844, scale=2)
        driver.get(f"{server.base}/collection/albums/{server.played_album}")
        view_ready()
        section = driver.find_element(By.CSS_SELECTOR, "section.credits")
        self.assertEqual(section.accessible_name, "Credits")
        self.assertEqual([item.text for item in section.find_elements(By.CSS_SELECTOR, "li")],
                         ["Producer – A Producer", "Design – A Designer (A1, B1)"])
        # Someone crated knows as an artist links to their page, which lists the album they are credited on.
        links = section.find_elements(By.CSS_SELECTOR, "a")
        self.assertEqual([link.text for link in links], ["A Producer"])
        driver.execute_script("arguments[0].scrollIntoView()", section)
        driver.save_screenshot(str(ARTEFACTS / "album-credits.png"))
        links[0].click()
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == "A Producer", message=lambda: f"the producer's page: {page_state()}")
        credited = driver.find_element(By.CSS_SELECTOR, "section.credited-on")
        self.assertEqual(credited.accessible_name, "Credited on")
        _, album, _ = server.call("GET", f"/v1/albums/{server.played_album}")
        self.assertEqual([title.text for title in credited.find_elements(By.CSS_SELECTOR, "ul.rows .title")], [album["title"]])
        # What the album credits them as follows its artists.
        self.assertEqual([line.text for line in credited.find_elements(By.CSS_SELECTOR, "ul.rows .artist")], [f"{album['artistCredit']} · Producer"])
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, "ol.grid"), [])
        driver.save_screenshot(str(ARTEFACTS / "credited-on.png"))

    def test_an_artist_page_lists_the_albums_they_appear_on(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        _, album, _ = server.call("GET", f"/v1/albums/{server.played_album}")
        guest = next(track for side in album["sides"] for track in side["tracks"] if track.get("artists"))["artists"][0]
        self.assertEqual(guest["name"], "A Guest")
        driver.get(f"{server.base}/collection/albums/{server.played_album}/artists/{guest['id']}")
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == "A Guest", message=lambda: f"the artist page: {page_state()}")
        section = driver.find_element(By.CSS_SELECTOR, "section.appears-on")
        self.assertEqual(section.accessible_name, "Appears on")
        links = section.find_elements(By.CSS_SELECTOR, "ul.rows a")
        self.assertEqual([link.find_element(By.CSS_SELECTOR, ".title").text for link in links], [album["title"]])
        # No album of their own: no grid to wait for.
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, "ol.grid"), [])
        links[0].click()
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == album["title"], message="the album they appear on")
        self.assertEqual(driver.current_url,
                         f"{server.base}/collection/albums/{server.played_album}/artists/{guest['id']}/albums/{server.played_album}")


class T8Contrast(unittest.TestCase):
    def test_text_keeps_its_contrast_in_light_and_dark(self):
        # WCAG AA (4.5:1 for text this size) for the page's text, the accent's and the current tab's.
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        # Colours as the page computed them; each background is the nearest opaque one behind.
        contrasts = """
            const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
            const background = (element) => {
                for (let node = element; node; node = node.parentElement) {
                    const colour = rgb(getComputedStyle(node).backgroundColor);
                    if (colour.length < 4 || colour[3] === 1) return colour;
                }
                return rgb(getComputedStyle(document.body).backgroundColor);
            };
            const luminance = ([r, g, b]) => [r, g, b].map((c) => c / 255)
                .map((c) => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
                .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
            const ratio = (element) => {
                const [a, b] = [luminance(rgb(getComputedStyle(element).color)), luminance(background(element))];
                return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
            };
            const pick = (selector) => document.querySelector(selector);
            return {
                text: ratio(pick('.cell .title')), secondary: ratio(pick('.cell .artist')),
                brand: ratio(pick('.brand')), tab: ratio(pick('.tabs a[aria-current="page"]')),
                inactiveTab: ratio(pick('.tabs a:not([aria-current])')), letter: ratio(pick('nav.jump button')),
                player: ratio(pick('.player .now p')),
            };"""
        self.assertEqual(server.call("POST", "/v1/player/play", {"albumId": server.played_album})[0], 200)
        try:
            for scheme in ["light", "dark"]:
                with self.subTest(scheme=scheme):
                    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                    driver.get(server.base + "/collection?sort=title")
                    grid_ready()
                    wait(lambda: js("return !document.querySelector('nav.jump').hidden"), message="the jump bar")
                    wait(lambda: driver.find_element(By.ID, "player").is_displayed(), message="the mini-player")
                    # The mini-player is opaque: no page text shows through it, and its own colour is the one behind its text.
                    self.assertEqual(js("return getComputedStyle(document.getElementById('player')).backgroundColor"), "rgb(28, 21, 18)")
                    ratios = js(contrasts)
                    low = {name: round(value, 2) for name, value in ratios.items() if value < 4.5}
                    self.assertEqual(low, {}, f"contrast below 4.5:1 in {scheme}: {ratios}")
        finally:
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
            server.call("POST", "/v1/player/stop")


def view_ready():
    wait(lambda: js("return document.querySelector('#view > .view')?.dataset.ready === 'true'"), message=lambda: f"the view: {page_state()}")


class T9Session(unittest.TestCase):
    def test_back_after_signing_out_elsewhere_shows_the_sign_in_form(self):
        """A page the browser kept in its back-forward cache comes back as it was left, signed in:
        it asks for its session again, and one that ended shows the sign-in form."""
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/collection")
        grid_ready()
        js("window.keptInCache = true")
        # Another page of the site, loaded anew, signs out.
        driver.get(server.base + "/history")
        view_ready()
        driver.find_element(By.ID, "sign-out").click()
        wait(lambda: driver.find_element(By.ID, "sign-in").is_displayed(), message="signed out")
        driver.back()
        self.assertTrue(js("return window.keptInCache === true"), "the page came back from the back-forward cache")
        wait(lambda: driver.find_element(By.ID, "sign-in").is_displayed() and not driver.find_element(By.ID, "bar").is_displayed(),
             message=lambda: f"the sign-in form after Back: {page_state()}")

    def test_sign_out_leaves_no_player_padding_and_no_tabs_title(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/collection")
        grid_ready()
        self.assertEqual(server.call("POST", "/v1/player/play", {"albumId": server.played_album})[0], 200)
        try:
            wait(lambda: js("return document.body.classList.contains('has-player')"), message="the player is shown")
            driver.find_element(By.ID, "sign-out").click()
            wait(lambda: driver.find_element(By.ID, "sign-in").is_displayed(), message="signed out")
            self.assertFalse(js("return document.body.classList.contains('has-player')"), "the player's room is gone")
            self.assertEqual(driver.title, "Sign in · crated")
            # The next to sign in here starts at the start, not at the places this user left.
            self.assertEqual(driver.current_url, f"{server.base}/signin")
            self.assertEqual(js("return sessionStorage.length"), 0)
        finally:
            server.call("POST", "/v1/player/stop")


    def test_a_session_renewed_in_another_tab_takes_the_pages_changes(self):
        """Signed out and in again elsewhere: this page's CSRF token is the old session's. Its next
        change takes the new token and goes through, rather than being refused until a reload."""
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        server.call("POST", "/v1/player/stop")
        driver.get(f"{server.base}/collection/albums/{server.played_album}")
        view_ready()
        _, old = fetch("/v1/session")
        self.assertEqual(fetch("/v1/session", "DELETE", csrf=old["csrfToken"])[0], 204)
        status, renewed = fetch("/v1/session", "POST", {"name": harness.USER, "password": harness.PASSWORD})
        self.assertEqual(status, 201)
        self.assertNotEqual(renewed["csrfToken"], old["csrfToken"])
        try:
            driver.find_element(By.XPATH, "//header[@class='album-head']//button[text()='Play']").click()
            wait(lambda: server.call("GET", "/v1/player")[1]["hasActiveTrack"], message=lambda: f"played: {page_state()}")
            self.assertEqual(driver.find_element(By.CSS_SELECTOR, ".album-head p.error").text, "")
        finally:
            server.call("POST", "/v1/player/stop")


class T9Navigation(unittest.TestCase):
    def test_back_link_returns_to_the_sorted_list(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/collection?sort=year")
        grid_ready()
        title = open_first_album()
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title, message="the album page")
        album_url = driver.current_url
        entries = js("return history.length")
        driver.find_element(By.CSS_SELECTOR, "a.back").click()
        wait(lambda: driver.current_url == server.base + "/collection?sort=year", message=lambda: f"back at the list: {driver.current_url}")
        grid_ready()
        self.assertEqual(Select(driver.find_element(By.CSS_SELECTOR, "form.filters select[name=sort]")).first_selected_option.get_attribute("value"), "year")
        # Back in history, not a new entry: the browser's Forward goes to the album again.
        self.assertEqual(js("return history.length"), entries)
        # Opened on its own (nothing before it in this tab's history), the album's Back keeps the list's sort too.
        driver.get(album_url)
        wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title, message="the album page, loaded")
        driver.find_element(By.CSS_SELECTOR, "a.back").click()
        wait(lambda: driver.current_url == server.base + "/collection?sort=year", message=lambda: f"back at the list: {driver.current_url}")

    def test_back_link_returns_to_the_search_as_typed(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/search")
        field = wait(lambda: driver.find_element(By.CSS_SELECTOR, "input[type=search]"))
        field.send_keys("01234")
        wait(lambda: js("return document.querySelectorAll('ol.grid > li').length") == 1, message="results as typed")
        driver.find_element(By.CSS_SELECTOR, "ol.grid > li a").click()
        wait(lambda: "/search/albums/" in driver.current_url and driver.find_elements(By.CSS_SELECTOR, "a.back"), message="the album page")
        driver.find_element(By.CSS_SELECTOR, "a.back").click()
        wait(lambda: driver.current_url == server.base + "/search?q=01234", message=lambda: f"back at the search: {driver.current_url}")
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "input[type=search]").get_attribute("value"), "01234")
        wait(lambda: js("return document.querySelectorAll('ol.grid > li').length") == 1, message="the results again")

    def test_a_malformed_address_shows_not_found(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get_log("browser")
        driver.get(server.base + "/discover/genres/100%")
        wait(lambda: "There is no such page." in driver.find_element(By.ID, "view").text, message=lambda: f"not found: {page_state()}")
        self.assertEqual([entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"], [])
        # The tabs still work from there.
        driver.find_element(By.CSS_SELECTOR, "#tabs a[data-tab=discover]").click()
        wait(lambda: driver.current_url == server.base + "/discover", message=lambda: f"the tab's root: {driver.current_url}")

    def test_skip_link_moves_focus_without_navigating(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/collection")
        grid_ready()
        js("document.querySelector('ol.grid').dataset.kept = 'yes'")
        url, entries = driver.current_url, js("return history.length")
        js("document.querySelector('a.skip').focus()")
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        wait(lambda: js("return document.activeElement.id") == "main", message="focus on the main content")
        time.sleep(0.3)
        self.assertEqual((driver.current_url, js("return history.length")), (url, entries), "no navigation")
        self.assertEqual(js("return document.querySelector('ol.grid')?.dataset.kept"), "yes", "the grid was not drawn again")


class T9Keyboard(unittest.TestCase):
    def test_arrow_keys_step_through_the_sorts(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/collection")
        grid_ready()
        js("document.querySelector('form.filters select[name=sort]').focus()")
        driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        wait(lambda: driver.current_url.endswith("/collection?sort=title"), message=lambda: f"sorted by title: {driver.current_url}")
        wait(lambda: js("return document.activeElement.name") == "sort",
             message=lambda: f"focus on the sort: {js('return document.activeElement.outerHTML.slice(0, 200)')}")
        driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        wait(lambda: driver.current_url.endswith("/collection?sort=year"), message=lambda: f"sorted by year: {driver.current_url}")
        wait(lambda: js("return document.activeElement.name") == "sort", message="focus stays on the sort")

    def test_the_jump_bar_is_one_tab_stop_walked_with_arrow_keys(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        fresh_grid_with_jump_bar()
        active = lambda: js("const e = document.activeElement; return e.closest('nav.jump') ? e.getAttribute('aria-label') : e.closest('ol.grid') ? 'grid ' + e.closest('li').dataset.position : e.outerHTML.slice(0, 80)")
        letters = js("return [...document.querySelectorAll('nav.jump button')].map((b) => b.getAttribute('aria-label'))")
        # From the filters' last control, Tab reaches the bar's first letter, and the next Tab the first album.
        js("document.querySelector('form.filters button[type=submit]').focus()")
        # Keys go to whatever has focus, as a person's do (a cell half out of view included).
        ActionChains(driver).send_keys(Keys.TAB).perform()
        self.assertEqual(active(), letters[0])
        ActionChains(driver).send_keys(Keys.TAB).perform()
        self.assertEqual(active(), "grid 0", "one Tab stop for the whole bar")
        # Arrows walk the bar; coming back with Shift+Tab finds the letter last reached.
        ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        self.assertEqual(active(), letters[0])
        ActionChains(driver).send_keys(Keys.ARROW_DOWN).perform()
        ActionChains(driver).send_keys(Keys.ARROW_DOWN).perform()
        self.assertEqual(active(), letters[2])
        ActionChains(driver).send_keys(Keys.END).perform()
        self.assertEqual(active(), letters[-1])
        ActionChains(driver).send_keys(Keys.ARROW_UP).perform()
        self.assertEqual(active(), letters[-2])
        ActionChains(driver).send_keys(Keys.TAB).perform()
        self.assertEqual(active(), "grid 0")
        ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        self.assertEqual(active(), letters[-2])
        # After a jump, Tab goes on to the albums jumped to, not back to the first ones loaded.
        _, page, _ = server.call("GET", "/v1/grid/collection?sort=title&sections=true&width=1366&height=1024")
        position = next(s["position"] for s in page["sections"] if f"Jump to {s['letter']}" == letters[-2])
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        columns = int(js("return document.querySelector('ol.grid').dataset.columns"))
        first_in_row = position - position % columns
        top = f"return document.querySelector(`ol.grid > li[data-position='{first_in_row}']`)?.getBoundingClientRect().top"
        wait(lambda: (js(top) or -1) > 0 and js(top) < 400, message=lambda: f"jumped to {position}: {js(top)}")
        self.assertEqual(active(), letters[-2])
        ActionChains(driver).send_keys(Keys.TAB).perform()
        self.assertEqual(active(), f"grid {first_in_row}")

    def test_enter_on_a_letter_keeps_focus_on_it(self):
        signed_in()
        harness.set_viewport(driver, 844, 390)
        fresh_grid_with_jump_bar()
        _, page, _ = server.call("GET", "/v1/grid/collection?sort=title&sections=true&width=844&height=390")
        section = next(s for s in page["sections"] if s["letter"] == "M")
        js("document.querySelector(`nav.jump button[aria-label='Jump to M']`).focus()")
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        # The grid starts at the first M album, just below the bar.
        at_top = """const item = document.querySelector(`ol.grid > li[data-position='${arguments[0]}']`);
                    const bar = document.getElementById('bar').getBoundingClientRect().bottom;
                    return !!item && Math.abs(item.getBoundingClientRect().top - bar) < item.getBoundingClientRect().height;"""
        wait(lambda: js(at_top, section["position"]), message="jumped to M")
        self.assertEqual(js("return document.activeElement.getAttribute('aria-label')"), "Jump to M")


class T9Failures(unittest.TestCase):
    def test_a_page_that_fails_to_load_is_retried_with_backoff(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/history")
        js("sessionStorage.clear()")
        driver.get(server.base + "/collection?sort=title")
        grid_ready()
        # The daemon is gone, as far as the grid can tell: its requests fail as a refused connection's do.
        js("""window.gridRequests = []; window.unhandled = 0;
              window.addEventListener('unhandledrejection', () => window.unhandled++);
              window.realFetch = window.fetch;
              window.fetch = (url, options) => String(url).startsWith('/v1/grid/')
                ? (window.gridRequests.push(performance.now()), Promise.reject(new TypeError('Failed to fetch')))
                : window.realFetch(url, options);""")
        count = grid_state()["count"]
        js("window.scrollTo(0, document.documentElement.scrollHeight)")
        # Tried at once, then after 1 s, then after 2 s more: not a request each frame.
        wait(lambda: len(js("return window.gridRequests")) >= 3, message=lambda: f"grid requests at {js('return window.gridRequests')}")
        times = js("return window.gridRequests")
        gaps = [later - earlier for earlier, later in zip(times, times[1:])]
        self.assertGreaterEqual(gaps[0], 950, f"{times}")
        self.assertGreaterEqual(gaps[1], 1950, f"{times}")
        self.assertEqual(js("return window.unhandled"), 0, "every failure is handled")
        status = driver.find_element(By.CSS_SELECTOR, "p.grid-status")
        self.assertIn("Could not load", status.text)
        self.assertIn("Trying again in 4 s", status.text)
        # Back again: Retry loads the next page at once, and the message goes.
        js("window.fetch = window.realFetch")
        status.find_element(By.XPATH, ".//button[text()='Retry']").click()
        wait(lambda: grid_state()["count"] > count, message=lambda: f"the next page: {page_state()}")
        wait(lambda: "Could not load" not in driver.find_element(By.CSS_SELECTOR, "p.grid-status").text, message="the message goes")

    def test_a_grids_first_page_is_retried_and_a_refused_one_lets_the_window_go(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/history")
        view_ready()
        js("sessionStorage.clear()")
        js("""window.gridRequests = 0; window.realFetch = window.fetch;
              window.fetch = (url, options) => String(url).startsWith('/v1/grid/')
                ? (window.gridRequests++, Promise.reject(new TypeError('Failed to fetch'))) : window.realFetch(url, options);""")
        driver.find_element(By.CSS_SELECTOR, "#tabs a[data-tab=collection]").click()
        status = lambda: driver.find_element(By.CSS_SELECTOR, "p.grid-status").text
        wait(lambda: "Could not load the albums" in status(), message=lambda: f"the first page's failure said: {page_state()}")
        js("window.fetch = window.realFetch")
        driver.find_element(By.XPATH, "//p[@class='grid-status']/button[text()='Retry']").click()
        wait(lambda: grid_state()["count"] > 0, message=lambda: f"the first page after Retry: {page_state()}")

        # A year range that ends before it starts is said at the To field, and asks for nothing.
        driver.get(server.base + "/collection")
        wait(lambda: grid_state()["count"] > 0, message=lambda: f"the collection: {page_state()}")
        js("""window.gridUrls = []; window.realFetch = window.fetch;
              window.fetch = (url, options) => (window.gridUrls.push(String(url)), window.realFetch(url, options));""")
        driver.find_element(By.NAME, "yearFrom").send_keys("1990")
        year_to = driver.find_element(By.NAME, "yearTo")
        year_to.send_keys("1980")
        year_to.send_keys(Keys.ENTER)
        self.assertEqual(year_to.get_property("validationMessage"), "To must not be before From (1990).")
        self.assertEqual([url for url in js("return window.gridUrls") if "yearTo=1980" in url], [],
                         "a range that ends before it starts was asked for")
        self.assertEqual(driver.current_url, server.base + "/collection")
        year_to.clear()
        year_to.send_keys("1995")
        year_to.send_keys(Keys.ENTER)
        wait(lambda: "yearTo=1995" in driver.current_url, message=lambda: f"the range applied: {driver.current_url}")
        js("window.fetch = window.realFetch")

        # A first page refused for its filter is said; leaving it, the grid no longer follows the window.
        driver.get(server.base + "/collection?yearFrom=abc")
        wait(lambda: "Could not load this page" in driver.find_element(By.ID, "view").text, message="the refusal said")
        js("""window.gridRequests = 0; window.realFetch = window.fetch;
              window.fetch = (url, options) => (String(url).startsWith('/v1/grid/') && window.gridRequests++, window.realFetch(url, options));""")
        driver.find_element(By.CSS_SELECTOR, "#tabs a[data-tab=crates]").click()
        view_ready()
        harness.set_viewport(driver, 390, 844)
        time.sleep(1.5)
        harness.set_viewport(driver, 1366, 1024)
        time.sleep(1.5)
        self.assertEqual(js("return window.gridRequests"), 0, "the refused grid asked again after it was left")

    def test_playing_an_empty_crate_says_why_not(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        with made_crate("Nothing to play") as crate:
            status, refused, _ = server.call("POST", "/v1/player/play", {"crateId": crate["id"]})
            self.assertEqual(status, 422)
            driver.get(f"{server.base}/crates/{crate['id']}")
            wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == "Nothing to play", message="the crate's page")
            driver.find_element(By.XPATH, "//button[text()='Play crate']").click()
            # crated's words, as a sentence of their own.
            reason = refused["error"]["message"]
            said = reason[0].upper() + reason[1:] + ("" if reason.endswith(".") else ".")
            wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view p.error").text == said,
                 message=lambda: f"the reason shown: {refused} {page_state()}")


class T9Crates(unittest.TestCase):
    def test_delete_names_the_crate_as_renamed(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        with made_crate("Old name") as crate:
            driver.get(f"{server.base}/crates/{crate['id']}")
            wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == "Old name", message="the crate's page")
            name = driver.find_element(By.CSS_SELECTOR, "input[aria-label='Crate name']")
            name.clear()
            name.send_keys("New name")
            name.submit()
            wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == "New name", message="renamed")
            self.assertEqual(driver.title, "New name · Crates · crated")
            js("window.confirm = (text) => { window.asked = text; return false; }")
            driver.find_element(By.XPATH, "//button[text()='Delete crate']").click()
            asked = wait(lambda: js("return window.asked"), message="asked first")
            self.assertIn("“New name”", asked)
            self.assertEqual(server.call("GET", f"/v1/crates/{crate['id']}")[0], 200, "declined: kept")

    def test_the_order_panel_gives_titles_room_at_phone_widths(self):
        signed_in()
        albums = albums_by_title(3, offset=60)
        status, crate, _ = server.call("POST", "/v1/crates", {"name": "Phone order"})
        self.assertEqual(status, 201)
        server.call("POST", f"/v1/crates/{crate['id']}/copies", {"copyIds": [copy_id for _, _, copy_id in albums]})
        # Each row's title and artist: their link's width, and their text's boxes (text that overflows included).
        rows = """return [...document.querySelectorAll('ol.order > li')].map((row) => {
                      const link = row.querySelector('a').getBoundingClientRect();
                      const buttons = [...row.querySelectorAll('button')].map((button) => button.getBoundingClientRect());
                      const lines = (element) => { const range = document.createRange(); range.selectNodeContents(element); return [...range.getClientRects()]; };
                      const text = [...lines(row.querySelector('.title')), ...lines(row.querySelector('.artist'))];
                      const overlaps = text.some((t) => buttons.some((b) => t.left < b.right && b.left < t.right && t.top < b.bottom && b.top < t.bottom));
                      const outside = text.some((t) => t.left < link.left - 0.5 || t.right > link.right + 0.5);
                      return { title: row.querySelector('.title').textContent, linkWidth: link.width, titleLines: lines(row.querySelector('.title')).length,
                               overlaps, outside, rowRight: row.getBoundingClientRect().right, rightmost: Math.max(...buttons.map((b) => b.right)) };
                  });"""
        try:
            for width in (320, 390):
                with self.subTest(width=width):
                    harness.set_viewport(driver, width, 800)
                    driver.get(f"{server.base}/crates/{crate['id']}")
                    wait(lambda: driver.find_elements(By.CSS_SELECTOR, "ol.order > li"), message="the order panel")
                    driver.find_element(By.CSS_SELECTOR, "details.order-panel summary").click()
                    # A long title as well as the collection's short ones.
                    js("document.querySelector('ol.order > li:last-child .title').textContent = 'The Complete Unabridged Recordings of an Extraordinarily Long Session'")
                    drawn = js(rows)
                    driver.save_screenshot(str(ARTEFACTS / f"crate-order-{width}.png"))
                    for row in drawn:
                        self.assertGreaterEqual(row["linkWidth"], 150, f"{width} px: {row}")
                        self.assertFalse(row["overlaps"], f"{width} px: text under the buttons: {row}")
                        self.assertFalse(row["outside"], f"{width} px: text outside its link: {row}")
                        self.assertLessEqual(row["rightmost"], row["rowRight"] + 0.5, f"{width} px: buttons within the row: {row}")
                    self.assertEqual([row["titleLines"] for row in drawn[:2]], [1, 1], f"{width} px: short titles on one line: {drawn}")
        finally:
            server.call("DELETE", f"/v1/crates/{crate['id']}")


class T9Removal(unittest.TestCase):
    def test_a_sold_record_is_removed_from_the_collection(self):
        """Asked first; then the copy leaves its crate and the collection, and its page goes with it."""
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        album_id, title, copy_id = albums_by_title(1, offset=70)[0]
        with made_crate("Selling") as crate:
            self.assertLess(server.call("POST", f"/v1/crates/{crate['id']}/copies", {"copyIds": [copy_id]})[0], 300)
            total = lambda: server.call("GET", "/v1/grid/collection?limit=1")[1]["total"]
            before = total()
            driver.get(f"{server.base}/collection/albums/{album_id}")
            wait(lambda: driver.find_element(By.CSS_SELECTOR, "#view h1").text == title and driver.find_elements(By.CSS_SELECTOR, "form.copy-form"),
                 message=lambda: f"the album page: {page_state()}")
            js("window.confirm = (text) => { window.asked = text; return false; }")
            driver.find_element(By.XPATH, "//button[text()='Remove from collection']").click()
            asked = wait(lambda: js("return window.asked"), message="asked first")
            self.assertIn("from your collection", asked)
            self.assertEqual(server.call("GET", f"/v1/copies/{copy_id}")[0], 200, "declined: kept")

            js("window.confirm = () => true")
            driver.find_element(By.XPATH, "//button[text()='Remove from collection']").click()
            # Its last copy gone, the album's page gives way to the collection it was opened from.
            wait(lambda: driver.current_url.split("?")[0] == server.base + "/collection", message=lambda: f"back at the collection: {driver.current_url}")
            self.assertEqual(server.call("GET", f"/v1/copies/{copy_id}")[0], 404)
            self.assertEqual(server.call("GET", f"/v1/albums/{album_id}")[0], 404)
            self.assertEqual(server.call("GET", f"/v1/crates/{crate['id']}")[1]["items"], [])
            self.assertEqual(total(), before - 1)


class T9Review(unittest.TestCase):
    """Mends from a review in the browser: a place kept, a refusal said, a page drawn again."""

    def test_a_resize_while_the_grid_restores_its_album_keeps_that_album(self):
        # Back from a page too short to scroll, the grid's first page is asked for while the
        # scrollbar's gutter comes and goes: the width changes under the album being brought back.
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        before = scrolled_grid("/collection?sort=title")
        self.assertIsNotNone(before)
        # Opened from the grid, so that Back draws the grid again (not the browser's cached page).
        js("document.querySelector(`ol.grid > li[data-album-id='${arguments[0]}'] a`).click()", before)
        wait(lambda: "/collection/albums/" in driver.current_url and driver.find_elements(By.CSS_SELECTOR, "#view h1"), message="the album page")
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                               {"offline": False, "latency": 800, "downloadThroughput": -1, "uploadThroughput": -1})
        try:
            driver.back()
            time.sleep(0.3)
            harness.set_viewport(driver, 1350, 1024)
        finally:
            driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                                   {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        wait(lambda: driver.current_url == server.base + "/collection?sort=title", message="back at the grid")
        grid_ready()
        wait(lambda: before in first_row_albums(), message=lambda: f"the album kept: {before} {first_row_albums()}")
        harness.set_viewport(driver, 1366, 1024)

    def test_a_flip_on_the_last_side_says_why_and_a_phone_can_stop(self):
        signed_in()
        harness.set_viewport(driver, 390, 844)
        self.assertEqual(server.call("POST", "/v1/player/play", {"albumId": server.played_album, "side": "B"})[0], 200)
        try:
            driver.get(server.base + "/collection")
            player = driver.find_element(By.ID, "player")
            wait(lambda: player.is_displayed() and "Flip side" in player.text, message="playing side B")
            revision = player.get_attribute("data-revision")
            player.find_element(By.CSS_SELECTOR, "button[aria-label=Flip]").click()
            alert = wait(lambda: player.find_elements(By.CSS_SELECTOR, ".detail[role=alert]"), message="the refusal said")
            self.assertIn("last side", alert[0].text)
            self.assertEqual(player.get_attribute("data-revision"), revision)
            # Next from the keyboard at a side's last track: Next is disabled, and Flip takes the keyboard.
            self.assertEqual(server.call("POST", "/v1/player/play", {"albumId": server.played_album})[0], 200)
            wait(lambda: "Opening" in player.text, message="side A")
            js("arguments[0].focus()", player.find_element(By.CSS_SELECTOR, "button[aria-label=Next]"))
            driver.switch_to.active_element.send_keys(Keys.ENTER)
            wait(lambda: "Second" in player.text, message="the side's last track")
            driver.switch_to.active_element.send_keys(Keys.ENTER)
            wait(lambda: js("return document.activeElement.getAttribute('aria-label')") == "Flip",
                 message=lambda: f"the keyboard on Flip: {js('return document.activeElement.outerHTML')}")
            # A phone has Stop, which takes the record off and the bar away.
            stop = player.find_element(By.CSS_SELECTOR, "button[aria-label=Stop]")
            self.assertTrue(stop.is_displayed())
            stop.click()
            wait(lambda: not player.is_displayed(), message="stopped from the phone")
        finally:
            server.call("POST", "/v1/player/stop")
            harness.set_viewport(driver, 1366, 1024)

    def test_the_tab_shown_is_drawn_again_when_asked_for(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/crates")
        wait(lambda: js("return document.querySelector('#view .view')?.dataset.ready") == "true", message="the crates")
        status, crate, _ = server.call("POST", "/v1/crates", {"name": "Made elsewhere"})
        self.assertEqual(status, 201)
        try:
            self.assertNotIn("Made elsewhere", driver.find_element(By.ID, "view").text)
            driver.find_element(By.CSS_SELECTOR, "#tabs a[data-tab=crates]").click()
            wait(lambda: "Made elsewhere" in driver.find_element(By.ID, "view").text, message="drawn again with the new crate")
            self.assertEqual(driver.current_url, server.base + "/crates")
            # Not over what is being typed: the name stays, and the page waits.
            field = driver.find_element(By.CSS_SELECTOR, "#view input[name=name]")
            field.send_keys("Half a na")
            status, second, _ = server.call("POST", "/v1/crates", {"name": "Made elsewhere too"})
            self.assertEqual(status, 201)
            driver.find_element(By.CSS_SELECTOR, "#tabs a[data-tab=crates]").click()
            time.sleep(0.5)
            self.assertEqual(driver.find_element(By.CSS_SELECTOR, "#view input[name=name]").get_attribute("value"), "Half a na")
            self.assertNotIn("Made elsewhere too", driver.find_element(By.ID, "view").text)
            server.call("DELETE", f"/v1/crates/{second['id']}")
        finally:
            server.call("DELETE", f"/v1/crates/{crate['id']}")

    def test_the_collection_drawn_again_keeps_its_place(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        before = scrolled_grid("/collection")
        driver.find_element(By.CSS_SELECTOR, "#tabs a[data-tab=collection]").click()
        wait(lambda: js("return document.querySelector('#view > .view')?.dataset.ready === 'true'"), message="drawn again")
        grid_ready()
        wait(lambda: before in first_row_albums(), message=lambda: f"the top album kept: {before} {first_row_albums()}")

    def test_a_cell_shows_what_its_grid_is_sorted_by_and_its_copies(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        js("sessionStorage.clear()")
        for sort in ["year", "rating", "dateAdded", "title"]:
            driver.get(f"{server.base}/collection?sort={sort}")
            grid_ready()
            drawn = js("""return [...document.querySelectorAll('ol.grid > li')].slice(0, 40)
                          .map((li) => [Number(li.dataset.albumId), li.querySelector('.artist').textContent]);""")
            _, page, _ = server.call("GET", f"/v1/grid/collection?sort={sort}&limit=200")
            items = {item["albumId"]: item for item in page["items"]}
            for album_id, text in drawn:
                item = items[album_id]
                lead = {"year": str(item.get("year", "Year unknown")) if item.get("year") else "Year unknown",
                        "rating": f"★ {item['rating']}" if item.get("rating") else "Not rated",
                        "dateAdded": f"Added {item['dateAdded'][:10]}"}.get(sort)
                copies = f"{item['copyCount']} copies" if item["copyCount"] > 1 else None
                expected = " · ".join(part for part in [lead, item.get("artist") or None, copies] if part)
                self.assertEqual(text, expected, f"sorted by {sort}: {item}")

    def test_the_history_shows_plays_as_they_are_written(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        server.call("POST", "/v1/player/stop")
        driver.get(server.base + "/history")
        wait(lambda: js("return document.querySelector('#view > .view')?.dataset.ready === 'true'"), message="the history")
        rows = lambda: js("return document.querySelectorAll('ol.rows > li').length")
        shown = rows()
        written = len(server.call("GET", "/v1/history?limit=200")[1]["entries"])
        self.assertEqual(server.call("POST", "/v1/player/play", {"albumId": server.short_album})[0], 200)
        try:
            wait(lambda: len(server.call("GET", "/v1/history?limit=200")[1]["entries"]) > written, timeout=10, message="a play written")
        finally:
            server.call("POST", "/v1/player/stop")
        # Without a reload: the player's events lead the page to read its newest plays again.
        wait(lambda: rows() > shown, message=lambda: f"the new play shown: {shown} {rows()}")

    def test_an_albums_play_count_follows_its_plays(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        server.call("POST", "/v1/player/stop")
        album = server.eight_second_album
        driver.get(f"{server.base}/collection/albums/{album}")
        wait(lambda: js("return document.querySelector('#view > .view')?.dataset.ready === 'true'"), message="the album's page")
        before = server.call("GET", f"/v1/albums/{album}")[1]["playCount"]
        plays = lambda: driver.find_element(By.CSS_SELECTOR, "#view p.plays").text
        said = lambda count: f"Played {count} times" if count > 1 else "Played 1 time" if count == 1 else ""
        self.assertEqual(plays(), said(before))
        # Played from the page: the count moves once half the first track is heard (4 s), without a
        # reload, while that track still plays (the player moves on at 8 s).
        driver.find_element(By.XPATH, "//button[text()='Play']").click()
        try:
            wait(lambda: plays() == said(before + 1), timeout=10, message=lambda: f"the count shown: {plays()!r} after {before}")
            state = server.call("GET", "/v1/player")[1]
            self.assertEqual((state["album"]["id"], state["trackIndex"]), (album, 1), "read as the play was written, not as the player moved on")
        finally:
            server.call("POST", "/v1/player/stop")

    def test_a_cover_reached_by_the_keyboard_is_not_left_under_the_bar(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        scrolled_grid("/collection?sort=title")
        # The cell of the row above the first one in full view: Shift+Tab's next stop, under the bar.
        placed = js("""const bar = document.getElementById('bar').getBoundingClientRect().bottom;
                       const cells = [...document.querySelectorAll('ol.grid > li')];
                       const first = cells.findIndex((li) => li.getBoundingClientRect().top >= bar);
                       const above = cells[first - Number(document.querySelector('ol.grid').dataset.columns)].querySelector('a');
                       above.focus();
                       return [above.getBoundingClientRect().top, bar];""")
        self.assertGreaterEqual(placed[0], placed[1], f"the focused cover's top and the bar's bottom: {placed}")

    def test_a_filter_that_leaves_nothing_says_so(self):
        signed_in()
        harness.set_viewport(driver, 1366, 1024)
        driver.get(server.base + "/collection?yearFrom=9000")
        wait(lambda: "No albums match these filters." in driver.find_element(By.ID, "view").text, message="the empty filtered grid")


if __name__ == "__main__":
    unittest.main(verbosity=2)
