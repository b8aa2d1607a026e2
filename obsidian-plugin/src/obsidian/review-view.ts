/** The review queue side view: renders the shared ReviewStore, refreshes every minute. */
import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { ReviewStore } from "../core/review-store";
import type { Note } from "../core/types";
import { renderReviewList } from "../ui/review-list";

export const REVIEW_VIEW_TYPE = "mnemovault-review";

export interface ReviewViewDeps {
	store: ReviewStore;
	horizonDays: () => number;
	hint: () => string;
	now: () => number;
	open: (note: Note) => void;
	reinforce: (note: Note) => Promise<void>;
	refresh: () => void;
}

export class ReviewView extends ItemView {
	private unsubscribe: (() => void) | null = null;

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

	render(): void {
		const state = this.deps.store.state;
		renderReviewList(
			this.contentEl,
			{
				status: state.status,
				items: state.items,
				scoring: state.scoring,
				nowMs: this.deps.now(),
				horizonDays: this.deps.horizonDays(),
				message: state.message,
				hint: this.deps.hint(),
			},
			{
				open: (note) => this.deps.open(note),
				reinforce: (note) => void this.deps.reinforce(note),
				refresh: () => this.deps.refresh(),
			},
		);
	}

	override async onOpen(): Promise<void> {
		this.unsubscribe = this.deps.store.subscribe(() => this.render());
		this.registerInterval(window.setInterval(() => this.render(), 60_000));
		this.deps.refresh();
	}

	override async onClose(): Promise<void> {
		this.unsubscribe?.();
		this.unsubscribe = null;
		this.contentEl.empty();
	}
}
