/** One search result: title, kind, score, snippet. Text only, never HTML. */
import { formatScore, snippetParts } from "../core/format";
import type { SearchResult } from "../core/types";

const KIND_LABELS: Record<string, string> = { stm: "short-term", ltm: "long-term", archive: "archived", note: "note" };

export function renderSearchItem(el: HTMLElement, result: SearchResult): void {
	el.addClass("mnemovault-search-item");
	const head = el.createDiv({ cls: "mnemovault-search-head" });
	head.createSpan({ cls: "mnemovault-search-title", text: result.title || result.path });
	head.createSpan({ cls: ["mnemovault-search-kind", `is-${result.kind}`], text: KIND_LABELS[result.kind] ?? result.kind });
	if (result.review) head.createSpan({ cls: "mnemovault-search-review", text: "needs review" });
	head.createSpan({ cls: "mnemovault-search-score", text: formatScore(result.score) });
	if (result.snippet) {
		const snip = el.createDiv({ cls: "mnemovault-search-snippet" });
		for (const part of snippetParts(result.snippet)) {
			if (part.match) snip.createEl("mark", { text: part.text });
			else snip.createSpan({ text: part.text });
		}
	}
	el.createDiv({ cls: "mnemovault-search-path", text: result.path });
}
