/** One memory up for review: title, text, curve, history, and the actions on it; or why there is none. */
import type { OfflineInfo } from "../core/connection";
import { DUE_COUNT_TITLE, dueCountText, formatScore, nextDueText, parseTime, stateLabel } from "../core/format";
import { OUTCOMES, type ReviewOutcome } from "../core/review-session";
import type { Note, Scoring } from "../core/types";
import { renderCurve, renderCurveLegend } from "./curve-svg";
import { curveMemory, forgetEta } from "./review-list";

export interface ReviewCardModel {
	note: Note | null;
	/** The note's text without frontmatter (null while it loads). */
	text: string | null;
	/** The `archive_on` frontmatter key, when the note has one. */
	archiveOn: string | null;
	/** Every memory due for review (the same count as the status bar's and the panel's). */
	count: number;
	/** A promotion waits for a yes: the card asks instead of offering its actions. */
	confirming?: boolean;
	summary: Record<ReviewOutcome, number>;
	scoring: Scoring;
	nowMs: number;
	horizonDays: number;
	/** The queue is still being read from the daemon. */
	loading?: boolean;
	/** No daemon (or a refused token): what is wrong and the command that fixes it. */
	offline?: OfflineInfo | null;
	/** A request is running ("Remembering…"): the actions wait. */
	busy?: string | null;
	error?: string | null;
	notice?: string | null;
	/** Skipped memories still due (offered again at the end). */
	skippedDue?: number;
	/** What Undo would take back, only when it can ("Undo: archived …"). */
	undoable?: string | null;
	/** When the next memory enters the danger zone (ISO), for the empty queue. */
	nextDue?: string | null;
}

export type CardAction =
	| "remember"
	| "fade"
	| "pin"
	| "promote"
	| "archive"
	| "skip"
	| "open"
	| "undo"
	| "again"
	| "retry"
	| "close"
	| "confirm"
	| "cancel";

export const CARD_KEYS: [string, string, CardAction, string][] = [
	["r", "Remember", "remember", "Keep it alive: a review, not a use; it never promotes it"],
	["f", "Let fade", "fade", "Let it fade: out of the queue, on towards the archive"],
	["k", "Pin", "pin", "Keep it as it is: it keeps its score and never comes back for review or goes to the archive on its own (Undo unpins it)"],
	["p", "Promote", "promote", "Move it to long-term memory (asks first: it cannot be undone here)"],
	["a", "Archive", "archive", "Archive it now (Undo brings it back as it was)"],
	["s", "Skip", "skip", "Not now: it stays due"],
	["o", "Open", "open", "Open the note"],
];

const OUTCOME_WORDS: Record<ReviewOutcome, string> = {
	remembered: "remembered",
	faded: "let fade",
	pinned: "pinned",
	promoted: "promoted",
	archived: "archived",
	skipped: "skipped",
};

function date(value: string | null): string {
	const ms = parseTime(value);
	return ms === null ? "never" : new Date(ms).toISOString().slice(0, 10);
}

/** "This pass: 3 remembered, 1 archived." (only what the daemon confirmed). */
export function summaryText(s: Record<ReviewOutcome, number>): string {
	const parts = OUTCOMES.filter((o) => s[o] > 0).map((o) => `${s[o]} ${OUTCOME_WORDS[o]}`);
	return parts.length ? `This pass: ${parts.join(", ")}.` : "This pass: nothing yet.";
}

function button(parent: HTMLElement, action: CardAction, text: string, run: (a: CardAction) => void, opts: { key?: string; title?: string; cta?: boolean; disabled?: boolean } = {}): HTMLButtonElement {
	const b = parent.createEl("button", { text, attr: { "data-action": action } });
	if (opts.key) b.createSpan({ cls: "mnemovault-key", text: opts.key });
	if (opts.title) b.setAttr("title", opts.title);
	if (opts.cta) b.addClass("mod-cta");
	if (opts.disabled) b.disabled = true;
	b.addEventListener("click", () => run(action));
	return b;
}

/**
 * Renders the card; returns the element that should have the focus (the first action of
 * the new card, or the one way on when there is no card).
 */
