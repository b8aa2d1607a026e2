/**
 * One pass through the review queue, one memory at a time: the notes due for review in
 * priority order, minus those already handled or skipped in this pass.
 */
import type { Note } from "./types";

export type ReviewOutcome = "reinforced" | "promoted" | "archived" | "skipped";

export class ReviewSession {
	private readonly done = new Map<string, ReviewOutcome>();

	constructor(private queue: Note[]) {}

	/** The queue changed under us (events): keep the order the daemon gives, drop what we did. */
	update(queue: Note[]): void {
		this.queue = queue;
	}

	current(): Note | null {
		return this.queue.find((n) => !this.done.has(n.path)) ?? null;
	}

	/** How many are left, the current one included. */
	remaining(): number {
		return this.queue.filter((n) => !this.done.has(n.path)).length;
	}

	/** Records what happened to the current note and returns the next one. */
	settle(path: string, outcome: ReviewOutcome): Note | null {
		this.done.set(path, outcome);
		return this.current();
	}

	summary(): Record<ReviewOutcome, number> {
		const out: Record<ReviewOutcome, number> = { reinforced: 0, promoted: 0, archived: 0, skipped: 0 };
		for (const outcome of this.done.values()) out[outcome]++;
		return out;
	}
}
