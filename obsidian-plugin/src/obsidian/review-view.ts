/** The review queue side view: a ReviewPanel over the shared ReviewStore. */
import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { ReviewStore } from "../core/review-store";
import type { Note } from "../core/types";
import { ReviewPanel } from "../ui/review-panel";

export const REVIEW_VIEW_TYPE = "mnemovault-review";

export interface ReviewViewDeps {
	store: ReviewStore;
	horizonDays: () => number;
	hint: () => string;
	now: () => number;
	open: (note: Note) => void;
	reinforce: (note: Note) => Promise<void>;
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
				scoring: state.scoring,
				nowMs: d.now(),
				horizonDays: d.horizonDays(),
				message: state.message,
				hint: d.hint(),
			}),
			actions: {
				open: (note) => d.open(note),
				reinforce: (note) => void d.reinforce(note),
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
