// Renders the review queue with sample data into an HTML page and screenshots it with
// headless Chromium: docs/review-view.png. Not part of the test run.
//   node scripts/screenshot.mjs [path/to/chromium]
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const chromium = process.argv[2] ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
if (!chromium) {
	console.error("Chromium not found: apt-get install -y chromium, or pass its path.");
	process.exit(1);
}

const entry = `
import { installObsidianDom } from "./tests/mocks/obsidian-dom";
import { DEFAULT_SCORING, reviewPriority, scoreAt } from "./src/core/decay";
import { renderReviewList } from "./src/ui/review-list";

installObsidianDom(document);
const now = Date.parse("2026-11-22T12:00:00Z");
const day = 86400;
const samples = [
	["Auth service signs JWTs with RS256", 2, 13.5, 1.0],
	["Staging DB is rebuilt every Sunday night", 3, 30, 1.1],
	["Ana prefers PR reviews before noon", 1, 8.3, 1.0],
	["Rate limit on the billing API is 50 req/s", 4, 25, 0.9],
];
const items = samples
	.map(([title, n, daysAgo, strength], i) => {
		const score = scoreAt(daysAgo * day, { useCount: n, strength }, DEFAULT_SCORING);
		return {
			path: "STM/sample-" + i + ".md", id: String(i), kind: "stm", title, status: "active", tags: [],
			use_count: n, strength, last_used: new Date(now - daysAgo * day * 1000).toISOString(),
			created: null, decay_score: score, score, review_priority: reviewPriority(score, DEFAULT_SCORING),
			state: "danger", problems: [],
		};
	})
	.sort((a, b) => b.review_priority - a.review_priority);
const el = document.getElementById("view");
renderReviewList(el, { status: "ready", items, scoring: DEFAULT_SCORING, nowMs: now, horizonDays: 30, message: "", hint: "" },
	{ open() {}, reinforce() {}, refresh() {} });
`;

const work = await mkdtemp(join(tmpdir(), "mnemovault-shot-"));
try {
	const built = await esbuild.build({
		stdin: { contents: entry, resolveDir: root, loader: "ts" },
		bundle: true,
		format: "iife",
		write: false,
		platform: "browser",
	});
	const css = await readFile(join(root, "styles.css"), "utf8");
	// A stand-in for Obsidian's default dark theme variables.
	const theme = `
body { margin: 0; background: #1e1e1e; font-family: -apple-system, "Segoe UI", Inter, Roboto, sans-serif; }
.theme-dark {
	--background-primary: #1e1e1e; --background-primary-alt: #242424; --background-secondary: #262626;
	--background-modifier-border: #363636; --text-normal: #dadada; --text-muted: #a3a3a3; --text-faint: #6f6f6f;
	--text-accent: #a68af9; --text-error: #fb464c; --interactive-accent: #8a5cf5;
	--color-green: #44cf6e; --color-orange: #e9973f; --color-red: #fb464c;
	--font-ui-smaller: 11px; --font-ui-small: 13px; --font-ui-medium: 15px; --font-semibold: 600; --font-medium: 500;
	--font-interface: -apple-system, "Segoe UI", Inter, Roboto, sans-serif; --font-monospace: "DejaVu Sans Mono", monospace;
	--size-2-1: 2px; --size-2-2: 4px; --size-4-2: 8px; --size-4-3: 12px; --size-4-4: 16px;
	--radius-s: 4px; --radius-m: 8px;
	color: var(--text-normal);
}
.panel { width: 380px; min-height: 100vh; background: var(--background-primary); border-right: 1px solid var(--background-modifier-border); }
button { background: #363636; color: var(--text-normal); border: none; border-radius: var(--radius-s); cursor: pointer; }
.clickable-icon { background: transparent; color: var(--text-muted); font-size: 16px; }
`;
	const html = `<!doctype html><html><head><meta charset="utf-8"><style>${theme}\n${css}</style></head>
<body class="theme-dark"><div class="panel"><div id="view"></div></div><script>${built.outputFiles[0].text}</script></body></html>`;
	const page = join(work, "review.html");
	await writeFile(page, html);
	const out = join(root, "docs", "review-view.png");
	execFileSync(chromium, [
		"--headless",
		"--no-sandbox",
		"--disable-gpu",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--no-first-run",
		"--hide-scrollbars",
		"--force-device-scale-factor=2",
		`--user-data-dir=${join(work, "profile")}`,
		`--screenshot=${out}`,
		"--window-size=380,720",
		`file://${page}`,
	], { stdio: "inherit", timeout: 60000 });
	process.stdout.write(`wrote ${out}\n`);
} finally {
	await rm(work, { recursive: true, force: true });
}
