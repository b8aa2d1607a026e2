import { describe, expect, it } from "vitest";
import { DEFAULT_CURVE_LAYOUT, computeCurve, scoreForY, xForDay, yForScore } from "../../src/core/curve";
import { DEFAULT_SCORING, SECONDS_PER_DAY, scoreAt } from "../../src/core/decay";
import { NOW } from "../helpers/fixtures";

const fresh = { useCount: 1, strength: 1, lastUsedMs: NOW, fallbackScore: null };

describe("computeCurve", () => {
	it("starts at today's score and halves at the half-life (power law)", () => {
		const g = computeCurve(fresh, DEFAULT_SCORING, NOW, 30);
		expect(g.today.day).toBe(0);
		expect(g.today.score).toBeCloseTo(1, 12);
		const atH = g.points.find((p) => Math.abs(p.day - 3) < 1e-9)!;
		expect(atH.score).toBeCloseTo(0.5, 9);
		expect(scoreForY(atH.y, g.yMax, g.layout)).toBeCloseTo(0.5, 9);
		expect(atH.x).toBeCloseTo(xForDay(3, 30, DEFAULT_CURVE_LAYOUT), 9);
	});

	it("projects from last_used, not from now", () => {
		const twoDaysAgo = { ...fresh, useCount: 3, lastUsedMs: NOW - 2 * SECONDS_PER_DAY * 1000 };
		const g = computeCurve(twoDaysAgo, DEFAULT_SCORING, NOW, 10);
		expect(g.today.score).toBeCloseTo(scoreAt(2 * SECONDS_PER_DAY, { useCount: 3, strength: 1 }, DEFAULT_SCORING), 12);
	});

	it("keeps thresholds inside the plot and orders them", () => {
		const g = computeCurve(fresh, DEFAULT_SCORING, NOW, 30);
		expect(g.promoteY).toBeLessThan(g.dangerTopY);
		expect(g.dangerTopY).toBeLessThan(g.dangerBottomY);
		expect(g.dangerBottomY).toBeLessThan(g.forgetY);
		expect(g.forgetY).toBeLessThan(g.plot.bottom);
		expect(g.promoteY).toBeGreaterThan(g.plot.top);
		for (const p of g.points) {
			expect(p.y).toBeGreaterThanOrEqual(g.plot.top);
			expect(p.y).toBeLessThanOrEqual(g.plot.bottom);
		}
	});

	it("marks where the curve crosses the forget threshold", () => {
		const g = computeCurve(fresh, { ...DEFAULT_SCORING, decay_model: "exponential" }, NOW, 30);
		expect(g.forgetPoint).not.toBeNull();
		// exp(-ln2/3 d) = 0.05  =>  d = 3 * log2(20)
		expect(g.forgetPoint!.day).toBeCloseTo(3 * Math.log2(20), 1);
	});

	it("draws a flat line when the note has no timestamp", () => {
		const g = computeCurve({ useCount: 1, strength: 1, lastUsedMs: null, fallbackScore: 0.3 }, DEFAULT_SCORING, NOW, 30);
		expect(new Set(g.points.map((p) => p.y)).size).toBe(1);
		expect(g.today.score).toBe(0.3);
	});

	it("builds path data that starts with a move and closes the area", () => {
		const g = computeCurve(fresh, DEFAULT_SCORING, NOW, 30);
		expect(g.line.startsWith("M")).toBe(true);
		expect(g.line.split("L")).toHaveLength(g.points.length);
		expect(g.area.endsWith("Z")).toBe(true);
	});

	it("maps scores to y and back", () => {
		for (const s of [0, 0.2, 0.65, 1]) {
			expect(scoreForY(yForScore(s, 1.2, DEFAULT_CURVE_LAYOUT), 1.2, DEFAULT_CURVE_LAYOUT)).toBeCloseTo(s, 12);
		}
	});
});
