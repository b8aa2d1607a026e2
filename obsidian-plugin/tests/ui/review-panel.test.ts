// @vitest-environment happy-dom
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_SCORING } from "../../src/core/decay";
import { ReviewStore, type ReviewSource } from "../../src/core/review-store";
import type { Note } from "../../src/core/types";
import { nodeTimers } from "../../src/platform/node-env";
import { ReviewPanel } from "../../src/ui/review-panel";
import { NOW, makeNote, makeStatus } from "../helpers/fixtures";
import { waitFor } from "../helpers/wait";

function setup(items: Note[]) {
	let current = items;
	const calls = { review: 0 };
	const src: ReviewSource = {
		review: async () => {
			calls.review++;
			return { items: current };
		},
		status: async () => makeStatus("/v"),
	};
	const store = new ReviewStore(src, nodeTimers(), () => "offline", 50, 20);
	const frames: (() => void)[] = [];
	const el = createDiv();
	const act = () => vi.fn<(n: Note) => void>();
	const actions = { open: act(), remember: act(), fade: act(), promote: act(), archive: act(), refresh: vi.fn() };
	const panel = new ReviewPanel(el, {
		subscribe: (l) => store.subscribe(l),
		model: (s) => ({ ...s, nowMs: NOW, horizonDays: 30, command: "h", scoring: DEFAULT_SCORING }),
		actions,
		frame: (run) => frames.push(run),
	});
	const runFrames = () => frames.splice(0).forEach((f) => f());
	return { store, panel, el, calls, runFrames, frames, actions, setItems: (n: Note[]) => (current = n) };
}

const rows = (el: HTMLElement) => Array.from(el.querySelectorAll<HTMLElement>(".mnemovault-review-row"));

describe("ReviewPanel redraws", () => {
	const a = makeNote({ path: "STM/a.md", title: "A", score: 0.3, state: "danger", review_priority: 0.9 });
	const b = makeNote({ path: "STM/b.md", title: "B", score: 0.35, state: "danger", review_priority: 0.5 });

	it("1,000 unrelated score_changed events redraw nothing, not even after the refresh they cause", async () => {
		const t = setup([a, b]);
		await t.store.refresh();
		t.panel.start();
		t.runFrames();
		expect(t.panel.stats).toEqual({ frames: 1, fullRenders: 1, rowRenders: 0 });
		const list = t.el.querySelector(".mnemovault-review-list");
		const before = rows(t.el);
		for (let i = 0; i < 1000; i++) {
			t.store.handleEvent({ type: "score_changed", data: { path: `STM/other-${i}.md`, id: null, score: 0.9, state: "fresh" } });
		}
		// the burst may bring a new note into the queue: one debounced refresh, same answer
		await waitFor(() => t.calls.review === 2, 2000, "debounced refresh");
		await sleep(30);
		expect(t.frames).toHaveLength(0);
		t.runFrames();
		expect(t.panel.stats).toEqual({ frames: 1, fullRenders: 1, rowRenders: 0 });
		expect(t.el.querySelector(".mnemovault-review-list")).toBe(list);
		expect(rows(t.el)).toEqual(before);
	});

	it("a burst on one listed note redraws that row once, in one frame, and leaves the other row alone", async () => {
		const t = setup([a, b]);
		await t.store.refresh();
		t.panel.start();
		t.runFrames();
		const [rowA, rowB] = rows(t.el);
		for (let i = 0; i < 50; i++) {
			t.store.handleEvent({ type: "score_changed", data: { path: "STM/b.md", id: null, score: 0.2 + i / 1000, state: "danger" } });
		}
		expect(t.frames).toHaveLength(1);
		t.runFrames();
		expect(t.panel.stats).toEqual({ frames: 2, fullRenders: 1, rowRenders: 1 });
		const [newA, newB] = rows(t.el);
		expect(newA).toBe(rowA);
		expect(newB).not.toBe(rowB);
		expect(newB.querySelector(".mnemovault-review-score")!.textContent).toBe("Score 0.25");
	});

	it("a refresh that adds a note redraws the whole list once", async () => {
		const t = setup([a]);
		await t.store.refresh();
		t.panel.start();
		t.runFrames();
		t.setItems([a, b]);
		await t.store.refresh();
		t.runFrames();
		expect(t.panel.stats.fullRenders).toBe(2);
		expect(rows(t.el).map((r) => r.dataset.path)).toEqual(["STM/a.md", "STM/b.md"]);
	});

	it("keyboard (the view's scope): arrows move between rows, r/f/p/a/Enter act on the focused row", async () => {
		const t = setup([a, b]);
		await t.store.refresh();
		t.panel.start();
		t.runFrames();
		const [rowA, rowB] = rows(t.el);
		document.body.appendChild(t.el);
		rowA.focus();
		expect(t.panel.key("ArrowDown")).toBe(true);
		expect(document.activeElement).toBe(rowB);
		// p asks first (a promotion cannot be undone here); a second p promotes
		expect(t.panel.key("p")).toBe(true);
		expect(t.actions.promote).not.toHaveBeenCalled();
		expect(rowB.querySelector(".mnemovault-review-confirm")!.textContent).toContain("Press p again to promote.");
		for (const k of ["p", "r", "f", "a", "Enter"]) expect(t.panel.key(k)).toBe(true);
		expect(rowB.querySelector(".mnemovault-review-confirm")).toBeNull();
		expect(t.panel.key("x")).toBe(false);
		expect(t.actions.remember.mock.calls[0][0].path).toBe("STM/b.md");
		expect(t.actions.fade.mock.calls[0][0].path).toBe("STM/b.md");
		expect(t.actions.promote.mock.calls[0][0].path).toBe("STM/b.md");
		expect(t.actions.archive.mock.calls[0][0].path).toBe("STM/b.md");
		expect(t.actions.open.mock.calls[0][0].path).toBe("STM/b.md");
		t.panel.key("k");
		expect(document.activeElement).toBe(rowA);
		t.el.remove();
	});

	it("after an action takes the focused row out of the queue, the focus is on the next row, never the page", async () => {
		const c = makeNote({ path: "STM/c.md", title: "C", score: 0.2, state: "danger", review_priority: 0.3 });
		const t = setup([a, b, c]);
		await t.store.refresh();
		t.panel.start();
		t.runFrames();
		document.body.appendChild(t.el);
		rows(t.el)[1].focus();
		for (const [left, next] of [[[a, c], "STM/c.md"], [[a], "STM/a.md"]] as const) {
			t.setItems([...left]);
			await t.store.refresh();
			t.runFrames();
			expect(document.activeElement).not.toBe(document.body);
			expect((document.activeElement as HTMLElement).dataset.path).toBe(next);
			expect(t.panel.key("r")).toBe(true); // and the keys go on working
		}
		t.el.remove();
	});
});
