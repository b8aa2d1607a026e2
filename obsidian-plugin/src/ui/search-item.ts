/** One search result: title, kind, score, snippet. Text only, never HTML. */
import { formatScore, parseTime, snippetParts } from "../core/format";
import type { SearchResult } from "../core/types";

const KIND_LABELS: Record<string, string> = { stm: "short-term", ltm: "long-term", archive: "archived", note: "note" };

export function renderSearchItem(el: HTMLElement, result: SearchResult): void {
	el.addClass("mnemovault-search-item");
	const head = el.createDiv({ cls: "mnemovault-search-head" });
	head.createSpan({ cls: "mnemovault-search-title", text: result.title || result.path });
	const archived = result.kind === "archive" || result.status === "archived";
	const kind = archived ? "archive" : result.kind;
	head.createSpan({ cls: ["mnemovault-search-kind", `is-${kind}`], text: KIND_LABELS[kind] ?? kind });
	if (result.review) head.createSpan({ cls: "mnemovault-search-review", text: "needs review" });
	head.createSpan({
		cls: "mnemovault-search-score",
		text: `relevance ${formatScore(result.score)}`,
		attr: { title: "How well it matches: words and meaning, with the memory's strength blended in" },
	});
	if (result.snippet) {
		const snip = el.createDiv({ cls: "mnemovault-search-snippet" });
		for (const part of snippetParts(result.snippet)) {
			if (part.match) snip.createEl("mark", { text: part.text });
			else snip.createSpan({ text: part.text });
		}
	}
	const dates = [
		["created", result.created],
		["last used", result.last_used],
	].flatMap(([label, value]) => {
		const ms = parseTime(value ?? null);
		return ms === null ? [] : [`${label} ${new Date(ms).toISOString().slice(0, 10)}`];
	});
	el.createDiv({ cls: "mnemovault-search-path", text: [result.path, ...dates].join(" · ") });
}
