// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_SCORING, SECONDS_PER_DAY, scoreAt } from "../../src/core/decay";
import type { DecayModel, Note, Scoring } from "../../src/core/types";
import { forgetEta, renderReviewList, type ReviewModel } from "../../src/ui/review-list";
import { NOW, makeNote } from "../helpers/fixtures";

function model(patch: Partial<ReviewModel> = {}): ReviewModel {
	return {
		status: "ready",
		items: [makeNote()],
		total: 1,
		nextDue: null,
		scoring: DEFAULT_SCORING,
		nowMs: NOW,
		horizonDays: 30,
		message: "",
		command: "mnemovault daemon --vault /v",
		...patch,
	};
}

function actions() {
	return {
		open: vi.fn<(n: Note) => void>(),
		remember: vi.fn<(n: Note) => void>(),
		fade: vi.fn<(n: Note) => void>(),
		promote: vi.fn<(n: Note) => void>(),
		archive: vi.fn<(n: Note) => void>(),
		refresh: vi.fn(),
	};
}

/** The curve's points, read back from the rendered SVG path. */
function curvePoints(svg: SVGSVGElement): [number, number][] {
	const d = svg.querySelector(".mnemovault-curve-line")!.getAttribute("d")!;
	return d.split(/(?=[ML])/).map((seg) => {
		const [x, y] = seg.slice(1).trim().split(" ").map(Number);
		return [x, y];
	});
}

function num(svg: Element, name: string): number {
	return Number(svg.getAttribute(`data-${name}`));
}

/** Pixel y the SVG's own scale gives to a score. */
function expectedY(svg: Element, score: number): number {
	const top = num(svg, "plot-top");
	const bottom = num(svg, "plot-bottom");
	return bottom - ((bottom - top) * score) / num(svg, "y-max");
}

function yAtDay(svg: SVGSVGElement, day: number): number {
	const left = num(svg, "plot-left");
	const right = num(svg, "plot-right");
	const x = left + ((right - left) * day) / num(svg, "horizon-days");
	const pts = curvePoints(svg);
	for (let i = 1; i < pts.length; i++) {
		const [x0, y0] = pts[i - 1];
		const [x1, y1] = pts[i];
		if (x >= x0 - 1e-6 && x <= x1 + 1e-6) return x1 === x0 ? y0 : y0 + ((x - x0) / (x1 - x0)) * (y1 - y0);
	}
	throw new Error(`day ${day} is outside the curve`);
}

