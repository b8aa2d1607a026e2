/**
 * The plugin's UI in a real browser: headless Chromium (Debian's /usr/bin/chromium, driven
 * by playwright-core; never a downloaded browser) renders the status bar, the review view,
 * the review flow and the related panel with the real styles.css, the test clicks and
 * types through them, and keeps screenshots in docs/. Skipped, saying so, without Chromium.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/fixtures";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
if (!CHROMIUM) console.warn("browser test SKIPPED: no Chromium at /usr/bin/chromium (apt-get install chromium)");

let browser: Browser;
let page: Page;

/** Into docs/ (the README's pictures) and tests/browser/screenshots/ (git-ignored, to look at). */
async function shot(selector: string, name: string): Promise<void> {
	const png = await page.locator(selector).screenshot({ path: join(ROOT, "docs", name) });
	await mkdir(join(ROOT, "tests/browser/screenshots"), { recursive: true });
	await writeFile(join(ROOT, "tests/browser/screenshots", name), png);
}

describe.skipIf(!CHROMIUM)("plugin UI in headless Chromium", () => {
	beforeAll(async () => {
		const built = await esbuild.build({
			entryPoints: [join(ROOT, "tests/browser/harness.ts")],
			bundle: true,
			format: "iife",
			write: false,
			platform: "browser",
			target: "es2021",
		});
		const css = await readFile(join(ROOT, "styles.css"), "utf8");
		const theme = await readFile(join(ROOT, "tests/browser/theme.css"), "utf8");
		const html = `<!doctype html><html><head><meta charset="utf-8"><style>${theme}\n${css}</style></head>
<body class="theme-dark">
<div class="scene" id="statusbar-scene"><div class="status-bar" id="statusbar"></div></div><br>
<div class="scene side" id="review-scene"><div id="review"></div></div>
<div class="scene" id="card-scene"><div class="modal" tabindex="-1"><div class="modal-title">Review memories</div><div id="card"></div></div></div>
<div class="scene side" id="related-scene"><div id="related"></div></div>
<div class="scene note" id="note-scene"><div class="view-content" id="note"><div class="markdown-preview-view"><h2>Prefers Python</h2>
<p>The user prefers Python for backend services and scripts.</p></div></div><div class="status-bar" id="note-status"></div></div>
<script>${built.outputFiles[0].text}</script></body></html>`;
		const file = join(await tempDir("mnemovault-browser-"), "ui.html");
		await writeFile(file, html);
		browser = await chromium.launch({
			executablePath: CHROMIUM,
			args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
		});
		page = await browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 2 });
		const errors: string[] = [];
		page.on("pageerror", (e) => errors.push(e.message));
		await page.goto(`file://${file}`);
		await page.waitForSelector("body[data-ready=yes]");
		expect(errors).toEqual([]);
	}, 60_000);

	afterAll(async () => {
		await browser?.close();
	});

	const log = () => page.evaluate(() => window.mvLog.slice());

	it("status bar: score, queue count and a distinct token message, styled by the real CSS", async () => {
		const texts = await page.locator("#statusbar > div").allTextContents();
		expect(texts).toEqual(["Memory 0.31 · danger zone", "4 due for review", "Mnemovault daemon: token refused"]);
		// styles.css is applied: the danger state has its own colour, not the default text colour
		const colors = await page.locator("#statusbar > div").evaluateAll((els) => els.map((e) => getComputedStyle(e).color));
		expect(colors[0]).not.toBe(colors[1]);
		await shot("#statusbar-scene", "status-bar.png");
	});

	it("review view: rows with curves; keyboard moves and acts; a score event redraws one row", async () => {
		await page.waitForSelector("#review .mnemovault-review-row");
		const rows = page.locator("#review .mnemovault-review-row");
		expect(await rows.count()).toBe(4);
		expect(await page.locator("#review svg.mnemovault-curve").count()).toBe(4);
		const box = await rows.first().boundingBox();
		expect(box!.height).toBeGreaterThan(60); // the curve is laid out, not collapsed
		await rows.first().focus();
		await page.keyboard.press("ArrowDown");
		await page.keyboard.press("r");
		const second = await rows.nth(1).getAttribute("data-path");
		expect(await log()).toContain(`remember ${second}`);
		await rows.nth(2).locator(".mnemovault-review-remember").click();
		expect((await log()).at(-1)).toBe(`remember ${await rows.nth(2).getAttribute("data-path")}`);
		await shot("#review-scene", "review-view.png");
		// a burst of events for one listed note: one frame, one row redrawn, the rest untouched
		const stats = await page.evaluate(async (path) => {
			const before = { ...window.mvPanel.stats };
			for (let i = 0; i < 100; i++) {
				window.mvStore.handleEvent({ type: "score_changed", data: { path, id: null, score: 0.2 + i / 1000, state: "danger" } });
				window.mvStore.handleEvent({ type: "score_changed", data: { path: `STM/other-${i}.md`, id: null, score: 0.9, state: "fresh" } });
			}
			await new Promise((r) => window.requestAnimationFrame(() => window.requestAnimationFrame(r)));
			return { before, after: { ...window.mvPanel.stats } };
		}, second!);
		expect(stats.after.frames - stats.before.frames).toBe(1);
		expect(stats.after.rowRenders - stats.before.rowRenders).toBe(1);
		expect(stats.after.fullRenders).toBe(stats.before.fullRenders);
		expect(await rows.nth(1).locator(".mnemovault-review-score").textContent()).toBe("Score 0.30");
	});

	it("review flow: the card shows text, curve and history; keys and buttons move through the queue", async () => {
		const title = page.locator("#card .mnemovault-card-title");
		const first = await title.textContent();
		expect(await page.locator("#card .mnemovault-card-text").textContent()).toMatch(/\w/);
		expect(await page.locator("#card svg.mnemovault-curve").count()).toBe(1);
		expect(await page.locator("#card .mnemovault-card-history dt").allTextContents()).toEqual([
			"Uses",
			"Last used",
			"Created",
			"Archive on",
		]);
		await shot("#card-scene", "review-flow.png");
		await page.locator("#card-scene .modal").focus();
		await page.keyboard.press("s");
		expect(await title.textContent()).not.toBe(first);
		await page.locator('#card button[data-action="remember"]').click();
		await page.keyboard.press("a");
		await page.keyboard.press("p");
		expect(await page.locator("#card .mnemovault-card-summary").textContent()).toBe(
			"This pass: 1 remembered, 1 promoted, 1 archived, 1 skipped.",
		);
	});

	it("related panel: similarity and state per memory; click opens", async () => {
		const rows = page.locator("#related .mnemovault-related-row");
		expect(await rows.count()).toBe(3);
		expect(await page.locator("#related .mnemovault-related-heading").textContent()).toBe("Related to Auth");
		expect(await page.locator("#related .mnemovault-related-left").textContent()).toBe("1 less than 30% similar not shown.");
		expect(await rows.first().locator(".mnemovault-related-sim").textContent()).toBe("81% similar");
		expect(await rows.first().getAttribute("draggable")).toBe("true");
		await shot("#related-scene", "related-panel.png");
		await rows.nth(1).click();
		expect((await log()).at(-1)).toBe("open LTM/Auth tokens live 15 minutes.md");
	});

	it("superseded note: a banner at the top links to the successor; the status bar says superseded", async () => {
		const banner = page.locator("#note > .mnemovault-superseded-banner");
		expect(await banner.count()).toBe(1);
		expect(await page.locator("#note > *").first().getAttribute("class")).toBe("mnemovault-superseded-banner");
		expect(await banner.textContent()).toBe("Superseded This memory no longer holds; see Prefers Go for backend services.");
		// styled by styles.css: a coloured edge and its own background, above the note's text
		const style = await banner.evaluate((e) => ({ border: getComputedStyle(e).borderLeftWidth, bg: getComputedStyle(e).backgroundColor }));
		expect(style.border).toBe("3px");
		expect(style.bg).not.toBe("rgba(0, 0, 0, 0)");
		const bannerBox = (await banner.boundingBox())!;
		const textBox = (await page.locator("#note .markdown-preview-view").boundingBox())!;
		expect(bannerBox.y + bannerBox.height).toBeLessThanOrEqual(textBox.y);
		const status = page.locator("#note-status .mnemovault-status");
		expect(await status.textContent()).toBe("Memory superseded");
		expect(await status.evaluate((e) => getComputedStyle(e).textDecorationLine)).toBe("line-through");
		await shot("#note-scene", "superseded-note.png");
		await banner.locator("a.mnemovault-superseded-link").click();
		expect((await log()).at(-1)).toBe("open STM/Prefers Go for backend services.md");
	});
});
