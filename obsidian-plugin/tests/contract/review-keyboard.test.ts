/**
 * The traps of the review flow, each driven by keyboard on the release bundle in headless
 * Chromium against the real daemon: Enter presses the focused button (and never closes the
 * review), a promotion asks first and Undo shows only when it can act, a failed action names
 * its memory and stays on its card, one count with one label, a forecast that never says
 * "safe" in the danger zone, the empty queue's next due date, the curve's labels one size,
 * related rows reached and opened by keys (the LTM index note and a chosen folder left out),
 * and a wrong setting explained under it. Screenshots go to tests/browser/screenshots/.
 */
import { mkdir, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, SHOTS, launch, openPage, openSideView, press, where, type Bundle } from "./browser-page";
import { runPython, startRealDaemon } from "./real-daemon";

const DUE = ["Staging DB is rebuilt every Sunday night", "Ana prefers PR reviews before noon", "Backups are kept for 35 days", "Design reviews need two approvals"];

/** Four memories in the danger zone; fresh ones on their way to it; related notes by tags. */
const PREPARE = `
import sys
from datetime import timedelta
from pathlib import Path
from vault_sync.dates import utc_now
from vault_sync.service import MemoryService
from vault_sync.settings import load_settings
vault = Path(sys.argv[1]); (vault / "STM" / "Drafts").mkdir(parents=True); (vault / "LTM").mkdir()
svc = MemoryService(load_settings(vault=vault, index_path=vault.parent / "prepare.sqlite3", embeddings=False))
now = utc_now()
for i, fact in enumerate(sys.argv[2:]):
    svc.create_memory(fact + ".", title=fact, tags=["review-test"], created=now - timedelta(days=40),
                      last_used=now - timedelta(days=6.5 + i * 0.6))
svc.create_memory("Kafka lag alert fires at 5000.", title="Kafka lag alert", tags=["kafka"], last_used=now - timedelta(hours=3))
svc.create_memory("Kafka retention is 7 days.", title="Kafka retention", tags=["kafka"], last_used=now - timedelta(hours=1))
svc.close()
fm = "---\\nid: {}\\ntags: [kafka]\\nuse_count: 1\\n---\\n{}\\n"
(vault / "LTM" / "LTM Index.md").write_text(fm.format("idx00001", "# LTM Index\\n\\n- [[Kafka retention]]"))
(vault / "STM" / "Drafts" / "Kafka draft.md").write_text(fm.format("drf00001", "A draft about Kafka."))
`;

let b: Bundle;

async function statusCount(page: Page): Promise<string> {
	return page.evaluate(() => window.mvPlugin.statusBarItems.find((el) => el.classList.contains("mnemovault-queue"))?.textContent ?? "");
}

/** The rendered height of a curve label (its font size on screen), and the top tick's text. */
async function curveLabels(page: Page, scope: string) {
	return page.evaluate((sel) => {
		const root = document.querySelector(sel)!;
		const today = root.querySelector(".mnemovault-curve-label-today")!.getBoundingClientRect().height;
		const scale = Array.from(root.querySelectorAll(".mnemovault-curve-label-scale")).map((e) => e.textContent);
		return { today, top: scale[1] ?? null, band: root.querySelector(".mnemovault-curve-label-band")?.textContent ?? null };
	}, scope);
}

/** Presses Tab until `selector` has the focus (at most `most` times). */
async function tabTo(page: Page, selector: string, most = 30): Promise<void> {
	for (let i = 0; i < most; i++) {
		if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
		await page.keyboard.press("Tab");
	}
	throw new Error(`Tab never reached ${selector}`);
}

