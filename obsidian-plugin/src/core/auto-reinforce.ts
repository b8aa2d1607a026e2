/** When opening a note counts as using it: short-term memories, once per cooldown. */
import type { Timers } from "./timers";
import type { NoteKind } from "./types";

export const REINFORCE_COOLDOWN_MS = 10 * 60 * 1000;

export class ReinforceOnOpenPolicy {
	private readonly last = new Map<string, number>();

	constructor(
		private readonly timers: Pick<Timers, "now">,
		private readonly cooldownMs = REINFORCE_COOLDOWN_MS,
	) {}

	/** True (and remembered) when `path` should be reinforced now. */
	take(path: string, kind: NoteKind): boolean {
		if (kind !== "stm") return false;
		const now = this.timers.now();
		const before = this.last.get(path);
		if (before !== undefined && now - before < this.cooldownMs) return false;
		this.last.set(path, now);
		return true;
	}

	/** A move (promote, rename) carries the cooldown to the new path. */
	moved(from: string, to: string): void {
		const t = this.last.get(from);
		if (t === undefined) return;
		this.last.delete(from);
		this.last.set(to, t);
	}
}
