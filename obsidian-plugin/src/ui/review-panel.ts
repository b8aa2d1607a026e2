/**
 * Keeps a review list element in step with the ReviewStore: changes are merged and
 * applied once per animation frame, and only the rows whose note changed are redrawn.
 */
import type { ReviewChange, ReviewState } from "../core/review-store";
import { listKey, renderReviewList, updateRows, type ReviewActions, type ReviewModel } from "./review-list";

export type FrameScheduler = (run: () => void) => void;

export interface ReviewPanelDeps {
	subscribe(listener: (state: ReviewState, change: ReviewChange) => void): () => void;
	model(state: ReviewState): ReviewModel;
	actions: ReviewActions;
	frame: FrameScheduler;
}

/** Merges two pending changes: "all" wins, rows add up. */
export function mergeChange(a: ReviewChange | null, b: ReviewChange): ReviewChange {
	if (!a) return b;
	if (a.kind === "all") return a;
	if (b.kind === "all") return b;
	return { kind: "rows", paths: Array.from(new Set([...a.paths, ...b.paths])) };
}

export class ReviewPanel {
	/** Counters for tests and diagnostics. */
	readonly stats = { frames: 0, fullRenders: 0, rowRenders: 0 };
	private pending: ReviewChange | null = null;
	private state: ReviewState | null = null;
	private unsubscribe: (() => void) | null = null;

	constructor(
		private readonly el: HTMLElement,
		private readonly deps: ReviewPanelDeps,
	) {}

	start(): void {
		this.unsubscribe = this.deps.subscribe((state, change) => this.changed(state, change));
	}

	stop(): void {
		this.unsubscribe?.();
		this.unsubscribe = null;
		this.pending = null;
	}

	/** Everything again (the clock moved: every curve and ETA shifts). */
	redrawAll(): void {
		if (this.state) this.changed(this.state, { kind: "all" });
	}

	private changed(state: ReviewState, change: ReviewChange): void {
		this.state = state;
		const scheduled = this.pending !== null;
		this.pending = mergeChange(this.pending, change);
		if (scheduled) return;
		this.stats.frames++;
		this.deps.frame(() => this.flush());
	}

	/** The row focused now (path and place): a redraw keeps the focus there, or on the next row. */
	private focusedRow(): { path: string | null; index: number } | null {
		const rows = Array.from(this.el.querySelectorAll<HTMLElement>(".mnemovault-review-row"));
		const at = rows.findIndex((r) => r.contains(document.activeElement));
		if (at < 0) return null;
		return { path: rows[at].getAttribute("data-path"), index: at };
	}

	private refocus(was: { path: string | null; index: number }): void {
		const rows = Array.from(this.el.querySelectorAll<HTMLElement>(".mnemovault-review-row"));
		const same = rows.find((r) => r.getAttribute("data-path") === was.path);
		(same ?? rows[Math.min(was.index, rows.length - 1)] ?? this.el.querySelector<HTMLElement>("button"))?.focus();
	}

	/** A key through the view's scope; true when it was ours. */
	key(key: string): boolean {
		if (!this.state) return false;
		return listKey(this.el, key, this.state.items, this.deps.actions);
	}

	flush(): void {
		const change = this.pending;
		const state = this.state;
		this.pending = null;
		if (!change || !state || !this.unsubscribe) return;
		const model = this.deps.model(state);
		if (change.kind === "all") {
			const focus = this.focusedRow();
			renderReviewList(this.el, model, this.deps.actions);
			this.stats.fullRenders++;
			if (focus) this.refocus(focus);
		} else {
			this.stats.rowRenders += updateRows(this.el, change.paths, model, this.deps.actions);
		}
	}
}