describe.skipIf(!CHROMIUM)("the review flow's traps, by keyboard, on main.js against the real daemon", () => {
	beforeAll(async () => {
		await mkdir(SHOTS, { recursive: true });
		b = await launch();
	}, 120_000);

	afterAll(async () => {
		await b?.browser.close();
	});

	it("Enter, confirm, undo, errors, counts, forecast, next due, curve, related rows and settings", async () => {
		const d = await startRealDaemon({ prepare: (python, vault) => void runPython(python, PREPARE, [vault, ...DUE]) });
		try {
			const page = await openPage(b, d, "dark", { relatedExcludedFolders: "STM/Drafts" });
			// the side panel: one count, labelled; every forecast a number (30-day horizon or not)
			await openSideView(page, "mnemovault-review");
			await page.waitForSelector("#side .mnemovault-review-row");
			expect(await page.textContent("#side .mnemovault-review-sub")).toBe("4 due for review");
			await expect.poll(() => statusCount(page)).toBe("4 due for review");
			const etas = await page.$$eval("#side .mnemovault-review-eta", (els) => els.map((e) => e.textContent));
			expect(etas).toHaveLength(4);
			for (const eta of etas) expect(eta).toMatch(/^forgotten in ~\d+ d$/);
			const side = await curveLabels(page, "#side");
			expect(side.top).toMatch(/^\d+(\.\d)?$/); // a round top tick
			expect(side.band).toBe("danger zone");
			await page.locator("#side").screenshot({ path: join(SHOTS, "keys-panel.png") });
			// a row by keys: Tab reaches it, Enter opens its note
			await tabTo(page, "#side .mnemovault-review-row");
			const rowPath = await page.evaluate(() => (document.activeElement as HTMLElement).dataset.path);
			await page.keyboard.press("Enter");
			await expect.poll(() => page.evaluate(() => window.mvApp.workspace.opened.at(-1))).toBe(rowPath);

			// the flow
			await page.evaluate(() => window.mvPlugin.commands.find((c) => c.id === "review-memories")!.callback!());
			await page.waitForSelector(".mnemovault-card-title");
			let w = await where(page);
			expect(w.count).toBe("4 due for review");
			expect(await statusCount(page)).toBe(w.count);
			expect(w.eta).toMatch(/^forgotten in ~\d+ d$/);
			expect(await page.textContent(".mnemovault-card-meta")).toContain("danger zone");
			const card = await curveLabels(page, ".modal");
			expect(Math.abs(card.today - side.today)).toBeLessThan(0.6); // the same size in both
			expect(card.top).toMatch(/^\d+(\.\d)?$/);
			await page.locator(".modal").screenshot({ path: join(SHOTS, "keys-card.png") });

			// Enter presses the focused button (Remember): the review goes on, it does not close
			expect(w.focus).toBe("remember");
			const first = w.path;
			w = await press(page, "Enter", (x) => x.path !== first);
			expect(w.modalOpen && w.inModal).toBe(true);
			expect(w.summary).toBe("This pass: 1 remembered.");
			expect(await page.evaluate(() => window.mvApp.workspace.opened.length)).toBe(1); // nothing opened
			// one count everywhere, after every action
			w = await press(page, "Tab", (x) => x.count === "3 due for review");
			expect(await statusCount(page)).toBe("3 due for review");
			// Tab on to Archive, then Enter: archived, still in the review
			await tabTo(page, ".modal [data-action=archive]");
			const second = w.path;
			w = await press(page, "Enter", (x) => x.path !== second);
			expect(w.modalOpen).toBe(true);
			expect(w.summary).toBe("This pass: 1 remembered, 1 archived.");
			expect(w.undo).toBe(true); // an archive can be undone: Undo is offered

			// p asks first; n says no; p and Enter promote; then no Undo, and u does nothing
			const third = w.path;
			w = await press(page, "p", (x) => x.confirm !== null);
			expect(w.confirm).toContain(`"${w.title}"`);
			expect(w.focus).toBe("confirm");
			await page.locator(".modal").screenshot({ path: join(SHOTS, "keys-confirm.png") });
			w = await press(page, "n", (x) => x.confirm === null);
			expect(w.path).toBe(third);
			expect(w.summary).toBe("This pass: 1 remembered, 1 archived.");
			await press(page, "p", (x) => x.confirm !== null);
			w = await press(page, "Enter", (x) => x.path !== third);
			expect(w.summary).toBe("This pass: 1 remembered, 1 promoted, 1 archived.");
			expect(w.undo).toBe(false);
			w = await press(page, "u", () => true);
			expect(w.summary).toBe("This pass: 1 remembered, 1 promoted, 1 archived.");

			// an error names its memory and stays on its card: the note is gone under the flow
			const fourth = w.path!;
			const title = w.title!;
			await unlink(join(d.vault, fourth));
			// the daemon's watcher sees the delete (on a loaded machine not at once): then the queue is empty
			await expect.poll(async () => (await d.client.review(50)).items.some((n) => n.path === fourth), { timeout: 30_000 }).toBe(false);
			w = await press(page, "r", (x) => x.error !== null);
			expect(w.error).toMatch(new RegExp(`^Could not remember "${title}": `));
			expect(w.path).toBe(fourth);
			expect(w.title).toBe(title);
			await page.locator(".modal").screenshot({ path: join(SHOTS, "keys-error.png") });
			// skipping it moves on: the queue is empty, and the card says when the next one is due
			w = await press(page, "s", (x) => x.done !== null);
			expect(w.done).toBe("Nothing left to review.");
			expect(w.next).toMatch(/^Nothing is due for review\. The next memory enters the danger zone on \d{4}-\d{2}-\d{2} \(in ~\d+ [dh]\)\.$/);
			await page.locator(".modal").screenshot({ path: join(SHOTS, "keys-done.png") });
			await page.keyboard.press("Escape");
			await expect.poll(() => page.evaluate(() => document.querySelector(".modal") === null)).toBe(true);
			await expect.poll(() => page.textContent("#side .mnemovault-review-empty")).toMatch(/The next memory enters the danger zone on /);
			expect(await statusCount(page)).toBe("");

			// related rows: the LTM index note and the chosen folder left out; Tab and Enter open one
			const stm = await readdir(join(d.vault, "STM"));
			const named = (start: string) => `STM/${stm.find((n) => n.startsWith(start))!}`;
			await page.evaluate((path) => {
				window.mvApp.workspace.activeFile = new window.mvObsidian.TFile(path);
			}, named("Kafka lag"));
			await openSideView(page, "mnemovault-related");
			await page.waitForSelector("#side .mnemovault-related-row");
			const related = await page.$$eval("#side .mnemovault-related-row", (els) => els.map((e) => (e as HTMLElement).dataset.path));
			expect(related).toEqual([named("Kafka retention")]);
			await tabTo(page, "#side .mnemovault-related-row");
			await page.keyboard.press("Enter");
			await expect.poll(() => page.evaluate(() => window.mvApp.workspace.opened.at(-1))).toBe(named("Kafka retention"));
			await page.locator("#side").screenshot({ path: join(SHOTS, "keys-related.png") });

			// a wrong setting is explained under it, by the keyboard alone
			await page.evaluate(() => {
				const tab = window.mvPlugin.settingTabs[0] as { containerEl: HTMLElement; display(): void };
				document.getElementById("side")!.replaceChildren(tab.containerEl);
				tab.display();
			});
			await tabTo(page, "#side input[placeholder='30']");
			await page.keyboard.press("Control+A");
			await page.keyboard.type("0");
			const shown = () => page.$$eval("#side .mnemovault-setting-error:not(.mnemovault-hidden)", (els) => els.map((e) => e.textContent));
			expect(await shown()).toEqual(["Enter a number of days from 1 to 365."]);
			await page.locator("#side").screenshot({ path: join(SHOTS, "keys-settings.png") });
			await page.keyboard.press("Control+A");
			await page.keyboard.type("14");
			expect(await shown()).toEqual([]);
			await page.close();
		} finally {
			await d.stop();
		}
	}, 240_000);
});
