import { describe, expect, it } from "vitest";
import {
	DEFAULT_SCORING,
	SECONDS_PER_DAY,
	SECONDS_PER_HOUR,
	decayFactor,
	exponentialFactor,
	powerLawFactor,
	reviewPriority,
	scoreAt,
	secondsUntilBelow,
	twoComponentFactor,
} from "../../src/core/decay";
import type { Scoring } from "../../src/core/types";

const H = 3 * SECONDS_PER_DAY;
const at = { "12h": 12 * SECONDS_PER_HOUR, "1d": SECONDS_PER_DAY, "3d": 3 * SECONDS_PER_DAY, "7d": 7 * SECONDS_PER_DAY, "30d": 30 * SECONDS_PER_DAY };

describe("power law (alpha 1.1, H 3 d)", () => {
	it.each([
		["12h", 0.860533],
		["1d", 0.754018],
		["3d", 0.5],
		["7d", 0.293447],
		["30d", 0.081413],
	] as const)("f(%s) = %f", (dt, expected) => {
		expect(powerLawFactor(at[dt], H, 1.1)).toBeCloseTo(expected, 6);
	});
});

describe("two components (w 0.7, fast 12 h, slow 7 d)", () => {
	// the reference column was computed with rounded rates (lambda_f 1.603e-5,
	// lambda_s 1.147e-6), as the exponential one was: with those rates the formula
	// gives the table to six decimals; with ln2/half-life exactly it is within 3e-4.
	const vectors = [
		["12h", 0.635725],
		["1d", 0.446923],
		["3d", 0.233826],
		["7d", 0.149959],
		["30d", 0.015345],
	] as const;
	it.each(vectors)("f(%s) = %f with the rounded rates", (dt, expected) => {
		expect(twoComponentFactor(at[dt], 0.7, Math.LN2 / 1.603e-5, Math.LN2 / 1.147e-6)).toBeCloseTo(expected, 6);
	});
	it.each(vectors)("f(%s) ~ %f with lf = ln2/12 h, ls = ln2/7 d", (dt, expected) => {
		const f = twoComponentFactor(at[dt], 0.7, 12 * SECONDS_PER_HOUR, 7 * SECONDS_PER_DAY);
		expect(Math.abs(f - expected)).toBeLessThan(3e-4);
	});
});

describe("exponential (H 3 d)", () => {
	it("halves at the half-life and is ~0.7937 after a day", () => {
		expect(exponentialFactor(H, H)).toBeCloseTo(0.5, 12);
		expect(exponentialFactor(at["1d"], H)).toBeCloseTo(0.7937, 4);
	});
});

describe("decayFactor follows the configured model", () => {
	const models: Scoring["decay_model"][] = ["power_law", "exponential", "two_component"];
	it.each(models)("%s: 1 at 0, decreasing, negative dt counts as 0", (model) => {
		const s = { ...DEFAULT_SCORING, decay_model: model };
		expect(decayFactor(0, s)).toBeCloseTo(1, 12);
		expect(decayFactor(-100, s)).toBeCloseTo(1, 12);
		let last = 1;
		for (let d = 1; d <= 60; d++) {
			const f = decayFactor(d * SECONDS_PER_DAY, s);
			expect(f).toBeLessThan(last);
			last = f;
		}
	});
	it("power law and exponential are 0.5 at H, two-component is not", () => {
		expect(decayFactor(H, { ...DEFAULT_SCORING, decay_model: "power_law" })).toBeCloseTo(0.5, 12);
		expect(decayFactor(H, { ...DEFAULT_SCORING, decay_model: "exponential" })).toBeCloseTo(0.5, 12);
		expect(decayFactor(H, { ...DEFAULT_SCORING, decay_model: "two_component" })).toBeCloseTo(0.233837, 5);
	});
});

describe("score = use_count^beta * f(dt) * strength (worked examples, exponential)", () => {
	const exp: Scoring = { ...DEFAULT_SCORING, decay_model: "exponential" };
	it.each([
		["A n=1, 6 h", 1, 6 * SECONDS_PER_HOUR, 1, 0.944],
		["B n=6, 2 d", 6, 2 * SECONDS_PER_DAY, 1, 1.84],
		["C n=3, 5 d, s=1.5", 3, 5 * SECONDS_PER_DAY, 1.5, 0.91],
		["D n=1, 21 d", 1, 21 * SECONDS_PER_DAY, 1, 0.0078],
		["scenario 1 n=3, 1 h, s=2", 3, SECONDS_PER_HOUR, 2, 3.82],
	] as const)("%s", (_name, n, dt, strength, expected) => {
		const got = scoreAt(dt, { useCount: n, strength }, exp);
		expect(Math.abs(got - expected) / expected).toBeLessThan(0.01);
	});
	it("a fresh note scores its strength", () => {
		expect(scoreAt(0, { useCount: 1, strength: 1.3 }, DEFAULT_SCORING)).toBeCloseTo(1.3, 12);
	});
});

describe("review priority", () => {
	it.each([
		[0.25015, 1.0],
		[0.31514, 0.57567],
		[0.17691, 0.46581],
		[0.1, 0],
		[0.4, 0],
	])("priority(%f) = %f", (score, expected) => {
		expect(reviewPriority(score, DEFAULT_SCORING)).toBeCloseTo(expected, 4);
	});
});

describe("secondsUntilBelow", () => {
	it("finds when a fresh power-law note reaches half its score", () => {
		const s = secondsUntilBelow(0.5, 0, { useCount: 1, strength: 1 }, DEFAULT_SCORING, 30 * SECONDS_PER_DAY);
		expect(s! / SECONDS_PER_DAY).toBeCloseTo(3, 4);
	});
	it("is 0 when already below and null when never within the limit", () => {
		const m = { useCount: 1, strength: 1 };
		expect(secondsUntilBelow(0.9, 10 * SECONDS_PER_DAY, m, DEFAULT_SCORING, SECONDS_PER_DAY)).toBe(0);
		expect(secondsUntilBelow(0.05, 0, m, DEFAULT_SCORING, SECONDS_PER_DAY)).toBeNull();
	});
});
