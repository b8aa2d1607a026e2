/**
 * The plugin's decay model against the engine's own numbers: decay-cases.json is written by
 * the engine (`python tests/decay_cases.py --write`; a Python test fails when it is stale),
 * so a curve or a countdown on a card can never disagree with the scores the daemon writes.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decayFactor, reviewPriority, scoreAt, secondsUntilBelow } from "../../src/core/decay";
import type { Scoring } from "../../src/core/types";

interface Point {
	use_count: number;
	strength: number;
	age_s: number;
	factor: number;
	score: number;
	review_priority: number;
}

interface Due {
	use_count: number;
	strength: number;
	review_s: number | null;
	archive_s: number | null;
}

interface Profile {
	scoring: Scoring;
	points: Point[];
	due: Due[];
}

const cases = JSON.parse(readFileSync(new URL("./decay-cases.json", import.meta.url), "utf-8")) as {
	profiles: Profile[];
};
const THOUSAND_YEARS = 1000 * 365 * 86400;

/** Equal to a relative 1e-9 (an absolute 1e-12 near zero). */
function close(actual: number, expected: number): boolean {
	return Math.abs(actual - expected) <= Math.max(1e-12, 1e-9 * Math.abs(expected));
}

describe("the engine's golden decay cases", () => {
	it("cover every model and both sides of the danger zone", () => {
		const models = new Set(cases.profiles.map((p) => p.scoring.decay_model));
		expect([...models].sort()).toEqual(["exponential", "power_law", "two_component"]);
		const priorities = cases.profiles.flatMap((p) => p.points.map((x) => x.review_priority));
		expect(priorities.some((v) => v > 0)).toBe(true);
		expect(priorities.some((v) => v === 0)).toBe(true);
	});

	describe.each(cases.profiles.map((p, i) => [`${i}: ${p.scoring.decay_model}`, p] as const))("profile %s", (_name, profile) => {
		it("gives the engine's factor, score and review priority at every point", () => {
			const wrong = profile.points.filter((pt) => {
				const memory = { useCount: pt.use_count, strength: pt.strength };
				return (
					!close(decayFactor(pt.age_s, profile.scoring), pt.factor) ||
					!close(scoreAt(pt.age_s, memory, profile.scoring), pt.score) ||
					!close(reviewPriority(pt.score, profile.scoring), pt.review_priority)
				);
			});
			expect(wrong).toEqual([]);
		});

		it("counts down to the engine's review and archive instants", () => {
			for (const due of profile.due) {
				const memory = { useCount: due.use_count, strength: due.strength };
				const cases = [
					[profile.scoring.danger_zone_max, due.review_s],
					[profile.scoring.forget_threshold, due.archive_s],
				] as const;
				for (const [threshold, expected] of cases) {
					const got = secondsUntilBelow(threshold, 0, memory, profile.scoring, THOUSAND_YEARS);
					if (expected === null) expect(got).toBeNull();
					else expect(Math.abs((got ?? Number.NaN) - expected)).toBeLessThanOrEqual(Math.max(1, 1e-6 * expected));
				}
			}
		});
	});
});
