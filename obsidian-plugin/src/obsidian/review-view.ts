/** The review queue side view: a ReviewPanel over the shared ReviewStore; keys through the view's scope. */
import { ItemView, Scope, type WorkspaceLeaf } from "obsidian";
import type { ReviewStore } from "../core/review-store";
import type { Note, ReviewGrade } from "../core/types";
import { ReviewPanel } from "../ui/review-panel";

export const REVIEW_VIEW_TYPE = "mnemovault-review";

/** The keys the list answers; each goes to the focused row (ui/review-list.ts listKey). */
const LIST_KEYS = ["ArrowDown", "ArrowUp", "j", "k", "Enter", "o", "r", "f", "p", "a"];

export interface ReviewViewDeps {
	store: ReviewStore;
	horizonDays: () => number;
	now: () => number;
	open: (note: Note) => void;
	grade: (note: Note, grade: ReviewGrade) => Promise<void>;
	promote: (note: Note) => Promise<void>;
	archive: (note: Note) => Promise<void>;
	refresh: () => void;
}

export class ReviewView extends ItemView {
	panel: ReviewPanel | null = null;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly deps: ReviewViewDeps,
	) {
		super(leaf);
		// keys work wherever focus is in the view, and survive every redraw
		this.scope = new Scope(this.app.scope);
		for (const key of LIST_KEYS) this.scope.register([], key, () => (this.panel?.key(key) ? false : undefined));
	}

	getViewType(): string {
		return REVIEW_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Memory review";
	}

	override getIcon(): string {
		return "hourglass";
	}

	override async onOpen(): Promise<void> {
		const d = this.deps;
		this.panel = new ReviewPanel(this.contentEl, {
			subscribe: (listener) => d.store.subscribe(listener),
			model: (state) => ({
				status: state.status,
				items: state.items,
				total: state.total,
				nextDue: state.nextDue,
				scoring: state.scoring,
				nowMs: d.now(),
				horizonDays: d.horizonDays(),
				message: state.message,
				command: state.command,
			}),
			actions: {
				open: (note) => d.open(note),
				remember: (note) => void d.grade(note, "remember"),
				fade: (note) => void d.grade(note, "fade"),
				promote: (note) => void d.promote(note),
				archive: (note) => void d.archive(note),
				refresh: () => d.refresh(),
			},
			frame: (run) => void window.requestAnimationFrame(run),
		});
		this.panel.start();
		this.registerInterval(window.setInterval(() => this.panel?.redrawAll(), 60_000));
		d.refresh();
	}

	override async onClose(): Promise<void> {
		this.panel?.stop();
		this.panel = null;
		this.contentEl.empty();
	}
}
