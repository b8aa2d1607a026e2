/**
 * State of the review queue, shared by every open review view: refreshed on demand,
 * and (debounced) on every bridge event that may change it.
 */
import { BridgeOfflineError, type BridgeClient } from "./bridge-client";
import { DEFAULT_SCORING } from "./decay";
import { debounceLatest, type Timers } from "./timers";
import { EVENT_TYPES, type BridgeEvent, type Note, type Scoring } from "./types";

export type ReviewSource = Pick<BridgeClient, "review" | "status">;

export interface ReviewState {
	status: "loading" | "ready" | "offline" | "error";
	items: Note[];
	scoring: Scoring;
	/** Whether `scoring` came from the daemon (else DESIGN.md's defaults). */
	scoringKnown: boolean;
	message: string;
}

/** Every change that can move a note in or out of the queue (all but `problem`). */
const REFRESHING_EVENTS = new Set<BridgeEvent["type"]>(EVENT_TYPES.filter((type) => type !== "problem"));

export class ReviewStore {
	private current: ReviewState = {
		status: "loading",
		items: [],
		scoring: DEFAULT_SCORING,
		scoringKnown: false,
		message: "",
	};
	private readonly listeners = new Set<(state: ReviewState) => void>();
	private readonly debounced: () => Promise<void>;

	constructor(
		private readonly source: ReviewSource,
		timers: Timers,
		private readonly offlineMessage: () => string,
		private readonly limit = 50,
		debounceMs = 300,
	) {
		this.debounced = debounceLatest(() => this.refresh(), debounceMs, timers);
	}

	get state(): ReviewState {
		return this.current;
	}

	subscribe(listener: (state: ReviewState) => void): () => void {
		this.listeners.add(listener);
		listener(this.current);
		return () => this.listeners.delete(listener);
	}

	private set(patch: Partial<ReviewState>): void {
		this.current = { ...this.current, ...patch };
		for (const listener of this.listeners) listener(this.current);
	}

	setScoring(scoring: Scoring): void {
		this.set({ scoring, scoringKnown: true });
	}

	setOffline(): void {
		this.set({ status: "offline", message: this.offlineMessage() });
	}

	async refresh(): Promise<void> {
		try {
			if (!this.current.scoringKnown) {
				const status = await this.source.status();
				this.current = { ...this.current, scoring: status.scoring, scoringKnown: true };
			}
			const review = await this.source.review(this.limit);
			this.set({ status: "ready", items: review.items, message: "" });
		} catch (error) {
			if (error instanceof BridgeOfflineError) this.setOffline();
			else this.set({ status: "error", message: error instanceof Error ? error.message : String(error) });
		}
	}

	refreshSoon(): void {
		void this.debounced();
	}

	handleEvent(event: BridgeEvent): void {
		if (event.type === "score_changed") {
			const items = this.current.items.map((n) =>
				n.path === event.data.path ? { ...n, score: event.data.score, state: event.data.state } : n,
			);
			this.set({ items });
		}
		if (REFRESHING_EVENTS.has(event.type)) this.refreshSoon();
	}
}