export function renderReviewCard(el: HTMLElement, model: ReviewCardModel, run: (action: CardAction) => void): HTMLElement | null {
	el.empty();
	el.addClass("mnemovault-card");
	const note = model.note;
	el.setAttr("data-path", note && !model.offline ? note.path : "");
	if (model.offline) {
		const box = el.createDiv({ cls: "mnemovault-card-offline", attr: { role: "alert" } });
		box.createDiv({ cls: "mnemovault-card-offline-text", text: model.offline.text });
		if (model.offline.command) box.createEl("code", { cls: "mnemovault-card-command", text: model.offline.command });
		box.createDiv({ cls: "mnemovault-card-summary", text: `${summaryText(model.summary)} Nothing more is counted until the daemon answers.` });
		const actions = el.createDiv({ cls: "mnemovault-card-actions" });
		const retry = button(actions, "retry", "Try again", run, { key: "Enter", cta: true });
		button(actions, "close", "Close", run, { key: "Esc" });
		return retry;
	}
	if (model.loading && !note) {
		el.createDiv({ cls: "mnemovault-card-done", text: "Loading the review queue…" });
		return null;
	}
	const status = el.createDiv({ cls: "mnemovault-card-status", attr: { "aria-live": "polite" } });
	if (model.error) status.createDiv({ cls: "mnemovault-card-error", text: model.error });
	if (model.notice) status.createDiv({ cls: "mnemovault-card-notice", text: model.notice });
	if (!note) {
		const skipped = model.skippedDue ?? 0;
		el.createDiv({
			cls: "mnemovault-card-done",
			text: skipped ? `Nothing left in this pass; ${skipped} skipped ${skipped === 1 ? "memory is" : "memories are"} still due.` : "Nothing left to review.",
		});
		if (!skipped && model.count === 0) el.createDiv({ cls: "mnemovault-card-next", text: nextDueText(model.nextDue ?? null, model.nowMs) });
		el.createDiv({ cls: "mnemovault-card-summary", text: summaryText(model.summary) });
		const actions = el.createDiv({ cls: "mnemovault-card-actions" });
		const first = skipped ? button(actions, "again", "Review the skipped ones", run, { key: "Enter", cta: true }) : null;
		if (model.undoable) button(actions, "undo", "Undo", run, { key: "u", title: model.undoable });
		const close = button(actions, "close", "Close", run, { key: "Esc" });
		return first ?? close;
	}
	const head = el.createDiv({ cls: "mnemovault-card-head" });
	head.createDiv({ cls: "mnemovault-card-title", text: note.title || note.path });
	head.createDiv({ cls: "mnemovault-card-count", text: dueCountText(model.count), attr: { title: DUE_COUNT_TITLE } });
	const meta = el.createDiv({ cls: "mnemovault-card-meta" });
	meta.createSpan({ text: `Score ${formatScore(note.score ?? note.decay_score)} · ${stateLabel(note.state)}` });
	meta.createSpan({ cls: "mnemovault-card-eta", text: forgetEta(note, model.scoring, model.nowMs) });
	if (note.project !== undefined) meta.createSpan({ cls: "mnemovault-card-project", text: note.project ? `Project ${note.project}` : "Shared" });
	el.createDiv({ cls: "mnemovault-card-text", text: model.text ?? "Loading…" });
	const curve = el.createDiv({ cls: "mnemovault-card-curve" });
	renderCurve(curve, curveMemory(note), model.scoring, model.nowMs, model.horizonDays);
	renderCurveLegend(curve, model.scoring);
	const history = el.createEl("dl", { cls: "mnemovault-card-history" });
	const row = (k: string, v: string) => {
		history.createEl("dt", { text: k });
		history.createEl("dd", { text: v });
	};
	row("Uses", String(note.use_count));
	row("Last used", date(note.last_used));
	row("Created", date(note.created));
	if (model.archiveOn) row("Archive on", model.archiveOn);
	if (model.confirming) {
		const ask = el.createDiv({ cls: "mnemovault-card-confirm", attr: { role: "alertdialog", "aria-label": "Confirm the promotion" } });
		ask.createDiv({
			cls: "mnemovault-card-confirm-text",
			text: `Promote "${note.title || note.path}" to long-term memory? It moves to the long-term folder, and the review cannot undo that.`,
		});
		const row = ask.createDiv({ cls: "mnemovault-card-actions" });
		const yes = button(row, "confirm", "Promote", run, { key: "p", cta: true, disabled: Boolean(model.busy) });
		button(row, "cancel", "Cancel", run, { key: "n", disabled: Boolean(model.busy) });
		return model.busy ? null : yes;
	}
	const actions = el.createDiv({ cls: "mnemovault-card-actions" });
	let first: HTMLElement | null = null;
	for (const [key, label, action, title] of CARD_KEYS) {
		const b = button(actions, action, label, run, { key, title, cta: action === "remember", disabled: Boolean(model.busy) });
		first ??= b;
	}
	if (model.undoable) button(actions, "undo", "Undo", run, { key: "u", title: model.undoable, disabled: Boolean(model.busy) });
	el.createDiv({ cls: "mnemovault-card-summary", text: model.busy ?? summaryText(model.summary) });
	return model.busy ? null : first; // a disabled button cannot hold the focus: the card does
}

/** The action of a key press on the card; null when the key is not the card's. */
/**
 * The action of a key press on the card; null when the key is not the card's. Enter presses
 * the focused button (the modal does that first); here it is only the way on when no
 * button has the focus.
 */
export function cardKey(key: string, model: Pick<ReviewCardModel, "note" | "offline" | "skippedDue" | "undoable" | "confirming">): CardAction | null {
	if (key === "Escape") return "close";
	if (model.offline) return key === "Enter" ? "retry" : null;
	if (model.note && model.confirming) return key === "p" || key === "Enter" ? "confirm" : key === "n" ? "cancel" : null;
	if (key === "u") return model.undoable ? "undo" : null;
	if (!model.note) return key === "Enter" && model.skippedDue ? "again" : null;
	if (key === "Enter") return null;
	if (key === "ArrowRight") return "skip";
	return CARD_KEYS.find(([k]) => k === key)?.[2] ?? null;
}
