/** One memory up for review: title, text, curve, history, and the keys that act on it. */
import { formatScore, parseTime, stateLabel } from "../core/format";
import type { ReviewOutcome } from "../core/review-session";
import type { Note, Scoring } from "../core/types";
import { renderCurve } from "./curve-svg";
import { curveMemory, forgetEta } from "./review-list";

export interface ReviewCardModel {
	note: Note | null;
	/** The note's text without frontmatter (null while it loads). */
	text: string | null;
	/** The `archive_on` frontmatter key, when the note has one. */
	archiveOn: string | null;
	remaining: number;
	summary: Record<ReviewOutcome, number>;
	scoring: Scoring;
	nowMs: number;
	horizonDays: number;
}

export interface ReviewCardActions {
	reinforce(note: Note): void;
	promote(note: Note): void;
	archive(note: Note): void;
	skip(note: Note): void;
	open(note: Note): void;
	close(): void;
}

export const CARD_KEYS: [string, string, keyof ReviewCardActions][] = [
	["r", "Reinforce", "reinforce"],
	["p", "Promote", "promote"],
	["a", "Archive", "archive"],
	["s", "Skip", "skip"],
	["o", "Open", "open"],
];

function date(value: string | null): string {
	const ms = parseTime(value);
	return ms === null ? "never" : new Date(ms).toISOString().slice(0, 10);
}

export function renderReviewCard(el: HTMLElement, model: ReviewCardModel, actions: ReviewCardActions): void {
	el.empty();
	el.addClass("mnemovault-card");
	const note = model.note;
	if (!note) {
		const s = model.summary;
		el.createDiv({ cls: "mnemovault-card-done", text: "Nothing left to review." });
		el.createDiv({
			cls: "mnemovault-card-summary",
			text: `This pass: ${s.reinforced} reinforced, ${s.promoted} promoted, ${s.archived} archived, ${s.skipped} skipped.`,
		});
		return;
	}
	const head = el.createDiv({ cls: "mnemovault-card-head" });
	head.createDiv({ cls: "mnemovault-card-title", text: note.title || note.path });
	head.createDiv({ cls: "mnemovault-card-count", text: `${model.remaining} to review` });
	const meta = el.createDiv({ cls: "mnemovault-card-meta" });
	meta.createSpan({ text: `Score ${formatScore(note.score ?? note.decay_score)} · ${stateLabel(note.state)}` });
	const eta = forgetEta(note, model.scoring, model.nowMs, model.horizonDays);
	if (eta) meta.createSpan({ cls: "mnemovault-card-eta", text: eta });
	el.createDiv({ cls: "mnemovault-card-text", text: model.text ?? "Loading…" });
	const curve = el.createDiv({ cls: "mnemovault-card-curve" });
	renderCurve(curve, curveMemory(note), model.scoring, model.nowMs, model.horizonDays);
	const history = el.createEl("dl", { cls: "mnemovault-card-history" });
	const row = (k: string, v: string) => {
		history.createEl("dt", { text: k });
		history.createEl("dd", { text: v });
	};
	row("Uses", String(note.use_count));
	row("Last used", date(note.last_used));
	row("Created", date(note.created));
	if (model.archiveOn) row("Archive on", model.archiveOn);
	const buttons = el.createDiv({ cls: "mnemovault-card-actions" });
	for (const [key, label, action] of CARD_KEYS) {
		const b = buttons.createEl("button", { text: `${label} (${key})`, attr: { "data-action": action } });
		b.addEventListener("click", () => (action === "close" ? actions.close() : actions[action](note)));
	}
}

/** Runs the action of a key press; returns whether the key was one of ours. */
export function cardKey(key: string, note: Note | null, actions: ReviewCardActions): boolean {
	if (key === "Escape") {
		actions.close();
		return true;
	}
	if (!note) return false;
	const mapped = key === "Enter" ? "open" : key === "ArrowRight" ? "skip" : CARD_KEYS.find(([k]) => k === key)?.[2];
	if (!mapped || mapped === "close") return false;
	actions[mapped](note);
	return true;
}
