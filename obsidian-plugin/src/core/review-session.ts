/**
 * One pass through the review queue, one memory at a time: the notes due for review in
 * priority order, minus those already handled or skipped in this pass. Only what the daemon
 * confirmed is recorded (and counted); an undone action is forgotten again.
 */
import type { Note } from "./types";

export type ReviewOutcome = "remembered" | "faded" | "pinned" | "promoted" | "archived" | "skipped";

export const OUTCOMES: ReviewOutcome[] = ["remembered", "faded", "pinned", "promoted", "archived", "skipped"];

/** A recorded action and how to take it back (null: it cannot be, e.g. a promotion). */
export interface Settled {
	note: Note;
	outcome: ReviewOutcome;
	undo: (() => Promise<void>) | null;
}

export class ReviewSession {
	private readonly done = new Map<string, Settled>();
	private readonly history: Settled[] = [];

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

	/** Skipped memories still in the queue (still due). */
	skippedDue(): number {
		return this.queue.filter((n) => this.done.get(n.path)?.outcome === "skipped").length;
	}

	/** Goes through the skipped ones again. */
	again(): void {
		for (const [path, s] of this.done) if (s.outcome === "skipped") this.done.delete(path);
	}

	/** Records a confirmed action on `note` and returns the next one. */
	settle(note: Note, outcome: ReviewOutcome, undo: Settled["undo"] = null): Note | null {
		const entry = { note, outcome, undo };
		this.done.set(note.path, entry);
		this.history.push(entry);
		return this.current();
	}

	/** The last action, if any (what Undo takes back). */
	last(): Settled | null {
		return this.history[this.history.length - 1] ?? null;
	}

	/** Forgets the last action (it was undone): its memory is due again, first. */
	unsettle(): Settled | null {
		const entry = this.history.pop() ?? null;
		if (entry) {
			this.done.delete(entry.note.path);
			if (!this.queue.some((n) => n.path === entry.note.path)) this.queue = [entry.note, ...this.queue];
		}
		return entry;
	}

	summary(): Record<ReviewOutcome, number> {
		const out: Record<ReviewOutcome, number> = { remembered: 0, faded: 0, pinned: 0, promoted: 0, archived: 0, skipped: 0 };
		for (const s of this.done.values()) out[s.outcome]++;
		return out;
	}
}
