/** The related-memories panel: each memory with its similarity, score and state. */
import { formatScore, stateLabel } from "../core/format";
import type { RelatedState } from "../core/related-store";
import type { RelatedItem } from "../core/types";

export interface RelatedActions {
	open(item: RelatedItem): void;
}

/** The wikilink a drag inserts: the vault path without `.md`, shown as the title. */
export function linkFor(item: RelatedItem): string {
	const target = item.path.replace(/\.md$/i, "");
	return item.title && item.title !== target.split("/").pop() ? `[[${target}|${item.title}]]` : `[[${target}]]`;
}

export function renderRelated(el: HTMLElement, state: RelatedState, offlineText: string, actions: RelatedActions): void {
	el.empty();
	el.addClass("mnemovault-related");
	el.createDiv({ cls: "mnemovault-related-heading", text: "Related memories" });
	if (state.status === "idle") {
		el.createDiv({ cls: "mnemovault-related-empty", text: "Open a note to see the memories closest to it." });
		return;
	}
	if (state.status === "loading") {
		el.createDiv({ cls: "mnemovault-related-empty", text: "Looking for related memories…" });
		return;
	}
	if (state.status === "error") {
		el.createDiv({ cls: "mnemovault-related-empty", text: state.offline ? offlineText : state.message });
		return;
	}
	const { answer } = state;
	if (answer.notice) el.createDiv({ cls: "mnemovault-related-notice", text: answer.notice });
	if (answer.items.length === 0) {
		el.createDiv({ cls: "mnemovault-related-empty", text: "No related memories yet." });
		return;
	}
	const list = el.createDiv({ cls: "mnemovault-related-list" });
	for (const item of answer.items) {
		const row = list.createDiv({
			cls: "mnemovault-related-row",
			attr: { draggable: "true", "data-path": item.path, "aria-label": item.path },
		});
		row.createDiv({ cls: "mnemovault-related-title", text: item.title || item.path });
		const meta = row.createDiv({ cls: "mnemovault-related-meta" });
		meta.createSpan({ cls: "mnemovault-related-sim", text: `${Math.round(item.similarity * 100)}% similar` });
		meta.createSpan({ cls: `mnemovault-related-state is-${item.state}`, text: `${formatScore(item.score)} · ${stateLabel(item.state)}` });
		row.addEventListener("click", () => actions.open(item));
		row.addEventListener("dragstart", (evt) => {
			evt.dataTransfer?.setData("text/plain", linkFor(item));
		});
	}
}
