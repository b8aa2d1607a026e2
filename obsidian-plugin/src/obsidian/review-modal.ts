/**
 * "Review memories": the queue one memory at a time. Keys go through the modal's scope (so
 * they work wherever focus is), and after every action the focus is on the next card's
 * first action; Enter presses the focused button, whichever it is. Offline or refused, no
 * card can be acted on (ui/review-card.ts).
 */
import { Modal, type App } from "obsidian";
import type { OfflineInfo } from "../core/connection";
import { ReviewFlow, type ReviewFlowDeps } from "../core/review-flow";
import type { ReviewStore } from "../core/review-store";
import { ReviewSession } from "../core/review-session";
import { cardKey, renderReviewCard, type CardAction, type ReviewCardModel } from "../ui/review-card";

export interface NoteText {
	text: string;
	archiveOn: string | null;
}

export interface ReviewModalDeps extends Omit<ReviewFlowDeps, "changed" | "refresh"> {
	store: ReviewStore;
	readNote: (path: string) => Promise<NoteText | null>;
	open: (path: string) => void;
	/** Offline: what is wrong and the command that fixes it. */
	offlineInfo: () => OfflineInfo;
	/** Reconnect and re-read (Try again). */
	retry: () => void;
	now: () => number;
	horizonDays: () => number;
}

/** Keys of the card; each is looked up against the card shown (ui/review-card.ts cardKey). */
const KEYS = ["r", "f", "k", "p", "a", "s", "o", "u", "n", "Enter", "ArrowRight"];

export class ReviewFlowModal extends Modal {
	flow: ReviewFlow;
	private readonly texts = new Map<string, NoteText | null>();
	private readonly loading = new Set<string>();
	private unsubscribe: (() => void) | null = null;
	private shown = false;

	constructor(
		app: App,
		private readonly deps: ReviewModalDeps,
	) {
		super(app);
		this.flow = this.makeFlow(new ReviewSession([]));
		for (const key of KEYS) {
			this.scope.register([], key, () => {
				if (key === "Enter" && this.pressFocused()) return false;
				const action = cardKey(key, this.model());
				if (!action) return;
				this.run(action);
				return false;
			});
		}
	}

	/** Enter on a focused button of the card presses it (and nothing else). */
	private pressFocused(): boolean {
		const active = document.activeElement;
		if (!(active instanceof HTMLButtonElement) || !this.modalEl.contains(active)) return false;
		if (!active.disabled) active.click();
		return true;
	}

	private makeFlow(session: ReviewSession): ReviewFlow {
		const d = this.deps;
		return new ReviewFlow(session, {
			grade: (p, g) => d.grade(p, g),
			undoGrade: (p, prior, after) => d.undoGrade(p, prior, after),
			promote: (p) => d.promote(p),
			pin: (p) => d.pin(p),
			unpin: (p, prior) => d.unpin(p, prior),
			archive: (p) => d.archive(p),
			restore: (p, prior) => d.restore(p, prior),
			errorText: (e) => d.errorText(e),
			refresh: () => d.store.refresh(),
			changed: () => this.render(),
		});
	}

	override onOpen(): void {
		this.titleEl.setText("Review memories");
		this.modalEl.addClass("mnemovault-review-modal");
		this.shown = true;
		this.flow = this.makeFlow(new ReviewSession(this.deps.store.state.items));
		this.unsubscribe = this.deps.store.subscribe((state) => {
			this.flow.session.update(state.items);
			if (state.status === "ready") this.flow.online();
			this.render();
		});
		void this.deps.store.refresh();
	}

	run(action: CardAction): void {
		const note = this.flow.current();
		if (action === "close") return this.close();
		if (action === "retry") return this.deps.retry();
		if (action === "undo") return void this.flow.undo();
		if (action === "cancel") return this.flow.cancel();
		if (action === "confirm") {
			const asked = this.flow.confirming;
			return asked ? void this.flow.act("promote", asked) : undefined;
		}
		if (action === "again") {
			this.flow.session.again();
			return this.render();
		}
		if (!note) return;
		if (action === "open") {
			this.close();
			return this.deps.open(note.path);
		}
		void this.flow.request(action, note);
	}

	model(): ReviewCardModel {
		const session = this.flow.session;
		const note = this.flow.current();
		const state = this.deps.store.state;
		const loaded = note ? this.texts.get(note.path) : undefined;
		const last = this.flow.undoable();
		const offline = state.status === "offline" || this.flow.offline;
		return {
			note,
			text: loaded === undefined ? null : (loaded?.text ?? "(this note could not be read)"),
			archiveOn: loaded?.archiveOn ?? null,
			count: state.total,
			nextDue: state.nextDue,
			confirming: Boolean(note && this.flow.confirming?.path === note.path),
			summary: session.summary(),
			scoring: state.scoring,
			nowMs: this.deps.now(),
			horizonDays: this.deps.horizonDays(),
			loading: state.status === "loading",
			offline: offline ? this.offlineInfo() : null,
			busy: this.flow.busy,
			error: this.flow.error ?? (state.status === "error" ? state.message : null),
			notice: this.flow.notice,
			skippedDue: session.skippedDue(),
			undoable: last ? `Undo: ${last.outcome} "${last.note.title}"` : null,
		};
	}

	private offlineInfo(): OfflineInfo {
		const state = this.deps.store.state;
		if (state.status === "offline" && state.message) return { text: state.message, command: state.command };
		return this.deps.offlineInfo();
	}

	private render(): void {
		if (!this.shown) return;
		const model = this.model();
		if (model.note && !model.offline && model.text === null) this.load(model.note.path);
		const focus = renderReviewCard(this.contentEl, model, (action) => this.run(action));
		this.contentEl.setAttr("tabindex", "-1");
		// never let a redraw drop the focus to the page: the next card's first action has it
		(focus ?? this.contentEl).focus({ preventScroll: true });
	}

	private load(path: string): void {
		if (this.loading.has(path)) return;
		this.loading.add(path);
		void this.deps.readNote(path).then(
			(text) => {
				this.texts.set(path, text);
				if (this.flow.current()?.path === path) this.render();
			},
			() => this.texts.set(path, null),
		);
	}

	override onClose(): void {
		this.shown = false;
		this.unsubscribe?.();
		this.unsubscribe = null;
		this.contentEl.empty();
	}
}
