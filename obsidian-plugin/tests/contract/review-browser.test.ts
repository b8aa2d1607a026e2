/**
 * The release bundle (main.js, built as `npm run build` builds it) in headless Chromium
 * against the real daemon: a person reviews twelve memories by keyboard alone, in the
 * dark and the light theme, while the daemon goes away and comes back midway; the counts
 * the flow shows are then checked against the vault's files. Screenshots go to
 * tests/browser/screenshots/ (git-ignored) for the developer to look at.
 */
import { mkdir, readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, SHOTS, launch, openPage as open, openSideView, press, where, type Bundle } from "./browser-page";
import { runPython, startRealDaemon, type RealDaemon } from "./real-daemon";

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

let b: Bundle;

describe.skipIf(!CHROMIUM)("main.js in headless Chromium against the real daemon", () => {
	beforeAll(async () => {
		await mkdir(SHOTS, { recursive: true });
		b = await launch();
	}, 120_000);

	afterAll(async () => {
		await b?.browser.close();
	});

	const openPage = (d: RealDaemon, theme: "dark" | "light"): Promise<Page> => open(b, d, theme);

	for (const theme of ["dark", "light"] as const) {
		it(`${theme} theme: twelve memories by keyboard, the daemon away and back midway, counts equal the vault`, async () => {
			const d = await startRealDaemon({ prepare: (python, vault) => void runPython(python, PREPARE, [vault, ...FACTS]) });
			try {
				const before = await vaultState(d.vault);
				expect(before.size).toBe(12);
				const page = await openPage(d, theme);
				// the review queue side view, keyed through its scope
				await openSideView(page, "mnemovault-review");
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
				// a promotion asks first; Enter presses the focused "Promote"
				w = await press(page, "p", (x) => x.confirm !== null);
				expect(w.focus).toBe("confirm");
				await step("Enter");
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
