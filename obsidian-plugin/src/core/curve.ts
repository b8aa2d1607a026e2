/**
 * Geometry of a memory's projected-score curve: pure numbers, no DOM.
 * Day 0 is "now"; the curve runs to `horizonDays` days ahead.
 */
import { SECONDS_PER_DAY, scoreAt } from "./decay";
import type { Scoring } from "./types";

export interface CurveLayout {
	width: number;
	height: number;
	padLeft: number;
	padRight: number;
	padTop: number;
	padBottom: number;
}

export const DEFAULT_CURVE_LAYOUT: CurveLayout = {
	width: 260,
	height: 110,
	padLeft: 26,
	padRight: 6,
	padTop: 8,
	padBottom: 18,
};

export interface CurveMemory {
	useCount: number;
	strength: number;
	/** Milliseconds since the epoch, or null when the note has no usable timestamp. */
	lastUsedMs: number | null;
	/** What to draw (flat) when there is no timestamp to project from. */
	fallbackScore: number | null;
}

export interface CurvePoint {
	day: number;
	score: number;
	x: number;
	y: number;
}

export interface CurveGeometry {
	layout: CurveLayout;
	horizonDays: number;
	/** Top of the y axis, in score units (the bottom is 0). */
	yMax: number;
	points: CurvePoint[];
	/** SVG path data of the curve. */
	line: string;
	/** SVG path data of the area under the curve. */
	area: string;
	forgetY: number;
	promoteY: number;
	dangerTopY: number;
	dangerBottomY: number;
	today: CurvePoint;
	/** Where the curve first reaches the forget threshold, if inside the horizon. */
	forgetPoint: CurvePoint | null;
	plot: { left: number; right: number; top: number; bottom: number };
}

export function xForDay(day: number, horizonDays: number, layout: CurveLayout): number {
	const left = layout.padLeft;
	const right = layout.width - layout.padRight;
	return left + ((right - left) * day) / horizonDays;
}

export function yForScore(score: number, yMax: number, layout: CurveLayout): number {
	const top = layout.padTop;
	const bottom = layout.height - layout.padBottom;
	const clamped = Math.min(Math.max(score, 0), yMax);
	return bottom - ((bottom - top) * clamped) / yMax;
}

/** Inverse of yForScore inside the plot (used by tests and tooltips). */
export function scoreForY(y: number, yMax: number, layout: CurveLayout): number {
	const top = layout.padTop;
	const bottom = layout.height - layout.padBottom;
	return ((bottom - y) * yMax) / (bottom - top);
}

function fmt(n: number): string {
	return (Math.round(n * 100) / 100).toString();
}

/** The top of the y axis: the smallest round number (a step of 0.1 up to 1, then 0.5, 1…) at or above `value`. */
export function roundTop(value: number): number {
	const step = value <= 1 ? 0.1 : value <= 5 ? 0.5 : Math.pow(10, Math.floor(Math.log10(value)));
	return Math.ceil(value / step - 1e-9) * step;
}

export function projectedScore(memory: CurveMemory, scoring: Scoring, nowMs: number, day: number): number {
	if (memory.lastUsedMs === null) return memory.fallbackScore ?? 0;
	const dt = (nowMs - memory.lastUsedMs) / 1000 + day * SECONDS_PER_DAY;
	return scoreAt(dt, { useCount: memory.useCount, strength: memory.strength }, scoring);
}

export function computeCurve(
	memory: CurveMemory,
	scoring: Scoring,
	nowMs: number,
	horizonDays: number,
	layout: CurveLayout = DEFAULT_CURVE_LAYOUT,
	segments = 120,
): CurveGeometry {
	const days = Math.max(1, horizonDays);
	const scores: { day: number; score: number }[] = [];
	for (let i = 0; i <= segments; i++) {
		const day = (days * i) / segments;
		scores.push({ day, score: projectedScore(memory, scoring, nowMs, day) });
	}
	const peak = Math.max(...scores.map((s) => s.score));
	// headroom over the highest mark, rounded up so the top tick reads as a round number
	const yMax = roundTop(Math.max(peak, scoring.promote_threshold, scoring.danger_zone_max) * 1.05);
	const toPoint = (s: { day: number; score: number }): CurvePoint => ({
		day: s.day,
		score: s.score,
		x: xForDay(s.day, days, layout),
		y: yForScore(s.score, yMax, layout),
	});
	const points = scores.map(toPoint);
	const line = points.map((p, i) => `${i === 0 ? "M" : "L"}${fmt(p.x)} ${fmt(p.y)}`).join(" ");
	const bottom = layout.height - layout.padBottom;
	const first = points[0];
	const last = points[points.length - 1];
	const area = `${line} L${fmt(last.x)} ${fmt(bottom)} L${fmt(first.x)} ${fmt(bottom)} Z`;
	let forgetPoint: CurvePoint | null = null;
	for (let i = 1; i < scores.length; i++) {
		const a = scores[i - 1];
		const b = scores[i];
		if (a.score > scoring.forget_threshold && b.score <= scoring.forget_threshold) {
			const t = (a.score - scoring.forget_threshold) / (a.score - b.score);
			forgetPoint = toPoint({ day: a.day + t * (b.day - a.day), score: scoring.forget_threshold });
			break;
		}
	}
	return {
		layout,
		horizonDays: days,
		yMax,
		points,
		line,
		area,
		forgetY: yForScore(scoring.forget_threshold, yMax, layout),
		promoteY: yForScore(scoring.promote_threshold, yMax, layout),
		dangerTopY: yForScore(scoring.danger_zone_max, yMax, layout),
		dangerBottomY: yForScore(scoring.danger_zone_min, yMax, layout),
		today: first,
		forgetPoint,
		plot: { left: layout.padLeft, right: layout.width - layout.padRight, top: layout.padTop, bottom },
	};
}
