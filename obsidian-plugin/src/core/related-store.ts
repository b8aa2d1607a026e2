/**
 * Related memories of the open note, cached per note: switching back to a note shows its
 * list at once. Events that change the index drop the cache; only the latest note's
 * answer is shown (a slow answer for a note left behind is cached, not shown).
 */
import { BridgeOfflineError } from "./bridge-client";
import type { BridgeEvent, RelatedResponse } from "./types";

export type RelatedSource = (path: string) => Promise<RelatedResponse>;

export type RelatedState =
	| { status: "idle" }
	| { status: "loading"; path: string }
	| { status: "ready"; path: string; answer: RelatedResponse }
	| { status: "error"; path: string; message: string; offline: boolean };

export class RelatedStore {
	private readonly cache = new Map<string, RelatedResponse>();
	private current: RelatedState = { status: "idle" };
	private wanted: string | null = null;
	private readonly listeners = new Set<(state: RelatedState) => void>();
	/** Requests sent to the daemon (tests check the cache with it). */
	fetches = 0;

	constructor(private readonly source: RelatedSource) {}

	get state(): RelatedState {
		return this.current;
	}

	subscribe(listener: (state: RelatedState) => void): () => void {
		this.listeners.add(listener);
		listener(this.current);
		return () => this.listeners.delete(listener);
	}

	private set(state: RelatedState): void {
		this.current = state;
		for (const l of this.listeners) l(state);
	}

	/** Show `path`'s related memories (null: no Markdown note open). Never blocks the caller. */
	show(path: string | null): void {
		this.wanted = path;
		if (!path) return this.set({ status: "idle" });
		const cached = this.cache.get(path);
		if (cached) return this.set({ status: "ready", path, answer: cached });
		this.set({ status: "loading", path });
		this.fetches++;
		this.source(path).then(
			(answer) => {
				this.cache.set(path, answer);
				if (this.wanted === path) this.set({ status: "ready", path, answer });
			},
			(error: unknown) => {
				if (this.wanted !== path) return;
				const message = error instanceof Error ? error.message : String(error);
				this.set({ status: "error", path, message, offline: error instanceof BridgeOfflineError });
			},
		);
	}

	/** Anything indexed, moved or deleted can change every list: forget them, reload the shown one. */
	handleEvent(event: BridgeEvent): void {
		if (event.type === "score_changed" || event.type === "problem" || event.type === "background_error" || event.type === "job") return;
		if (event.type === "hello" && this.cache.size === 0) return;
		this.cache.clear();
		if (this.wanted && this.listeners.size > 0) this.show(this.wanted);
	}
}
