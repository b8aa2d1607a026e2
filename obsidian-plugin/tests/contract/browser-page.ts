/**
 * The release bundle (main.js) on a page of headless Chromium, talking to a real daemon:
 * shared by the browser tests of the review flow. File reads and HTTP go through the test
 * process (tests/browser/runtime.ts), so main.js reaches the daemon as in the app.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, readdir, realpath, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";
import type { HttpRequest } from "../../src/core/bridge-client";
import { nodeHttpRequester } from "../../src/platform/node-http";
import { tempDir } from "../helpers/fixtures";
import type { RealDaemon } from "./real-daemon";

export const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
export const SHOTS = join(ROOT, "tests/browser/screenshots");
export const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

export interface Bundle {
	browser: Browser;
	bundle: string;
	runtime: string;
	css: string;
}

/** Builds main.js as `npm run build` does, the page's runtime, and starts Chromium. */
export async function launch(): Promise<Bundle> {
	execFileSync(process.execPath, [join(ROOT, "esbuild.config.mjs"), "production"], { cwd: ROOT, stdio: "ignore" });
	const bundle = await readFile(join(ROOT, "main.js"), "utf8");
	const built = await esbuild.build({
		entryPoints: [join(ROOT, "tests/browser/runtime.ts")],
		bundle: true,
		format: "iife",
		write: false,
		platform: "browser",
		target: "es2021",
	});
	const css = (await readFile(join(ROOT, "tests/browser/theme.css"), "utf8")) + (await readFile(join(ROOT, "styles.css"), "utf8"));
	const browser = await chromium.launch({
		executablePath: CHROMIUM,
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
	});
	return { browser, bundle, runtime: built.outputFiles[0].text, css };
}

/** A page with the plugin loaded on the daemon's vault (`data`: the plugin's saved settings). */
export async function openPage(b: Bundle, d: RealDaemon, theme: "dark" | "light", data: unknown = null): Promise<Page> {
	const page = await b.browser.newPage({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 2 });
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
	const html = `<!doctype html><html><head><meta charset="utf-8"><style>${b.css}</style></head>
<body class="theme-${theme}"><div id="modals"></div><div class="scene side" id="side"></div>
<script>${b.runtime}</script></body></html>`;
	const file = join(await tempDir("mnemovault-bundle-"), "page.html");
	await writeFile(file, html);
	await page.goto(`file://${file}`);
	await page.waitForSelector("body[data-ready=yes]");
	const vault = await realpath(d.vault);
	const contents: Record<string, string> = {};
	for (const name of await readdir(join(vault, "STM"))) {
		if (name.endsWith(".md")) contents[`STM/${name}`] = await readFile(join(vault, "STM", name), "utf8");
	}
	await page.evaluate(
		({ hashes, code, opts }) => {
			window.mvHashes = hashes;
			return window.mvBoot(code, opts);
		},
		{
			hashes: { [vault]: createHash("sha256").update(vault, "utf8").digest("hex") },
			code: b.bundle,
			opts: { vault, configDir: d.configDir, contents, data },
		},
	);
	expect(errors).toEqual([]);
	return page;
}

/** Opens a side view of the plugin (its registered factory) in the page's side pane. */
export async function openSideView(page: Page, type: string): Promise<void> {
	await page.evaluate(async (t) => {
		const side = document.getElementById("side")!;
		side.replaceChildren();
		const factory = window.mvPlugin.views.get(t)!;
		const leaf = new window.mvObsidian.WorkspaceLeaf();
		leaf.app = window.mvApp;
		const view = factory(leaf) as { containerEl: HTMLElement; onOpen(): Promise<void> };
		side.appendChild(view.containerEl);
		await view.onOpen();
	}, type);
}

/** The card's path and the focused element's action, as a person sees them. */
export async function where(page: Page) {
	return page.evaluate(() => {
		const card = document.querySelector<HTMLElement>(".mnemovault-card");
		const active = document.activeElement as HTMLElement | null;
		return {
			path: card?.dataset.path ?? null,
			title: card?.querySelector(".mnemovault-card-title")?.textContent ?? null,
			focus: active?.dataset.action ?? active?.className ?? null,
			inModal: Boolean(active && active.closest(".modal")),
			modalOpen: Boolean(document.querySelector(".modal")),
			busy: Boolean(card?.querySelector("button:disabled")),
			summary: card?.querySelector(".mnemovault-card-summary")?.textContent ?? null,
			offline: Boolean(card?.querySelector(".mnemovault-card-offline")),
			done: card?.querySelector(".mnemovault-card-done")?.textContent ?? null,
			next: card?.querySelector(".mnemovault-card-next")?.textContent ?? null,
			count: card?.querySelector(".mnemovault-card-count")?.textContent ?? null,
			error: card?.querySelector(".mnemovault-card-error")?.textContent ?? null,
			confirm: card?.querySelector(".mnemovault-card-confirm-text")?.textContent ?? null,
			undo: Boolean(card?.querySelector("[data-action=undo]")),
			eta: card?.querySelector(".mnemovault-card-eta")?.textContent ?? null,
		};
	});
}

export type Where = Awaited<ReturnType<typeof where>>;

/** Presses a key and waits until the flow has settled (no request running) and `until` holds. */
export async function press(page: Page, key: string, until: (w: Where) => boolean): Promise<Where> {
	await page.keyboard.press(key);
	const start = Date.now();
	for (;;) {
		const w = await where(page);
		if (!w.busy && until(w)) return w;
		if (Date.now() - start > 20_000) throw new Error(`after ${key}: ${JSON.stringify(w)}`);
		await page.waitForTimeout(50);
	}
}
