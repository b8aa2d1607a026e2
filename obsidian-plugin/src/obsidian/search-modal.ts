/** "Search memories": results from the bridge as you type, Enter opens the note. */
import { SuggestModal, type App } from "obsidian";
import type { BridgeClient } from "../core/bridge-client";
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

	constructor(
		app: App,
		private readonly deps: SearchModalDeps,
	) {
		super(app);
		this.setPlaceholder("Search memories and notes…");
		this.setInstructions([
			{ command: "↑↓", purpose: "to navigate" },
			{ command: "↵", purpose: "to open" },
			{ command: "esc", purpose: "to dismiss" },
		]);
		this.emptyStateText = "Type to search.";
		this.search = debounceLatest(
			async (query: string) => {
				try {
					const answer = await deps.client.search(query, 20, "all");
					this.emptyStateText = answer.notice ?? "No memory matches.";
					return answer.results;
				} catch (error) {
					this.emptyStateText = errorMessage(error, deps.offlineText());
					return [];
				}
			},
			deps.debounceMs ?? 250,
			deps.timers,
		);
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
