/**
 * The release bundle (main.js, built as `npm run build` builds it) in headless Chromium
 * against the real daemon: a person reviews twelve memories by keyboard alone, in the
 * dark and the light theme, while the daemon goes away and comes back midway; the counts
 * the flow shows are then checked against the vault's files. Screenshots go to
 * tests/browser/screenshots/ (git-ignored) for the developer to look at.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, realpath, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpRequest } from "../../src/core/bridge-client";
import { nodeHttpRequester } from "../../src/platform/node-http";
import { tempDir } from "../helpers/fixtures";
import { runPython, startRealDaemon, type RealDaemon } from "./real-daemon";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const SHOTS = join(ROOT, "tests/browser/screenshots");
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

const FACTS = [
	"The VPN split tunnel excludes the build farm",
	"Staging DB is rebuilt every Sunday night",
	"Ana prefers PR reviews before noon",
	"Rate limit on the billing API is 50 req/s",
	"The office wifi password rotates monthly",
	"Grafana alerts go to the ops-pager channel",
	"Feature flags are cleaned up each quarter",
	"The mobile release train leaves on Thursdays",
	"Design reviews need two approvals",
	"Backups are kept for 35 days",
	"The coffee grinder setting for pour-over is 18",
	"Sourdough starter is fed at 8am",
];

/** Twelve short-term memories in the danger zone (scores 0.18-0.33), none a promotion candidate. */
const PREPARE = `
import sys
from datetime import timedelta
from pathlib import Path
from vault_sync.dates import utc_now
from vault_sync.service import MemoryService
from vault_sync.settings import load_settings
vault = Path(sys.argv[1]); (vault / "STM").mkdir(parents=True)
svc = MemoryService(load_settings(vault=vault, index_path=vault.parent / "prepare.sqlite3", embeddings=False))
now = utc_now()
for i, fact in enumerate(sys.argv[2:]):
    svc.create_memory(fact + ".", title=fact, tags=["review-test"], created=now - timedelta(days=40),
                      last_used=now - timedelta(days=6.5 + i * 0.6))
svc.close()
`;

interface Front {
	last_used: string;
	use_count: number;
}

