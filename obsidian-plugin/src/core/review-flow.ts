/**
 * The review flow's logic, apart from any DOM: one request per action, recorded only when
 * the daemon confirmed it; offline (or a refused token) is a state of its own in which no
 * card can be acted on; Undo takes back the last action exactly (the daemon's `prior`) and
 * is offered only when it can; a promotion, which cannot be undone here, is asked first; a
 * failed action names its memory and keeps that memory's card up.
 */
import { BridgeOfflineError } from "./bridge-client";
import { ReviewSession, type ReviewOutcome, type Settled } from "./review-session";
import type { ArchiveResponse, GradeResponse, Note, PinResponse, PromoteResponse, RestoreResponse, ReviewGrade, ReviewValues, ArchivedValues } from "./types";

export interface ReviewFlowDeps {
	grade(path: string, grade: ReviewGrade): Promise<GradeResponse>;
	undoGrade(path: string, prior: ReviewValues, after: ReviewValues): Promise<unknown>;
	promote(path: string): Promise<PromoteResponse>;
	/** Pins it; `unpin` with the answer's `prior` is the exact undo. */
	pin(path: string): Promise<PinResponse>;
	unpin(path: string, prior: ReviewValues): Promise<unknown>;
	archive(path: string): Promise<ArchiveResponse>;
	restore(path: string, prior: ArchivedValues): Promise<RestoreResponse>;
	/** Re-reads the queue (the store's refresh). */
	refresh(): Promise<void>;
	/** A failed request's text for a person. */
	errorText(error: unknown): string;
	/** Something to redraw. */
	changed(): void;
}

export type FlowAction = "remember" | "fade" | "pin" | "promote" | "archive" | "skip";

const BUSY: Record<FlowAction, string> = {
	remember: "Remembering…",
	fade: "Letting it fade…",
	pin: "Pinning…",
	promote: "Promoting…",
	archive: "Archiving…",
	skip: "",
};

const VERB: Record<FlowAction | "undo", string> = {
	remember: "remember",
	fade: "let fade",
	pin: "pin",
	promote: "promote",
	archive: "archive",
	skip: "skip",
	undo: "undo the last action on",
};

const OUTCOME: Record<FlowAction, ReviewOutcome> = {
	remember: "remembered",
	fade: "faded",
	pin: "pinned",
	promote: "promoted",
	archive: "archived",
	skip: "skipped",
};

export class ReviewFlow {
	/** What is running (keys are ignored meanwhile), or null. */
	busy: string | null = null;
	/** The last request failed with this, naming its memory (nothing counted). */
	error: string | null = null;
	/** The memory the failed request was about: its card stays up until the person moves on. */
	failedNote: Note | null = null;
	/** A promotion waiting for a yes (it cannot be undone from the flow). */
	confirming: Note | null = null;
	/** A request found the daemon gone (or refusing us): no card until it answers again. */
	offline = false;
	/** "Undone: …" after an undo. */
	notice: string | null = null;

	constructor(
		readonly session: ReviewSession,
		private readonly deps: ReviewFlowDeps,
	) {}

	/** The daemon answered the queue again: the offline state is over. */
	online(): void {
		if (!this.offline) return;
		this.offline = false;
		this.error = null;
		this.failedNote = null;
	}

	/** The card shown: the memory a failed action was about, else the session's next. */
	current(): Note | null {
		return this.failedNote ?? this.session.current();
	}

	/** The last action, when Undo can take it back (else Undo is not offered). */
	undoable(): Settled | null {
		const last = this.session.last();
		return last && last.undo ? last : null;
	}

	/** An action asked for by key or button: a promotion asks first, the rest run. */
	request(action: FlowAction, note: Note): Promise<void> {
		if (action === "promote" && this.confirming?.path !== note.path) {
			if (this.busy !== null || this.offline) return Promise.resolve();
			this.confirming = note;
			this.error = null;
			this.notice = null;
			this.deps.changed();
			return Promise.resolve();
		}
		return this.act(action, note);
	}

	/** The promotion asked about is not wanted. */
	cancel(): void {
		if (!this.confirming) return;
		this.confirming = null;
		this.deps.changed();
	}

	async act(action: FlowAction, note: Note): Promise<void> {
		if (this.busy !== null || this.offline) return;
		this.error = null;
		this.notice = null;
		this.confirming = null;
		this.failedNote = null;
		if (action === "skip") {
			this.session.settle(note, "skipped", () => Promise.resolve());
			this.deps.changed();
			return;
		}
		await this.whileBusy(BUSY[action], note, VERB[action], async () => {
			const undo = await this.run(action, note);
			this.session.settle(note, OUTCOME[action], undo);
		});
	}

	/** Shows `label` while `work` on `note` runs, reports its failure on it, then refreshes the queue. */
	private async whileBusy(label: string, note: Note, verb: string, work: () => Promise<void>): Promise<void> {
		this.busy = label;
		this.deps.changed();
		try {
			await work();
		} catch (error) {
			this.failed(error, note, verb);
		} finally {
			this.busy = null;
		}
		this.deps.changed();
		await this.deps.refresh();
	}

	/** Sends the action; returns how to take it back (null: it cannot be). */
	private async run(action: FlowAction, note: Note): Promise<(() => Promise<void>) | null> {
		const path = note.path;
		if (action === "remember" || action === "fade") {
			const r = await this.deps.grade(path, action);
			return async () => void (await this.deps.undoGrade(path, r.prior, r.after));
		}
		if (action === "pin") {
			const prior = (await this.deps.pin(path)).prior;
			return prior ? async () => void (await this.deps.unpin(path, prior)) : null;
		}
		if (action === "promote") {
			await this.deps.promote(path);
			return null;
		}
		const moved = (await this.deps.archive(path)).archived[0];
		const prior = moved?.prior;
		return moved && prior ? async () => void (await this.deps.restore(moved.to, prior)) : null;
	}

	private failed(error: unknown, note: Note, verb: string): void {
		if (error instanceof BridgeOfflineError) {
			this.offline = true;
			return;
		}
		this.error = `Could not ${verb} "${note.title || note.path}": ${this.deps.errorText(error)}`;
		this.failedNote = note;
	}

	/** Takes back the last action of this pass; its memory is the current card again. */
	async undo(): Promise<void> {
		const last = this.undoable();
		if (!last?.undo || this.busy !== null || this.offline) return;
		this.notice = null;
		this.error = null;
		this.confirming = null;
		this.failedNote = null;
		const undo = last.undo;
		await this.whileBusy("Undoing…", last.note, VERB.undo, async () => {
			await undo();
			this.session.unsettle();
			this.notice = `Undone: "${last.note.title}" is back as it was.`;
		});
	}
}
