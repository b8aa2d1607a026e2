/** Side view: memories related to the open note (RelatedStore, rendered by ui/related-list). */
import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { RelatedStore } from "../core/related-store";
import type { RelatedItem } from "../core/types";
import { renderRelated } from "../ui/related-list";

export const RELATED_VIEW_TYPE = "mnemovault-related";

export interface RelatedViewDeps {
	store: RelatedStore;
	activePath: () => string | null;
	offlineText: () => string;
	open: (item: RelatedItem) => void;
}

export class RelatedView extends ItemView {
	private unsubscribe: (() => void) | null = null;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly deps: RelatedViewDeps,
	) {
		super(leaf);
	}

	getViewType(): string {
		return RELATED_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Related memories";
	}

	override getIcon(): string {
		return "git-fork";
	}

	override async onOpen(): Promise<void> {
		const d = this.deps;
		this.unsubscribe = d.store.subscribe((state) => renderRelated(this.contentEl, state, d.offlineText(), { open: d.open }));
		d.store.show(d.activePath());
	}

	override async onClose(): Promise<void> {
		this.unsubscribe?.();
		this.unsubscribe = null;
		this.contentEl.empty();
	}
}
