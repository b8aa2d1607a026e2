/** Short human texts for scores and states (status bar, review rows, notices). */
import type { NoteKind, NoteState } from "./types";

const STATE_LABELS: Record<NoteState, string> = {
	fresh: "fresh",
	fading: "fading",
	danger: "danger zone",
	forget: "forgotten soon",
	promote_candidate: "promote candidate",
	pinned: "pinned",
	promoted: "promoted",
	archived: "archived",
	note: "note",
};

export function stateLabel(state: string): string {
	return (STATE_LABELS as Record<string, string>)[state] ?? state.replace(/_/g, " ");
}

/** The one count of the review queue, as every place shows it. */
export function dueCountText(n: number): string {
	return `${n} due for review`;
}

/** What the count counts (its tooltip). */
export const DUE_COUNT_TITLE = "Memories in the danger zone: each is due for review now.";

/** The empty queue: when the next memory is due, from the daemon's `next_due`. */
export function nextDueText(nextDue: string | null, nowMs: number): string {
	const at = parseTime(nextDue);
	if (at === null) return "Nothing is due for review, and no memory is on its way to the danger zone.";
	const days = Math.max(0, (at - nowMs) / 86_400_000);
	const day = new Date(at).toISOString().slice(0, 10);
	return `Nothing is due for review. The next memory enters the danger zone on ${day} (in ~${formatDays(days)}).`;
}

export function formatScore(score: number | null | undefined): string {
	if (score === null || score === undefined || !Number.isFinite(score)) return "–";
	if (score > 0 && score < 0.01) return "<0.01";
	return score.toFixed(2);
}

export function formatDays(days: number): string {
	if (days < 1) {
		const hours = Math.max(1, Math.round(days * 24));
		return `${hours} h`;
	}
	return `${Math.round(days)} d`;
}

/** Milliseconds since the epoch from an ISO timestamp, or null. */
export function parseTime(value: string | null | undefined): number | null {
	if (!value) return null;
	const ms = Date.parse(value);
	return Number.isNaN(ms) ? null : ms;
}

/** A note's kind from its path in the default vault layout (when the daemon has not said). */
export function kindFromPath(path: string): NoteKind {
	if (path.startsWith("STM/")) return "stm";
	if (path.startsWith("LTM/")) return "ltm";
	if (path.startsWith("Archive/")) return "archive";
	return "note";
}

/**
 * A search snippet as plain pieces: the daemon marks matched words with `**`; odd
 * pieces are matches. The text is never parsed as Markdown or HTML.
 */
export function snippetParts(snippet: string): { text: string; match: boolean }[] {
	const pieces = plainMarkdown(snippet).split("**");
	// an odd number of markers (a note's own stray `**`): the text after the last one is plain
	const unclosed = pieces.length % 2 === 0 ? pieces.length - 1 : -1;
	return pieces.map((text, i) => ({ text, match: i % 2 === 1 && i !== unclosed })).filter((p) => p.text !== "");
}

/**
 * Markdown syntax a snippet may carry, turned into the words a person reads: links show
 * their text, headings, list markers, code ticks and other emphasis go. `**` (the match
 * markers) is kept for snippetParts.
 */
export function plainMarkdown(text: string): string {
	return text
		.replace(/!?\[\[([^\]|]*)\|([^\]]*)\]\]/g, "$2")
		.replace(/!?\[\[([^\]]*)\]\]/g, (_m, target: string) => target.split("#")[0].split("/").pop() ?? target)
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
		.replace(/(^|\n)\s{0,3}#{1,6}\s+/g, "$1")
		.replace(/(^|\n)\s*(?:[-*+]|\d+\.)\s+(?:\[[ xX]\]\s+)?/g, "$1")
		.replace(/`+/g, "")
		.replace(/__|~~|==/g, "")
		.replace(/(^|[\s(])_([^_\n]+)_(?=[\s).,;:!?]|$)/g, "$1$2");
}

/** A note's text after its YAML frontmatter (the whole text when it has none). */
export function stripFrontmatter(text: string): string {
	const m = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/.exec(text);
	return m ? text.slice(m[0].length) : text;
}
