/**
 * The review flow's logic, apart from any DOM: one request per action, recorded only when
 * the daemon confirmed it; offline (or a refused token) is a state of its own in which no
 * card can be acted on; Undo takes back the last action exactly (the daemon's `prior`).
 */
import { BridgeOfflineError } from "./bridge-client";
import { ReviewSession, type ReviewOutcome } from "./review-session";
import type { ArchiveResponse, GradeResponse, Note, PromoteResponse, RestoreResponse, ReviewGrade, ReviewValues, ArchivedValues } from "./types";

export interface ReviewFlowDeps {
	grade(path: string, grade: ReviewGrade): Promise<GradeResponse>;
	undoGrade(path: string, prior: ReviewValues, after: ReviewValues): Promise<unknown>;
	promote(path: string): Promise<PromoteResponse>;
	archive(path: string): Promise<ArchiveResponse>;
	restore(path: string, prior: ArchivedValues): Promise<RestoreResponse>;
	/** Re-reads the queue (the store's refresh). */
	refresh(): Promise<void>;
	/** A failed request's text for a person. */
	errorText(error: unknown): string;
	/** Something to redraw. */
	changed(): void;
}

export type FlowAction = "remember" | "fade" | "promote" | "archive" | "skip";

const BUSY: Record<FlowAction, string> = {
	remember: "Remembering…",
	fade: "Letting it fade…",
	promote: "Promoting…",
	archive: "Archiving…",
	skip: "",
};

const OUTCOME: Record<FlowAction, ReviewOutcome> = {
	remember: "remembered",
	fade: "faded",
	promote: "promoted",
	archive: "archived",
	skip: "skipped",
};

export class ReviewFlow {
	/** What is running (keys are ignored meanwhile), or null. */
	busy: string | null = null;
	/** The last request failed with this (the card stays, nothing counted). */
	error: string | null = null;
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
	}

	async act(action: FlowAction, note: Note): Promise<void> {
		if (this.busy !== null || this.offline) return;
		this.error = null;
		this.notice = null;
		if (action === "skip") {
			this.session.settle(note, "skipped", () => Promise.resolve());
			this.deps.changed();
			return;
		}
		await this.whileBusy(BUSY[action], async () => {
			const undo = await this.run(action, note);
			this.session.settle(note, OUTCOME[action], undo);
		});
	}

	/** Shows `label` while `work` runs, reports its failure, then refreshes the queue. */
	private async whileBusy(label: string, work: () => Promise<void>): Promise<void> {
		this.busy = label;
		this.deps.changed();
		try {
			await work();
		} catch (error) {
			this.failed(error);
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
		if (action === "promote") {
			await this.deps.promote(path);
			return null;
		}
		const moved = (await this.deps.archive(path)).archived[0];
		const prior = moved?.prior;
		return moved && prior ? async () => void (await this.deps.restore(moved.to, prior)) : null;
	}

	private failed(error: unknown): void {
		if (error instanceof BridgeOfflineError) this.offline = true;
		else this.error = this.deps.errorText(error);
	}

	/** Takes back the last action of this pass; its memory is the current card again. */
	async undo(): Promise<void> {
		const last = this.session.last();
		if (!last || this.busy !== null || this.offline) return;
		this.notice = null;
		if (!last.undo) {
			this.error = `"${last.note.title}" was ${last.outcome}; that cannot be undone here.`;
			this.deps.changed();
			return;
		}
		this.error = null;
		const undo = last.undo;
		await this.whileBusy("Undoing…", async () => {
			await undo();
			this.session.unsettle();
			this.notice = `Undone: "${last.note.title}" is back as it was.`;
		});
	}
}
