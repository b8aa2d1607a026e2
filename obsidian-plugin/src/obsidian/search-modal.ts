/** "Search memories": results from the bridge as you type, Enter opens the note. */
import { SuggestModal, type App } from "obsidian";
import { BridgeApiError, type BridgeClient } from "../core/bridge-client";
import { errorMessage } from "../core/messages";
import { debounceLatest, type Timers } from "../core/timers";
import type { SearchResult } from "../core/types";
import { renderSearchItem } from "../ui/search-item";

export interface SearchModalDeps {
	client: Pick<BridgeClient, "search">;
	timers: Timers;
	offlineText: () => string;
	open: (path: string) => void;
	debounceMs?: number;
}

export class MemorySearchModal extends SuggestModal<SearchResult> {
	private readonly search: (query: string) => Promise<SearchResult[]>;
	/** Archived memories too (Alt+A or the toggle under the field). */
	includeArchived = false;
	private toggleEl: HTMLInputElement | null = null;

	constructor(
		app: App,
		private readonly deps: SearchModalDeps,
	) {
		super(app);
		this.setPlaceholder("Search memories and notes…");
		this.setInstructions([
			{ command: "↑↓", purpose: "to navigate" },
			{ command: "↵", purpose: "to open" },
			{ command: "alt a", purpose: "to include the archive" },
			{ command: "esc", purpose: "to dismiss" },
		]);
		this.emptyStateText = "Type to search.";
		this.search = debounceLatest(
			async (query: string) => {
				try {
					const answer = await deps.client.search(query, 20, "all", this.includeArchived);
					this.emptyStateText = answer.notice ?? "No memory matches.";
					return answer.results;
				} catch (error) {
					// a daemon older than the archive search refuses the field by name
					const old = this.includeArchived && error instanceof BridgeApiError && error.message.includes("include_archived");
					this.emptyStateText = old
						? "This mnemovault daemon cannot search the archive yet: update mnemovault, or turn off Include archive."
						: errorMessage(error, deps.offlineText());
					return [];
				}
			},
			deps.debounceMs ?? 250,
			deps.timers,
		);
	}

	override onOpen(): void {
		void super.onOpen();
		const row = this.modalEl.createDiv({ cls: "mnemovault-search-options" });
		const label = row.createEl("label", { cls: "mnemovault-search-archive" });
		this.toggleEl = label.createEl("input", { attr: { type: "checkbox" } });
		label.createSpan({ text: "Include archive" });
		this.toggleEl.addEventListener("change", () => this.setIncludeArchived(this.toggleEl?.checked ?? false));
		this.scope.register(["Alt"], "a", () => {
			this.setIncludeArchived(!this.includeArchived);
			return false;
		});
	}

	/** Searches again with or without the archive. */
	setIncludeArchived(on: boolean): void {
		this.includeArchived = on;
		if (this.toggleEl) this.toggleEl.checked = on;
		this.inputEl.dispatchEvent(new Event("input"));
	}

	async getSuggestions(query: string): Promise<SearchResult[]> {
		if (query.trim().length === 0) {
			this.emptyStateText = "Type to search.";
			return [];
		}
		return this.search(query.trim());
	}

	renderSuggestion(result: SearchResult, el: HTMLElement): void {
		renderSearchItem(el, result);
	}

	onChooseSuggestion(result: SearchResult): void {
		this.deps.open(result.path);
	}
}
