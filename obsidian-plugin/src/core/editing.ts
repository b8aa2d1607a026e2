/**
 * Tells the daemon which note is open in the editor (background writes to it
 * wait until it has been closed or idle for a minute). Sent when the open note changes,
 * again while the person types in it at most once per heartbeat, and null on close.
 * Calls are sent one after another, so the daemon sees them in the order they happened.
 * Failures are silent: the daemon may be offline or older, and editing goes on.
 */
import type { Timers } from "./timers";

/** The daemon holds a note for 60 s after the last call: a beat every 20 s keeps it held. */
export const EDITING_HEARTBEAT_MS = 20_000;

export class EditingReporter {
	/** The path last sent (undefined: nothing sent yet). */
	private sent: string | null | undefined = undefined;
	private sentAt = -Infinity;
	/** Calls go one at a time, in order: two in flight could reach the daemon swapped. */
	private queue: Promise<unknown> = Promise.resolve();

	constructor(
		private readonly send: (path: string | null) => Promise<unknown>,
		private readonly timers: Pick<Timers, "now">,
		private readonly heartbeatMs = EDITING_HEARTBEAT_MS,
	) {}

	/** The open note changed (null: no Markdown note is open). */
	opened(path: string | null): void {
		if (path === this.sent && (path === null || !this.due())) return;
		this.post(path);
	}

	/** The person typed in `path`: a heartbeat, throttled. */
	typed(path: string | null): void {
		if (path === null) return;
		if (path !== this.sent) return this.post(path);
		if (this.due()) this.post(path);
	}

	/** The plugin unloads: nothing is open any more. */
	close(): void {
		if (this.sent !== null && this.sent !== undefined) this.post(null);
	}

	private due(): boolean {
		return this.timers.now() - this.sentAt >= this.heartbeatMs;
	}

	private post(path: string | null): void {
		this.sent = path;
		this.sentAt = this.timers.now();
		this.queue = this.queue.then(() => this.send(path)).catch(() => undefined);
	}
}
