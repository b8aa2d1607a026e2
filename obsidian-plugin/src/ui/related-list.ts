/** The related-memories panel: each memory with its similarity, score and state. */
import { formatScore, stateLabel } from "../core/format";
import type { RelatedState } from "../core/related-store";
import type { RelatedItem } from "../core/types";

export interface RelatedActions {
	/** `newTab`: a middle or Ctrl/Cmd click. */
	open(item: RelatedItem, newTab: boolean): void;
	/** Hover: a preview of the memory (Obsidian's page preview). */
	hover?(item: RelatedItem, evt: MouseEvent, row: HTMLElement): void;
	/** Right click: open in a new tab, copy link, hide. */
	menu?(item: RelatedItem, evt: MouseEvent): void;
	/** Shows the hidden ones again. */
	unhide?(): void;
}

/** How the panel filters: the similarity floor (0-1), the rows hidden for this note, the folders left out. */
export interface RelatedFilter {
	minSimilarity: number;
	hidden: ReadonlySet<string>;
	/** Folders (vault paths) whose notes are never listed (a setting). */
	excludedFolders?: readonly string[];
}

export const NO_FILTER: RelatedFilter = { minSimilarity: 0, hidden: new Set() };

/** Whether `path` lies in one of `folders` (or below it). */
export function inFolders(path: string, folders: readonly string[]): boolean {
	return folders.some((f) => path.startsWith(`${f.replace(/^\/+|\/+$/g, "")}/`));
}

/** Keys of a related row: Enter opens (Ctrl/Cmd+Enter in a new tab), arrows and j/k move. */
function rowKeys(row: HTMLElement, item: RelatedItem, actions: RelatedActions): void {
	row.addEventListener("keydown", (evt) => {
		const rows = Array.from(row.parentElement?.querySelectorAll<HTMLElement>(".mnemovault-related-row") ?? []);
		const at = rows.indexOf(row);
		let to: HTMLElement | undefined;
		if (evt.key === "Enter") actions.open(item, evt.ctrlKey || evt.metaKey);
		else if (evt.key === "ArrowDown" || evt.key === "j") to = rows[Math.min(rows.length - 1, at + 1)];
		else if (evt.key === "ArrowUp" || evt.key === "k") to = rows[Math.max(0, at - 1)];
		else return;
		evt.preventDefault();
		evt.stopPropagation();
		to?.focus();
	});
}

/** The note's name as a person reads it. */
function nameOf(path: string): string {
	return (path.split("/").pop() ?? path).replace(/\.md$/i, "");
}

/** The wikilink a drag inserts: the vault path without `.md`, shown as the title. */
export function linkFor(item: RelatedItem): string {
	const target = item.path.replace(/\.md$/i, "");
	return item.title && item.title !== target.split("/").pop() ? `[[${target}|${item.title}]]` : `[[${target}]]`;
}

export function renderRelated(
	el: HTMLElement,
	state: RelatedState,
	offlineText: string,
	actions: RelatedActions,
	filter: RelatedFilter = NO_FILTER,
): void {
	el.empty();
	el.addClass("mnemovault-related");
	const heading = el.createDiv({ cls: "mnemovault-related-heading", text: "Related memories" });
	if (state.status !== "idle") {
		heading.setText("Related to ");
		heading.createSpan({ cls: "mnemovault-related-source", text: nameOf(state.path), attr: { "aria-label": state.path } });
	}
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
	// the floor applies to similarities (semantic, shared tags); a title search has no such scale
	const floor = answer.method === "text" ? 0 : filter.minSimilarity;
	const items = answer.items.filter((i) => !inFolders(i.path, filter.excludedFolders ?? []));
	const shown = items.filter((i) => i.similarity >= floor && !filter.hidden.has(i.path));
	const below = items.filter((i) => i.similarity < floor).length;
	const hidden = items.filter((i) => i.similarity >= floor && filter.hidden.has(i.path)).length;
	const left: string[] = [];
	if (below) left.push(`${below} less than ${Math.round(floor * 100)}% similar not shown`);
	if (hidden) left.push(`${hidden} hidden`);
	if (left.length) {
		const note = el.createDiv({ cls: "mnemovault-related-notice mnemovault-related-left", text: `${left.join(" · ")}.` });
		if (hidden && actions.unhide) {
			const unhide = note.createEl("a", { text: " Show hidden", href: "#" });
			unhide.addEventListener("click", (evt) => {
				evt.preventDefault();
				actions.unhide?.();
			});
		}
	}
	if (shown.length === 0) {
		el.createDiv({ cls: "mnemovault-related-empty", text: items.length ? "No memory is close enough to this note." : "No related memories yet." });
		return;
	}
	const list = el.createDiv({ cls: "mnemovault-related-list" });
	for (const item of shown) {
		const row = list.createDiv({
			cls: "mnemovault-related-row",
			attr: { draggable: "true", "data-path": item.path, "aria-label": item.path, tabindex: "0", role: "link" },
		});
		rowKeys(row, item, actions);
		row.createDiv({ cls: "mnemovault-related-title", text: item.title || item.path });
		const meta = row.createDiv({ cls: "mnemovault-related-meta" });
		meta.createSpan({ cls: "mnemovault-related-sim", text: `${Math.round(item.similarity * 100)}% similar` });
		meta.createSpan({ cls: `mnemovault-related-state is-${item.state}`, text: `${formatScore(item.score)} · ${stateLabel(item.state)}` });
		row.addEventListener("click", (evt) => actions.open(item, evt.ctrlKey || evt.metaKey));
		row.addEventListener("auxclick", (evt) => {
			if (evt.button === 1) actions.open(item, true);
		});
		row.addEventListener("mouseover", (evt) => actions.hover?.(item, evt, row));
		row.addEventListener("contextmenu", (evt) => {
			if (!actions.menu) return;
			evt.preventDefault();
			actions.menu(item, evt);
		});
		row.addEventListener("dragstart", (evt) => {
			evt.dataTransfer?.setData("text/plain", linkFor(item));
		});
	}
}
