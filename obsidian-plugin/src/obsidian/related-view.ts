/** Side view: memories related to the open note (RelatedStore, rendered by ui/related-list). */
import { ItemView, Menu, type WorkspaceLeaf } from "obsidian";
import type { RelatedStore } from "../core/related-store";
import type { RelatedItem } from "../core/types";
import { linkFor, renderRelated } from "../ui/related-list";

export const RELATED_VIEW_TYPE = "mnemovault-related";

export interface RelatedViewDeps {
	store: RelatedStore;
	activePath: () => string | null;
	offlineText: () => string;
	/** The similarity floor, 0-1 (setting). */
	minSimilarity: () => number;
	/** Folders whose notes are never listed (setting). */
	excludedFolders: () => string[];
	open: (item: RelatedItem, newTab: boolean) => void;
	copy: (text: string) => void;
}

export class RelatedView extends ItemView {
	private unsubscribe: (() => void) | null = null;
	/** Rows hidden by the person, per note they relate to (for as long as the view is open). */
	private readonly hidden = new Map<string, Set<string>>();

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

	private hiddenFor(path: string | null): Set<string> {
		if (!path) return new Set();
		let set = this.hidden.get(path);
		if (!set) this.hidden.set(path, (set = new Set()));
		return set;
	}

	private draw(): void {
		const d = this.deps;
		const state = d.store.state;
		const source = state.status === "idle" ? null : state.path;
		renderRelated(
			this.contentEl,
			state,
			d.offlineText(),
			{
				open: (item, newTab) => d.open(item, newTab),
				hover: (item, evt, row) =>
					this.app.workspace.trigger("hover-link", {
						event: evt,
						source: RELATED_VIEW_TYPE,
						hoverParent: this,
						targetEl: row,
						linktext: item.path,
						sourcePath: source ?? "",
					}),
				menu: (item, evt) => this.menu(item, evt, source),
				unhide: () => {
					this.hiddenFor(source).clear();
					this.draw();
				},
			},
			{ minSimilarity: d.minSimilarity(), hidden: this.hiddenFor(source), excludedFolders: d.excludedFolders() },
		);
	}

	private menu(item: RelatedItem, evt: MouseEvent, source: string | null): void {
		const menu = new Menu();
		menu.addItem((i) => i.setTitle("Open in new tab").setIcon("file-plus").onClick(() => this.deps.open(item, true)));
		menu.addItem((i) => i.setTitle("Copy link").setIcon("link").onClick(() => this.deps.copy(linkFor(item))));
		menu.addItem((i) =>
			i
				.setTitle("Hide from this list")
				.setIcon("eye-off")
				.onClick(() => {
					this.hiddenFor(source).add(item.path);
					this.draw();
				}),
		);
		menu.showAtMouseEvent(evt);
	}

	override async onOpen(): Promise<void> {
		this.unsubscribe = this.deps.store.subscribe(() => this.draw());
		this.deps.store.show(this.deps.activePath());
	}

	/** The floor changed in the settings. */
	redraw(): void {
		this.draw();
	}

	override async onClose(): Promise<void> {
		this.unsubscribe?.();
		this.unsubscribe = null;
		this.contentEl.empty();
	}
}
