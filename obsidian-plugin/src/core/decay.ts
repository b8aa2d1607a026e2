/**
 * The three decay models (exponential, power-law, two-component), as pure functions,
 * the same as the engine's (vault_sync/scoring.py).
 * Times are in seconds unless a name says otherwise.
 */
import type { Scoring } from "./types";

export const SECONDS_PER_HOUR = 3600;
export const SECONDS_PER_DAY = 86400;

/** The engine's defaults, used until the daemon tells us its own. */
export const DEFAULT_SCORING: Scoring = {
	decay_model: "power_law",
	half_life_days: 3,
	pl_alpha: 1.1,
	tc_weight_fast: 0.7,
	tc_fast_half_life_hours: 12,
	tc_slow_half_life_days: 7,
	beta: 0.6,
	forget_threshold: 0.05,
	promote_threshold: 0.65,
	promote_min_uses: 2,
	danger_zone_min: 0.15,
	danger_zone_max: 0.35,
};

/** Power law: f = (1 + dt/t0)^-alpha with t0 = H / (2^(1/alpha) - 1), so f(H) = 1/2. */
export function powerLawFactor(dtSeconds: number, halfLifeSeconds: number, alpha: number): number {
	const t0 = halfLifeSeconds / (Math.pow(2, 1 / alpha) - 1);
	return Math.pow(1 + dtSeconds / t0, -alpha);
}

/** Exponential: f = exp(-ln2 / H * dt). */
export function exponentialFactor(dtSeconds: number, halfLifeSeconds: number): number {
	return Math.exp((-Math.LN2 / halfLifeSeconds) * dtSeconds);
}

/** Two components: f = w exp(-lf dt) + (1 - w) exp(-ls dt), lf = ln2/fast, ls = ln2/slow. */
export function twoComponentFactor(
	dtSeconds: number,
	weightFast: number,
	fastHalfLifeSeconds: number,
	slowHalfLifeSeconds: number,
): number {
	const lf = Math.LN2 / fastHalfLifeSeconds;
	const ls = Math.LN2 / slowHalfLifeSeconds;
	return weightFast * Math.exp(-lf * dtSeconds) + (1 - weightFast) * Math.exp(-ls * dtSeconds);
}

/** The configured model's decay factor after dt seconds (1 at 0; a negative dt counts as 0). */
export function decayFactor(dtSeconds: number, scoring: Scoring): number {
	const dt = Math.max(0, dtSeconds);
	switch (scoring.decay_model) {
		case "exponential":
			return exponentialFactor(dt, scoring.half_life_days * SECONDS_PER_DAY);
		case "two_component":
			return twoComponentFactor(
				dt,
				scoring.tc_weight_fast,
				scoring.tc_fast_half_life_hours * SECONDS_PER_HOUR,
				scoring.tc_slow_half_life_days * SECONDS_PER_DAY,
			);
		case "power_law":
		default:
			return powerLawFactor(dt, scoring.half_life_days * SECONDS_PER_DAY, scoring.pl_alpha);
	}
}

export interface MemoryInputs {
	useCount: number;
	strength: number;
}

/** score = use_count^beta * f(dt) * strength */
export function scoreAt(dtSeconds: number, memory: MemoryInputs, scoring: Scoring): number {
	return Math.pow(Math.max(0, memory.useCount), scoring.beta) * decayFactor(dtSeconds, scoring) * memory.strength;
}

/**
 * Review priority: inside the danger zone, 1 - 4(x - 0.5)^2 with x the
 * position in the zone; 0 outside.
 */
export function reviewPriority(score: number, scoring: Scoring): number {
	const lo = scoring.danger_zone_min;
	const hi = scoring.danger_zone_max;
	if (!(score >= lo && score <= hi) || hi <= lo) return 0;
	const x = (score - lo) / (hi - lo);
	return 1 - 4 * (x - 0.5) * (x - 0.5);
}

/**
 * Seconds from `fromSeconds` until the score falls to `threshold`, or null if it
 * never does within `limitSeconds` (every model decreases monotonically).
 */
export function secondsUntilBelow(
	threshold: number,
	fromSeconds: number,
	memory: MemoryInputs,
	scoring: Scoring,
	limitSeconds: number,
): number | null {
	const at = (s: number) => scoreAt(s, memory, scoring);
	if (at(fromSeconds) <= threshold) return 0;
	let lo = fromSeconds;
	let hi = fromSeconds + limitSeconds;
	if (at(hi) > threshold) return null;
	for (let i = 0; i < 60; i++) {
		const mid = (lo + hi) / 2;
		if (at(mid) > threshold) lo = mid;
		else hi = mid;
	}
	return hi - fromSeconds;
}