describe("review list DOM", () => {
	it("renders one row per memory with title, score, priority and a curve", () => {
		const el = createDiv();
		const items = [
			makeNote({ path: "STM/a.md", title: "Alpha", score: 0.25, review_priority: 1, state: "danger" }),
			makeNote({ path: "STM/b.md", title: "Beta", score: 0.31514, review_priority: 0.57567, state: "danger" }),
		];
		renderReviewList(el, model({ items, total: 2 }), actions());
		const rows = el.querySelectorAll(".mnemovault-review-row");
		expect(rows).toHaveLength(2);
		expect(rows[0].querySelector(".mnemovault-review-title")!.textContent).toBe("Alpha");
		expect(rows[1].querySelector(".mnemovault-review-score")!.textContent).toBe("Score 0.32");
		expect(rows[1].querySelector(".mnemovault-review-priority")!.textContent).toBe("Priority 0.58");
		expect(rows[0].querySelector("svg.mnemovault-curve")).not.toBeNull();
		expect(el.querySelector(".mnemovault-review-sub")!.textContent).toBe("2 due for review");
		expect(el.innerHTML).not.toContain("style=");
	});

	it.each<DecayModel>(["power_law", "exponential"])(
		"%s: the curve of a fresh note is at its score today and at half of it after the half-life",
		(decay_model) => {
			const scoring: Scoring = { ...DEFAULT_SCORING, decay_model };
			const el = createDiv();
			renderReviewList(el, model({ scoring, items: [makeNote({ use_count: 1, strength: 1, last_used: new Date(NOW).toISOString() })] }), actions());
			const svg = el.querySelector("svg.mnemovault-curve") as SVGSVGElement;
			const score0 = scoreAt(0, { useCount: 1, strength: 1 }, scoring);
			expect(score0).toBeCloseTo(1, 12);
			const [x0, y0] = curvePoints(svg)[0];
			expect(x0).toBeCloseTo(num(svg, "plot-left"), 6);
			expect(y0).toBeCloseTo(expectedY(svg, score0), 1);
			expect(yAtDay(svg, scoring.half_life_days)).toBeCloseTo(expectedY(svg, score0 / 2), 1);
			// the today marker sits on the curve's first point
			const dot = svg.querySelector(".mnemovault-curve-today-dot")!;
			expect(Number(dot.getAttribute("cy"))).toBeCloseTo(y0, 1);
		},
	);

	it("draws the thresholds where the scale puts them", () => {
		const el = createDiv();
		renderReviewList(el, model(), actions());
		const svg = el.querySelector("svg.mnemovault-curve")!;
		const promote = svg.querySelector(".mnemovault-curve-promote")!;
		const forget = svg.querySelector(".mnemovault-curve-forget")!;
		expect(Number(promote.getAttribute("y1"))).toBeCloseTo(expectedY(svg, DEFAULT_SCORING.promote_threshold), 1);
		expect(Number(forget.getAttribute("y1"))).toBeCloseTo(expectedY(svg, DEFAULT_SCORING.forget_threshold), 1);
		expect(svg.querySelector(".mnemovault-curve-today")).not.toBeNull();
		expect(svg.querySelector(".mnemovault-curve-label-end")!.textContent).toBe("+30 d");
	});

	it("opens on click and remembers (a graded review) with the button", () => {
		const el = createDiv();
		const a = actions();
		const note = makeNote({ title: "Alpha" });
		renderReviewList(el, model({ items: [note] }), a);
		(el.querySelector(".mnemovault-review-title") as HTMLElement).click();
		const button = el.querySelector(".mnemovault-review-remember") as HTMLButtonElement;
		button.click();
		expect(a.open).toHaveBeenCalledWith(note);
		expect(a.remember).toHaveBeenCalledWith(note);
		expect(button.disabled).toBe(true);
	});

	it("shows the offline state with the command that starts the daemon", () => {
		const el = createDiv();
		const a = actions();
		renderReviewList(el, model({ status: "offline", items: [], message: "The mnemovault daemon is not running." }), a);
		expect(el.querySelector(".mnemovault-review-hint")!.textContent).toBe("mnemovault daemon --vault /v");
		expect(el.textContent.split("mnemovault daemon --vault").length).toBe(2); // the command once
		expect(el.querySelector(".mnemovault-review-row")).toBeNull();
		(el.querySelector(".mnemovault-review-offline button") as HTMLElement).click();
		expect(a.refresh).toHaveBeenCalled();
	});

	it("a refused token names the token, never 'start the daemon'", () => {
		const el = createDiv();
		const message = "The mnemovault daemon is running but refused the token (HTTP 401). Clear or correct the token override in the plugin settings; without an override, restart the daemon so it writes a fresh bridge file:";
		renderReviewList(el, model({ status: "offline", items: [], message }), actions());
		expect(el.textContent).toContain("refused the token");
		expect(el.textContent).not.toMatch(/not running|Start the daemon/);
	});

	it("says so when nothing is in the danger zone, and when the next memory is due", () => {
		const el = createDiv();
		renderReviewList(el, model({ items: [], total: 0 }), actions());
		expect(el.querySelector(".mnemovault-review-empty")!.textContent).toBe(
			"Nothing is due for review, and no memory is on its way to the danger zone.",
		);
		const due = new Date(NOW + 5 * SECONDS_PER_DAY * 1000).toISOString();
		renderReviewList(el, model({ items: [], total: 0, nextDue: due }), actions());
		expect(el.querySelector(".mnemovault-review-empty")!.textContent).toBe(
			`Nothing is due for review. The next memory enters the danger zone on ${due.slice(0, 10)} (in ~5 d).`,
		);
	});

	it("counts every memory due, not only the page it lists, with the card's and status bar's words", () => {
		const el = createDiv();
		renderReviewList(el, model({ items: [makeNote()], total: 57 }), actions());
		expect(el.querySelector(".mnemovault-review-sub")!.textContent).toBe("57 due for review");
	});

	it("estimates when a memory will be forgotten", () => {
		const exp = { ...DEFAULT_SCORING, decay_model: "exponential" as const };
		expect(forgetEta(makeNote(), exp, NOW)).toBe("forgotten in ~13 d");
		expect(forgetEta(makeNote({ last_used: null, created: null }), exp, NOW)).toBe("no date of last use");
		// past any curve horizon: still a number, never "safe" (the words do not depend on the horizon)
		const strong = makeNote({ use_count: 8, strength: 2, last_used: new Date(NOW).toISOString() });
		expect(forgetEta(strong, exp, NOW)).toMatch(/^forgotten in ~\d+ d$/);
		const danger = makeNote({ state: "danger", score: 0.25, use_count: 1, last_used: new Date(NOW - 6 * SECONDS_PER_DAY * 1000).toISOString() });
		expect(forgetEta(danger, DEFAULT_SCORING, NOW)).toMatch(/^forgotten in ~\d+ d$/);
		const old = makeNote({ last_used: new Date(NOW - 40 * SECONDS_PER_DAY * 1000).toISOString() });
		expect(forgetEta(old, exp, NOW)).toBe("below the forget threshold");
	});
});
