"""Chromium pages at the server's origin with the browser SDK that the server serves
(/sdk/sluice.js) loaded: the SDK as an app gets it, not a copy."""

import contextlib

from playwright.async_api import async_playwright

from chromium import CHROMIUM, CHROMIUM_ARGS


@contextlib.asynccontextmanager
async def sdk_pages(server, count: int, console: list, init_script: str | None = None, page_path: str = "/sdk-test.html"):
    """`count` pages in one Chromium, each with `window.Sluice` ready; console lines and page
    errors go to `console`, whose last 30 lines are printed at the end; `init_script` runs
    before the SDK in each page."""
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            pages = []
            for i in range(count):
                page = await browser.new_page()
                page.on("console", lambda m, i=i: console.append(f"page {i} {m.type}: {m.text}"))
                page.on("pageerror", lambda e, i=i: console.append(f"page {i} pageerror: {e}"))
                if init_script:
                    await page.add_init_script(init_script)
                # Only this page is served by Playwright; the SDK comes from the server.
                await page.route(server.http_url + page_path, lambda route: route.fulfill(
                    status=200, content_type="text/html",
                    body='<!doctype html><title>sdk</title><script src="/sdk/sluice.js"></script>'))
                await page.goto(server.http_url + page_path)
                await page.wait_for_function("!!window.Sluice")
                pages.append(page)
            yield pages
        finally:
            await browser.close()
            if console:
                print("chromium console:", *console[-30:], sep="\n  ")
