/**
 * State of the review queue, shared by every open review view: refreshed on demand,
 * and (debounced) on every bridge event that may change it.
 */
import { BridgeOfflineError, type BridgeClient } from "./bridge-client";
import type { OfflineInfo } from "./connection";
import { DEFAULT_SCORING } from "./decay";
import { debounceLatest, type Timers } from "./timers";
import { EVENT_TYPES, type BridgeEvent, type Note, type Scoring } from "./types";

export type ReviewSource = Pick<BridgeClient, "review" | "status">;

export interface ReviewState {
	status: "loading" | "ready" | "offline" | "error";
	items: Note[];
	/** Every memory due for review (the daemon's total; may exceed the page in `items`). */
	total: number;
	/** When the next memory enters the danger zone if unused (ISO), or null. */
	nextDue: string | null;
	scoring: Scoring;
	/** Whether `scoring` came from the daemon (else the engine's defaults). */
	scoringKnown: boolean;
	message: string;
	/** Offline: the one command that fixes it (shown once, apart from the message). */
	command: string | null;
}

/** Every change that can move a note in or out of the queue (all but reports of problems). */
const REFRESHING_EVENTS = new Set<BridgeEvent["type"]>(
	EVENT_TYPES.filter((type) => type !== "problem" && type !== "background_error" && type !== "job"),
);

/** What a listener must redraw: everything, or only the rows of these paths. */
export type ReviewChange = { kind: "all" } | { kind: "rows"; paths: string[] };

/** Fields a row shows; a refresh that changes none of them redraws nothing. */
function sameRow(a: Note, b: Note): boolean {
	return (
		a.path === b.path &&
		a.title === b.title &&
		a.score === b.score &&
		a.decay_score === b.decay_score &&
		a.state === b.state &&
		a.review_priority === b.review_priority &&
		a.use_count === b.use_count &&
		a.strength === b.strength &&
		a.last_used === b.last_used
	);
}

/** The smallest redraw that turns `before` into `after`, or null when nothing shows differently. */
export function diffItems(before: Note[], after: Note[]): ReviewChange | null {
	if (before.length !== after.length || before.some((n, i) => n.path !== after[i].path)) return { kind: "all" };
	const paths = after.filter((n, i) => !sameRow(before[i], n)).map((n) => n.path);
	return paths.length ? { kind: "rows", paths } : null;
}

export class ReviewStore {
	private current: ReviewState = {
		status: "loading",
		items: [],
		total: 0,
		nextDue: null,
		scoring: DEFAULT_SCORING,
		scoringKnown: false,
		message: "",
		command: null,
	};
	private readonly listeners = new Set<(state: ReviewState, change: ReviewChange) => void>();
	private readonly debounced: () => Promise<void>;

	constructor(
		private readonly source: ReviewSource,
		timers: Timers,
		private readonly offlineInfo: () => OfflineInfo | string,
		private readonly limit = 50,
		debounceMs = 300,
	) {
		this.debounced = debounceLatest(() => this.refresh(), debounceMs, timers);
	}

	get state(): ReviewState {
		return this.current;
	}

	subscribe(listener: (state: ReviewState, change: ReviewChange) => void): () => void {
		this.listeners.add(listener);
		listener(this.current, { kind: "all" });
		return () => this.listeners.delete(listener);
	}

	/** Applies `patch` and tells listeners only what changed (nothing when nothing did). */
	private set(patch: Partial<ReviewState>, rows: ReviewChange | null = null): void {
		const before = this.current;
		this.current = { ...before, ...patch };
		const whole =
			before.status !== this.current.status ||
			before.message !== this.current.message ||
			before.command !== this.current.command ||
			before.total !== this.current.total ||
			before.nextDue !== this.current.nextDue ||
			before.scoring !== this.current.scoring;
		const change: ReviewChange | null = whole ? { kind: "all" } : rows;
		if (!change) return;
		for (const listener of this.listeners) listener(this.current, change);
	}

	setScoring(scoring: Scoring): void {
		if (this.current.scoringKnown && JSON.stringify(scoring) === JSON.stringify(this.current.scoring)) return;
		this.set({ scoring, scoringKnown: true });
	}

	setOffline(): void {
		const info = this.offlineInfo();
		const { text, command } = typeof info === "string" ? { text: info, command: null } : info;
		this.set({ status: "offline", message: text, command });
	}

	async refresh(): Promise<void> {
		try {
			if (!this.current.scoringKnown) {
				const status = await this.source.status();
				this.current = { ...this.current, scoring: status.scoring, scoringKnown: true };
			}
			const review = await this.source.review(this.limit);
			const rows = this.current.status === "ready" ? diffItems(this.current.items, review.items) : { kind: "all" as const };
			const total = review.total ?? review.items.length;
			this.set({ status: "ready", items: review.items, total, nextDue: review.next_due ?? null, message: "", command: null }, rows);
		} catch (error) {
			if (error instanceof BridgeOfflineError) this.setOffline();
			else this.set({ status: "error", message: error instanceof Error ? error.message : String(error), command: null });
		}
	}

	refreshSoon(): void {
		void this.debounced();
	}

	handleEvent(event: BridgeEvent): void {
		if (event.type === "score_changed") {
			const { path, score, state } = event.data;
			const i = this.current.items.findIndex((n) => n.path === path);
			const old = i >= 0 ? this.current.items[i] : null;
			// A note outside the queue, or no visible change: no redraw at all.
			if (old && (old.score !== score || old.state !== state)) {
				const items = this.current.items.slice();
				items[i] = { ...old, score, state };
				this.set({ items }, { kind: "rows", paths: [path] });
			}
		}
		if (REFRESHING_EVENTS.has(event.type)) this.refreshSoon();
	}
}
