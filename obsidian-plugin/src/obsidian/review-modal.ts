/** "Review memories": the queue one memory at a time, driven by keys (see ui/review-card). */
import { Modal, type App } from "obsidian";
import type { ReviewStore } from "../core/review-store";
import { ReviewSession, type ReviewOutcome } from "../core/review-session";
import type { Note } from "../core/types";
import { cardKey, renderReviewCard, type ReviewCardActions } from "../ui/review-card";

export interface NoteText {
	text: string;
	archiveOn: string | null;
}

export interface ReviewModalDeps {
	store: ReviewStore;
	readNote: (path: string) => Promise<NoteText | null>;
	reinforce: (path: string) => Promise<void>;
	promote: (path: string) => Promise<void>;
	archive: (path: string) => Promise<void>;
	open: (path: string) => void;
	now: () => number;
	horizonDays: () => number;
}

export class ReviewFlowModal extends Modal {
	session = new ReviewSession([]);
	private readonly texts = new Map<string, NoteText | null>();
	private readonly loading = new Set<string>();
	private unsubscribe: (() => void) | null = null;
	private readonly actions: ReviewCardActions;

	constructor(
		app: App,
		private readonly deps: ReviewModalDeps,
	) {
		super(app);
		const settle = (note: Note, outcome: ReviewOutcome, run: (path: string) => Promise<void>) => {
			this.session.settle(note.path, outcome);
			this.render();
			void run(note.path);
		};
		this.actions = {
			reinforce: (n) => settle(n, "reinforced", (p) => deps.reinforce(p)),
			promote: (n) => settle(n, "promoted", (p) => deps.promote(p)),
			archive: (n) => settle(n, "archived", (p) => deps.archive(p)),
			skip: (n) => settle(n, "skipped", () => Promise.resolve()),
			open: (n) => {
				this.close();
				deps.open(n.path);
			},
			close: () => this.close(),
		};
	}

	override onOpen(): void {
		this.titleEl.setText("Review memories");
		this.modalEl.addClass("mnemovault-review-modal");
		this.session = new ReviewSession(this.deps.store.state.items);
		this.unsubscribe = this.deps.store.subscribe((state) => {
			this.session.update(state.items);
			this.render();
		});
		this.modalEl.addEventListener("keydown", (evt) => {
			if (evt.ctrlKey || evt.metaKey || evt.altKey) return;
			if (cardKey(evt.key, this.session.current(), this.actions)) evt.preventDefault();
		});
		void this.deps.store.refresh();
	}

	private render(): void {
		const note = this.session.current();
		const state = this.deps.store.state;
		const loaded = note ? this.texts.get(note.path) : undefined;
		if (note && loaded === undefined) this.load(note.path);
		renderReviewCard(
			this.contentEl,
			{
				note,
				text: loaded === undefined ? null : (loaded?.text ?? "(this note could not be read)"),
				archiveOn: loaded?.archiveOn ?? null,
				remaining: this.session.remaining(),
				summary: this.session.summary(),
				scoring: state.scoring,
				nowMs: this.deps.now(),
				horizonDays: this.deps.horizonDays(),
			},
			this.actions,
		);
	}

	private load(path: string): void {
		if (this.loading.has(path)) return;
		this.loading.add(path);
		void this.deps.readNote(path).then(
			(text) => {
				this.texts.set(path, text);
				if (this.session.current()?.path === path) this.render();
			},
			() => this.texts.set(path, null),
		);
	}

	override onClose(): void {
		this.unsubscribe?.();
		this.unsubscribe = null;
		this.contentEl.empty();
	}
}
