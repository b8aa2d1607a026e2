/** Draws a memory's projected-score curve as an SVG (geometry from core/curve). */
import { computeCurve, type CurveGeometry, type CurveLayout, type CurveMemory, DEFAULT_CURVE_LAYOUT } from "../core/curve";
import { formatDays, formatScore } from "../core/format";
import type { Scoring } from "../core/types";

function r(n: number): string {
	return (Math.round(n * 100) / 100).toString();
}

function hLine(svg: SVGSVGElement, cls: string, y: number, g: CurveGeometry): void {
	svg.createSvg("line", {
		cls,
		attr: { x1: r(g.plot.left), x2: r(g.plot.right), y1: r(y), y2: r(y) },
	});
}

function label(svg: SVGSVGElement, cls: string, x: number, y: number, text: string, anchor = "start"): void {
	const el = svg.createSvg("text", { cls: ["mnemovault-curve-label", cls], attr: { x: r(x), y: r(y), "text-anchor": anchor } });
	el.textContent = text;
}

/** A tick's text: a round number without trailing zeros ("0.8", "1.5"). */
function tick(n: number): string {
	return String(Number(n.toFixed(2)));
}

/**
 * The layout drawn one SVG unit to one CSS pixel at the width `parent` has, so the labels
 * are the same size (styles.css) wherever the curve is: the side panel or the review card.
 */
export function layoutFor(parent: HTMLElement, base: CurveLayout = DEFAULT_CURVE_LAYOUT): CurveLayout {
	const width = Math.round(parent.clientWidth);
	return width >= 120 ? { ...base, width } : base;
}

export function renderCurve(
	parent: HTMLElement,
	memory: CurveMemory,
	scoring: Scoring,
	nowMs: number,
	horizonDays: number,
	layout: CurveLayout = layoutFor(parent),
): { svg: SVGSVGElement; geometry: CurveGeometry } {
	const g = computeCurve(memory, scoring, nowMs, horizonDays, layout);
	const svg = parent.createSvg("svg", {
		cls: "mnemovault-curve",
		attr: {
			viewBox: `0 0 ${layout.width} ${layout.height}`,
			width: String(layout.width),
			height: String(layout.height),
			role: "img",
			"aria-label": `Projected score over the next ${g.horizonDays} days`,
			"data-y-max": String(g.yMax),
			"data-horizon-days": String(g.horizonDays),
			"data-plot-left": String(g.plot.left),
			"data-plot-right": String(g.plot.right),
			"data-plot-top": String(g.plot.top),
			"data-plot-bottom": String(g.plot.bottom),
		},
	});
	svg.createSvg("rect", {
		cls: "mnemovault-curve-danger",
		attr: {
			x: r(g.plot.left),
			y: r(g.dangerTopY),
			width: r(g.plot.right - g.plot.left),
			height: r(Math.max(0, g.dangerBottomY - g.dangerTopY)),
		},
	});
	hLine(svg, "mnemovault-curve-promote", g.promoteY, g);
	hLine(svg, "mnemovault-curve-forget", g.forgetY, g);
	svg.createSvg("line", {
		cls: "mnemovault-curve-axis",
		attr: { x1: r(g.plot.left), x2: r(g.plot.right), y1: r(g.plot.bottom), y2: r(g.plot.bottom) },
	});
	svg.createSvg("path", { cls: "mnemovault-curve-area", attr: { d: g.area } });
	svg.createSvg("path", { cls: "mnemovault-curve-line", attr: { d: g.line } });
	svg.createSvg("line", {
		cls: "mnemovault-curve-today",
		attr: { x1: r(g.today.x), x2: r(g.today.x), y1: r(g.plot.top), y2: r(g.plot.bottom) },
	});
	if (g.forgetPoint) {
		svg.createSvg("circle", {
			cls: "mnemovault-curve-forget-dot",
			attr: { cx: r(g.forgetPoint.x), cy: r(g.forgetPoint.y), r: "2.2" },
		});
	}
	svg.createSvg("circle", {
		cls: "mnemovault-curve-today-dot",
		attr: { cx: r(g.today.x), cy: r(g.today.y), r: "2.6" },
	});
	const baseline = layout.height - 3;
	label(svg, "mnemovault-curve-label-today", g.plot.left, baseline, "today");
	label(svg, "mnemovault-curve-label-end", g.plot.right, baseline, `+${formatDays(g.horizonDays)}`, "end");
	// the y scale: score 0 at the axis, the top of the plot, and the zone's band named in place
	label(svg, "mnemovault-curve-label-scale", g.plot.left - 3, g.plot.bottom + 3, "0", "end");
	label(svg, "mnemovault-curve-label-scale", g.plot.left - 3, g.plot.top + 3, tick(g.yMax), "end");
	label(svg, "mnemovault-curve-label-band", g.plot.right - 2, (g.dangerTopY + g.dangerBottomY) / 2 + 3, "danger zone", "end");
	const title = svg.createSvg("title");
	title.textContent =
		`Projected score over the next ${formatDays(g.horizonDays)} if unused. The dot is its score now; ` +
		`the shaded band is the danger zone (${formatScore(scoring.danger_zone_min)}–${formatScore(scoring.danger_zone_max)}); ` +
		`above ${formatScore(scoring.promote_threshold)} (with 2 uses) it is promoted, below ${formatScore(scoring.forget_threshold)} archived.`;
	// Threshold labels sit just right of today's marker: the curve falls from there,
	// so it is above the forget line and (in the danger zone) below the promote line.
	label(svg, "mnemovault-curve-label-promote", g.plot.left + 6, g.promoteY - 2, `promote ${formatScore(scoring.promote_threshold)}`);
	label(svg, "mnemovault-curve-label-forget", g.plot.left + 6, g.forgetY + 7, `forget ${formatScore(scoring.forget_threshold)}`);
	return { svg, geometry: g };
}

/** The key to the curve, under it: what each mark means. */
export function renderCurveLegend(parent: HTMLElement, scoring: Scoring): HTMLElement {
	const legend = parent.createDiv({ cls: "mnemovault-curve-legend" });
	const item = (cls: string, text: string) => {
		const el = legend.createSpan({ cls: "mnemovault-legend-item" });
		el.createSpan({ cls: ["mnemovault-legend-swatch", cls] });
		el.createSpan({ text });
	};
	item("is-line", "score if unused");
	item("is-now", "now");
	item("is-band", `danger zone ${formatScore(scoring.danger_zone_min)}–${formatScore(scoring.danger_zone_max)}`);
	item("is-promote", `promote ≥ ${formatScore(scoring.promote_threshold)}`);
	item("is-forget", `forgotten < ${formatScore(scoring.forget_threshold)}`);
	return legend;
}
