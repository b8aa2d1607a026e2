/**
 * Commands on one memory (reinforce, promote, archive with Undo, restore): one request
 * each, the result as one notice, and the open note following its file when it moves.
 */
import type { App } from "obsidian";
import type { ReinforceOnOpenPolicy } from "../core/auto-reinforce";
import { BridgeOfflineError, type BridgeClient } from "../core/bridge-client";
import type { ConnectionMonitor } from "../core/connection";
import { archivedMessage, errorMessage, gradedMessage, pinnedMessage, promotedMessage, reinforcedMessage, restoredMessage } from "../core/messages";
import type { ReviewStore } from "../core/review-store";
import type { Timers } from "../core/timers";
import type { ArchivedValues, Move, ReviewGrade } from "../core/types";
import type { ActiveNote } from "./active-note";

export interface NoteActionsDeps {
	app: App;
	client: BridgeClient;
	monitor: ConnectionMonitor;
	store: ReviewStore;
	policy: ReinforceOnOpenPolicy;
	active: ActiveNote;
	timers: Timers;
	notify: (message: string) => void;
	notifyAction: (message: string, label: string, run: () => void) => void;
}

export class NoteActions {
	/** The path being reopened after a move (the command's answer and its event both ask). */
	private reopening: string | null = null;

	constructor(private readonly deps: NoteActionsDeps) {}

	/** Runs one request for a command and tells the person how it went, once. */
	async act(run: () => Promise<string | null>): Promise<void> {
		const wasOffline = this.deps.monitor.state.status === "offline";
		try {
			const text = await run();
			if (text !== null) this.deps.notify(text);
		} catch (error) {
			// Going offline already produced its one notice.
			if (error instanceof BridgeOfflineError && !wasOffline) return;
			this.deps.notify(errorMessage(error, this.deps.monitor.message()));
		}
	}

	reinforce(path: string): Promise<void> {
		return this.act(async () => {
			const r = await this.deps.client.touch(path);
			this.deps.store.refreshSoon();
			if (path === this.deps.active.path) this.deps.active.score(r.note.score ?? r.new_score, r.note.state);
			return reinforcedMessage(r);
		});
	}

	/** Pins it, with an Undo on the notice that gives back the note as it was. */
	pin(path: string): Promise<void> {
		return this.act(async () => {
			const r = await this.deps.client.pin(path);
			this.deps.store.refreshSoon();
			if (path === this.deps.active.path) this.deps.active.score(r.note.score, r.note.state);
			const prior = r.prior;
			if (!prior) return pinnedMessage(r);
			this.deps.notifyAction(pinnedMessage(r), "Undo", () =>
				void this.act(async () => {
					await this.deps.client.unpin(path, prior);
					this.deps.store.refreshSoon();
					if (path === this.deps.active.path) void this.deps.active.show(false);
					return `Undone: "${r.note.title}" is back as it was.`;
				}),
			);
			return null;
		});
	}

	unpin(path: string): Promise<void> {
		return this.act(async () => {
			const r = await this.deps.client.unpin(path);
			this.deps.store.refreshSoon();
			if (path === this.deps.active.path) this.deps.active.score(r.note.score, r.note.state);
			return pinnedMessage(r);
		});
	}

	/** A graded review (bounded by the daemon), with an Undo on its notice that puts back exactly what was. */
	grade(path: string, grade: ReviewGrade): Promise<void> {
		return this.act(async () => {
			const r = await this.deps.client.grade(path, grade);
			this.deps.store.refreshSoon();
			if (path === this.deps.active.path) this.deps.active.score(r.note.score ?? r.new_score, r.note.state);
			this.deps.notifyAction(gradedMessage(r), "Undo", () =>
				void this.act(async () => {
					await this.deps.client.undoGrade(path, r.prior, r.after);
					this.deps.store.refreshSoon();
					return `Undone: "${r.note.title}" is back as it was.`;
				}),
			);
			return null;
		});
	}

	promote(path: string): Promise<void> {
		return this.act(async () => {
			const r = await this.deps.client.promote(path);
			this.afterMoves(r.promoted);
			return promotedMessage(r);
		});
	}

	/** Archives, with an Undo on the notice that restores it. */
	archive(path: string): Promise<void> {
		return this.act(async () => {
			const r = await this.deps.client.archive(path);
			this.afterMoves(r.archived);
			const moved = r.archived[0];
			if (r.archived.length !== 1 || !moved) return archivedMessage(r);
			const prior = moved.prior;
			// the undo of an archive puts back the values before it: a restore that is not a use
			this.deps.notifyAction(archivedMessage(r), "Undo", () => void this.restore(moved.to, prior ?? undefined));
			return null;
		});
	}

	restore(path: string, prior?: ArchivedValues): Promise<void> {
		return this.act(async () => {
			const r = await this.deps.client.restore(path, prior);
			this.afterMoves(r.restored);
			return restoredMessage(r);
		});
	}

	/** After a move: the queue may change, and the open note follows its file. */
	afterMoves(moves: Move[]): void {
		this.deps.store.refreshSoon();
		for (const m of moves) this.moved(m);
	}

	/** A note moved (by a command, GC, another client): the open one follows its file. */
	moved(m: Pick<Move, "from" | "to">): void {
		this.deps.policy.moved(m.from, m.to);
		if (m.from === this.deps.active.path) void this.reopenAt(m.to);
	}

	/**
	 * Opens `path` once Obsidian has seen the moved file (the daemon moves it on disk, so
	 * it arrives as a new file a moment later); never creates a note that is not there.
	 */
	async reopenAt(path: string, waitMs = 5000): Promise<boolean> {
		if (this.reopening === path) return false;
		this.reopening = path;
		try {
			return await this.waitAndOpen(path, waitMs);
		} finally {
			this.reopening = null;
		}
	}

	private async waitAndOpen(path: string, waitMs: number): Promise<boolean> {
		const { app, timers } = this.deps;
		const deadline = timers.now() + waitMs;
		while (!app.vault.getFileByPath(path)) {
			if (timers.now() >= deadline) return false;
			await new Promise<void>((resolve) => timers.setTimeout(resolve, 100));
		}
		await app.workspace.openLinkText(path, "", false);
		return true;
	}
}
