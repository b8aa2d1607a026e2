/** "Save selection as memory": what to save, the tags typed, and the notice for the answer. */
import { stripFrontmatter } from "./format";
import type { Note } from "./types";

export interface SaveResponse {
	saved: boolean;
	reinforced: boolean;
	note: Note;
	duplicate_of?: string;
	near_duplicates?: { path: string; title: string; similarity: number }[];
	message?: string;
}

/** The selection, or (nothing selected) the note's first paragraph that is not a heading. */
export function captureText(selection: string, noteText: string): string {
	const chosen = selection.trim();
	if (chosen) return chosen;
	const paragraphs = stripFrontmatter(noteText)
		.split(/\r?\n\s*\r?\n/)
		.map((p) => p.trim())
		.filter((p) => p && !/^#{1,6}\s/.test(p));
	return paragraphs[0] ?? "";
}

/** "work, #Project/atlas  ops" -> ["work", "project/atlas", "ops"]. */
export function parseTags(input: string): string[] {
	const tags = input
		.split(/[\s,]+/)
		.map((t) => t.replace(/^#/, "").trim().toLowerCase())
		.filter(Boolean);
	return Array.from(new Set(tags));
}

export function savedMessage(r: SaveResponse): string {
	if (!r.saved && r.reinforced) {
		return `Already a memory: reinforced "${r.note.title}" (${r.duplicate_of ?? r.note.path}) instead of copying it.`;
	}
	const near = r.near_duplicates ?? [];
	const tail = near.length ? ` It may supersede "${near[0].title}" (${near[0].path}).` : "";
	return `Saved as a memory: "${r.note.title}" in ${r.note.path}.${tail}`;
}