/** The owned keys the test compares, read from the vault's files (path -> values). */
async function vaultState(vault: string): Promise<Map<string, Front & { folder: string }>> {
	const out = new Map<string, Front & { folder: string }>();
	for (const folder of ["STM", "LTM", "Archive"]) {
		const names = await readdir(join(vault, folder)).catch(() => [] as string[]);
		for (const name of names.filter((n) => n.endsWith(".md"))) {
			const text = await readFile(join(vault, folder, name), "utf8");
			const last = /^last_used: (.+)$/m.exec(text)?.[1];
			const uses = /^use_count: (\d+)$/m.exec(text)?.[1];
			if (last && uses) out.set(name, { last_used: last.replace(/['"]/g, ""), use_count: Number(uses), folder });
		}
	}
	return out;
}

let browser: Browser;
let bundle = "";
let runtime = "";
let css = "";

describe.skipIf(!CHROMIUM)("main.js in headless Chromium against the real daemon", () => {
	beforeAll(async () => {
		execFileSync(process.execPath, [join(ROOT, "esbuild.config.mjs"), "production"], { cwd: ROOT, stdio: "ignore" });
		bundle = await readFile(join(ROOT, "main.js"), "utf8");
		const built = await esbuild.build({
			entryPoints: [join(ROOT, "tests/browser/runtime.ts")],
			bundle: true,
			format: "iife",
			write: false,
			platform: "browser",
			target: "es2021",
		});
		runtime = built.outputFiles[0].text;
		css = (await readFile(join(ROOT, "tests/browser/theme.css"), "utf8")) + (await readFile(join(ROOT, "styles.css"), "utf8"));
		await mkdir(SHOTS, { recursive: true });
		browser = await chromium.launch({
			executablePath: CHROMIUM,
			args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
		});
	}, 120_000);

	afterAll(async () => {
		await browser?.close();
	});

	async function openPage(d: RealDaemon, theme: "dark" | "light"): Promise<Page> {
		const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 2 });
		const errors: string[] = [];
		page.on("pageerror", (e) => errors.push(e.message));
		const http = nodeHttpRequester();
		await page.exposeFunction("mvNode", async (op: string, arg: unknown) => {
			if (op === "readFile") return readFile(arg as string, "utf8");
			if (op === "readdir") return readdir(arg as string);
			if (op === "realpath") return realpath(arg as string);
			if (op === "http") {
				const r = arg as { url: string; method: "GET" | "POST"; headers: Record<string, string>; body?: string };
				const req: HttpRequest = { url: r.url, method: r.method, headers: { ...r.headers }, body: r.body };
				if (r.body !== undefined) req.headers["Content-Type"] = "application/json";
				return http(req);
			}
			throw new Error(`unknown op ${op}`);
		});
		const html = `<!doctype html><html><head><meta charset="utf-8"><style>${css}</style></head>
<body class="theme-${theme}"><div id="modals"></div><div class="scene side" id="side"></div>
<script>${runtime}</script></body></html>`;
		const file = join(await tempDir("mnemovault-bundle-"), "page.html");
		await writeFile(file, html);
		await page.goto(`file://${file}`);
		await page.waitForSelector("body[data-ready=yes]");
		const vault = await realpath(d.vault);
		const contents: Record<string, string> = {};
		for (const name of await readdir(join(vault, "STM"))) contents[`STM/${name}`] = await readFile(join(vault, "STM", name), "utf8");
		await page.evaluate(
			({ hashes, code, opts }) => {
				window.mvHashes = hashes;
				return window.mvBoot(code, opts);
			},
			{
				hashes: { [vault]: createHash("sha256").update(vault, "utf8").digest("hex") },
				code: bundle,
				opts: { vault, configDir: d.configDir, contents, data: null },
			},
		);
		expect(errors).toEqual([]);
		return page;
	}

	/** The card's path and the focused element's action, as a person sees them. */
	async function where(page: Page) {
		return page.evaluate(() => {
			const card = document.querySelector<HTMLElement>(".mnemovault-card");
			const active = document.activeElement as HTMLElement | null;
			return {
				path: card?.dataset.path ?? null,
				title: card?.querySelector(".mnemovault-card-title")?.textContent ?? null,
				focus: active?.dataset.action ?? active?.className ?? null,
				inModal: Boolean(active && active.closest(".modal")),
				busy: Boolean(card?.querySelector("button:disabled")),
				summary: card?.querySelector(".mnemovault-card-summary")?.textContent ?? null,
				offline: Boolean(card?.querySelector(".mnemovault-card-offline")),
				done: card?.querySelector(".mnemovault-card-done")?.textContent ?? null,
			};
		});
	}

	/** Presses a key and waits until the flow has settled (no request running). */
	async function press(page: Page, key: string, until: (w: Awaited<ReturnType<typeof where>>) => boolean) {
		await page.keyboard.press(key);
		const start = Date.now();
		for (;;) {
			const w = await where(page);
			if (!w.busy && until(w)) return w;
			if (Date.now() - start > 20_000) throw new Error(`after ${key}: ${JSON.stringify(w)}`);
			await page.waitForTimeout(50);
		}
	}

	for (const theme of ["dark", "light"] as const) {
		it(`${theme} theme: twelve memories by keyboard, the daemon away and back midway, counts equal the vault`, async () => {
			const d = await startRealDaemon({ prepare: (python, vault) => void runPython(python, PREPARE, [vault, ...FACTS]) });
			try {
				const before = await vaultState(d.vault);
				expect(before.size).toBe(12);
				const page = await openPage(d, theme);
				// the review queue side view, keyed through its scope
				await page.evaluate(async () => {
					const factory = window.mvPlugin.views.get("mnemovault-review")!;
					const leaf = new window.mvObsidian.WorkspaceLeaf();
					const view = factory(leaf) as { containerEl: HTMLElement; onOpen(): Promise<void> };
					document.getElementById("side")!.appendChild(view.containerEl);
					await view.onOpen();
				});
				await page.waitForSelector("#side .mnemovault-review-row");
				await page.locator("#side").screenshot({ path: join(SHOTS, `review-queue-${theme}.png`) });
				// the flow, by its command (a hotkey in the app); from here on only keys
				await page.evaluate(() => window.mvPlugin.commands.find((c) => c.id === "review-memories")!.callback!());
				await page.waitForSelector(".mnemovault-card-title");
				let w = await where(page);
				expect(w.focus).toBe("remember");
				await page.locator(".modal").screenshot({ path: join(SHOTS, `review-card-${theme}.png`) });
				const moved = (from: string | null) => (x: typeof w) => x.path !== from;
				const step = async (key: string) => {
					const from = (await where(page)).path;
					w = await press(page, key, moved(from));
					// the focus is on the next card's first action (or the one way on), inside the modal
					expect(w.inModal).toBe(true);
					return w;
				};
				for (const key of ["r", "f", "s", "a"]) await step(key);
				expect(w.focus).toBe("remember");
				w = await press(page, "u", (x) => x.summary === "This pass: 1 remembered, 1 let fade, 1 skipped.");
				await step("r");
				await step("p");
				// the daemon goes away
				await d.down();
				w = await press(page, "r", (x) => x.offline);
				expect(w.focus).toBe("retry");
				expect(w.summary).toContain("This pass: 2 remembered, 1 let fade, 1 promoted, 1 skipped.");
				await page.locator(".modal").screenshot({ path: join(SHOTS, `review-offline-${theme}.png`) });
				await page.keyboard.press("a"); // no card: nothing may happen
				await page.keyboard.press("f");
				// and comes back
				await d.up();
				// Try again (Enter) until it answers: its bridge file may come a moment before it listens
				for (let i = 0; ; i++) {
					await page.keyboard.press("Enter");
					if (await page.waitForSelector(".mnemovault-card-title", { timeout: 3000 }).then(() => true, () => false)) break;
					if (i === 10) throw new Error(`still offline: ${JSON.stringify(await where(page))}`);
				}
				// nothing was counted meanwhile: this r is the first since
				w = await press(page, "r", (x) => x.summary !== "This pass: 2 remembered, 1 let fade, 1 promoted, 1 skipped.");
				expect(w.summary).toBe("This pass: 3 remembered, 1 let fade, 1 promoted, 1 skipped.");
				expect(w.focus).toBe("remember");
				for (const key of ["a", "f", "r", "s", "ArrowRight", "r"]) await step(key);
				expect(w.done).toMatch(/skipped memories are still due/);
				w = await press(page, "Enter", (x) => x.title !== null);
				for (;;) {
					w = await step("r");
					if (w.done !== null) break;
				}
				expect(w.done).toBe("Nothing left to review.");
				await page.locator(".modal").screenshot({ path: join(SHOTS, `review-done-${theme}.png`) });
				const summary = /This pass: (\d+) remembered, (\d+) let fade, (\d+) promoted, (\d+) archived\./.exec(w.summary ?? "");
				expect(summary, w.summary ?? "").not.toBeNull();
				const [remembered, faded, promoted, archived] = summary!.slice(1).map(Number);
				// what the vault holds now
				const after = await vaultState(d.vault);
				const inFolder = (f: string) => [...after.values()].filter((v) => v.folder === f).length;
				expect(inFolder("Archive")).toBe(archived);
				expect(inFolder("LTM")).toBe(promoted);
				const stm = [...after.entries()].filter(([, v]) => v.folder === "STM");
				const later = stm.filter(([n, v]) => Date.parse(v.last_used) > Date.parse(before.get(n)!.last_used)).length;
				const earlier = stm.filter(([n, v]) => Date.parse(v.last_used) < Date.parse(before.get(n)!.last_used)).length;
				expect(later).toBe(remembered);
				expect(earlier).toBe(faded);
				expect(remembered + faded + promoted + archived).toBe(12);
				// a review is not a use, and never a promotion candidate
				expect(stm.every(([n, v]) => v.use_count === before.get(n)!.use_count)).toBe(true);
				expect((await d.client.promoteAuto(true)).candidates).toEqual([]);
				await page.close();
			} finally {
				await d.stop();
			}
		}, 180_000);
	}
});
