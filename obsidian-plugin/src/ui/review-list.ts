/** Renders the review queue (danger-zone memories by priority) into an element. */
import { SECONDS_PER_DAY, secondsUntilBelow } from "../core/decay";
import type { CurveMemory } from "../core/curve";
import { DUE_COUNT_TITLE, dueCountText, formatDays, formatScore, nextDueText, parseTime } from "../core/format";
import type { Note, Scoring } from "../core/types";
import { renderCurve } from "./curve-svg";

export type ReviewStatus = "loading" | "ready" | "offline" | "error";

export interface ReviewModel {
	status: ReviewStatus;
	items: Note[];
	/** Every memory due for review (the one count every place shows). */
	total: number;
	/** When the next memory enters the danger zone (ISO), for the empty queue. */
	nextDue: string | null;
	scoring: Scoring;
	nowMs: number;
	horizonDays: number;
	/** Offline or error text for a person. */
	message: string;
	/** Offline: the one command that fixes it, shown once under the message. */
	command: string | null;
}

export interface ReviewActions {
	open(note: Note): void;
	/** A graded review: "remember" keeps it alive (never up to a promotion), "fade" lets it go. */
	remember(note: Note): void;
	fade(note: Note): void;
	promote(note: Note): void;
	archive(note: Note): void;
	refresh(): void;
}

export function curveMemory(note: Note): CurveMemory {
	return {
		useCount: note.use_count,
		strength: note.strength,
		lastUsedMs: parseTime(note.last_used) ?? parseTime(note.created),
		fallbackScore: note.score ?? note.decay_score,
	};
}

/** How far the forecast looks: the same whatever the curve's horizon, so the words never depend on it. */
export const FORECAST_LIMIT_DAYS = 3650;

/**
 * "forgotten in ~58 d": when the score falls below the forget threshold if unused, however far
 * that is past the curve's horizon (a memory in the danger zone always gets a number).
 */
export function forgetEta(note: Note, scoring: Scoring, nowMs: number): string {
	const m = curveMemory(note);
	if (m.lastUsedMs === null) return "no date of last use";
	const from = Math.max(0, (nowMs - m.lastUsedMs) / 1000);
	const s = secondsUntilBelow(
		scoring.forget_threshold,
		from,
		{ useCount: m.useCount, strength: m.strength },
		scoring,
		FORECAST_LIMIT_DAYS * SECONDS_PER_DAY,
	);
	if (s === null) return "not forgotten within 10 years";
	if (s === 0) return "below the forget threshold";
	return `forgotten in ~${formatDays(s / SECONDS_PER_DAY)}`;
}

function renderHeader(container: HTMLElement, model: ReviewModel, actions: ReviewActions): void {
	const header = container.createDiv({ cls: "mnemovault-review-header" });
	const titles = header.createDiv({ cls: "mnemovault-review-titles" });
	titles.createDiv({ cls: "mnemovault-review-heading", text: "Review queue" });
	const sub =
		model.status === "ready"
			? dueCountText(model.total)
			: model.status === "loading"
				? "Loading…"
				: "";
	titles.createDiv({ cls: "mnemovault-review-sub", text: sub, attr: { title: DUE_COUNT_TITLE } });
	const refresh = header.createEl("button", {
		cls: ["clickable-icon", "mnemovault-review-refresh"],
		text: "↻",
		attr: { "aria-label": "Refresh" },
	});
	refresh.addEventListener("click", () => actions.refresh());
}

/** Keys of the review list (through the view's scope): move with arrows or j/k, act on the focused row. */
export const ROW_KEYS = "↑/↓ move · Enter open · r remember · f fade · p promote (asks first) · a archive";

const ROW_ACTIONS: Record<string, keyof ReviewActions> = {
	Enter: "open",
	o: "open",
	r: "remember",
	f: "fade",
	p: "promote",
	a: "archive",
};

/** The key's action on the focused row of `container`; false when the key is not ours. */
export function listKey(container: HTMLElement, key: string, items: Note[], actions: ReviewActions): boolean {
	const rows = Array.from(container.querySelectorAll<HTMLElement>(".mnemovault-review-row"));
	const focused = rows.find((r) => r.contains(document.activeElement));
	const at = focused ? rows.indexOf(focused) : -1;
	const move = (to: number) => rows[Math.max(0, Math.min(rows.length - 1, to))]?.focus();
	if (key === "ArrowDown" || key === "j") return move(at + 1), true;
	if (key === "ArrowUp" || key === "k") return move(at < 0 ? 0 : at - 1), true;
	const action = ROW_ACTIONS[key];
	const note = focused ? items.find((n) => n.path === focused.getAttribute("data-path")) : undefined;
	const asked = focused?.dataset.confirm === "promote";
	for (const row of rows) clearConfirm(row);
	if (!action || !note || !focused || action === "refresh") return false;
	// a promotion cannot be undone from here: the first p asks, a second p on the same row promotes
	if (action === "promote" && !asked) {
		focused.dataset.confirm = "promote";
		focused.createDiv({
			cls: "mnemovault-review-confirm",
			attr: { role: "alert" },
			text: `Promote "${note.title || note.path}" to long-term memory? It cannot be undone here. Press p again to promote.`,
		});
		return true;
	}
	actions[action](note);
	return true;
}

function clearConfirm(row: HTMLElement): void {
	delete row.dataset.confirm;
	row.querySelector(".mnemovault-review-confirm")?.remove();
}

export function renderRow(list: HTMLElement, note: Note, model: ReviewModel, actions: ReviewActions): HTMLElement {
	const row = list.createDiv({ cls: "mnemovault-review-row", attr: { "data-path": note.path, tabindex: "0" } });
	const head = row.createDiv({ cls: "mnemovault-review-row-head" });
	const title = head.createEl("a", {
		cls: "mnemovault-review-title",
		text: note.title || note.path,
		attr: { href: "#", "aria-label": note.path, tabindex: "-1" },
	});
	title.addEventListener("click", (evt) => {
		evt.preventDefault();
		actions.open(note);
	});
	const button = head.createEl("button", {
		cls: "mnemovault-review-remember",
		text: "Remember",
		attr: { "aria-label": "Remember: keep it alive (a review, not a use; never promotes it)", tabindex: "-1" },
	});
	button.addEventListener("click", (evt) => {
		evt.stopPropagation();
		button.disabled = true;
		actions.remember(note);
	});
	const meta = row.createDiv({ cls: "mnemovault-review-meta" });
	meta.createSpan({ cls: "mnemovault-review-score", text: `Score ${formatScore(note.score ?? note.decay_score)}` });
	meta.createSpan({
		cls: "mnemovault-review-priority",
		text: `Priority ${formatScore(note.review_priority)}`,
		attr: { title: "Review priority: highest in the middle of the danger zone, where a review helps most" },
	});
	meta.createSpan({ cls: "mnemovault-review-eta", text: forgetEta(note, model.scoring, model.nowMs) });
	const curveBox = row.createDiv({ cls: "mnemovault-review-curve" });
	renderCurve(curveBox, curveMemory(note), model.scoring, model.nowMs, model.horizonDays);
	curveBox.addEventListener("click", () => actions.open(note));
	return row;
}

/** Redraws only the rows of `paths`, in place; returns how many were redrawn. */
export function updateRows(container: HTMLElement, paths: string[], model: ReviewModel, actions: ReviewActions): number {
	const list = container.querySelector<HTMLElement>(".mnemovault-review-list");
	if (!list) return 0;
	const byPath = new Map(model.items.map((n) => [n.path, n]));
	let redrawn = 0;
	for (const row of Array.from(list.querySelectorAll<HTMLElement>(".mnemovault-review-row"))) {
		const path = row.getAttribute("data-path");
		const note = path !== null && paths.includes(path) ? byPath.get(path) : undefined;
		if (!note) continue;
		const focused = row.contains(document.activeElement);
		const fresh = renderRow(list, note, model, actions);
		row.replaceWith(fresh);
		if (focused) fresh.focus();
		redrawn++;
	}
	return redrawn;
}

export function renderReviewList(container: HTMLElement, model: ReviewModel, actions: ReviewActions): void {
	container.empty();
	container.addClass("mnemovault-review");
	renderHeader(container, model, actions);
	if (model.status === "offline" || model.status === "error") {
		const box = container.createDiv({ cls: "mnemovault-review-offline" });
		box.createDiv({ cls: "mnemovault-review-offline-text", text: model.message });
		if (model.status === "offline" && model.command) box.createEl("code", { cls: "mnemovault-review-hint", text: model.command });
		const retry = box.createEl("button", { text: "Try again" });
		retry.addEventListener("click", () => actions.refresh());
		return;
	}
	if (model.status === "ready" && model.items.length === 0) {
		container.createDiv({
			cls: "mnemovault-review-empty",
			text: nextDueText(model.nextDue, model.nowMs),
		});
		return;
	}
	container.createDiv({ cls: "mnemovault-review-keys", text: ROW_KEYS });
	const list = container.createDiv({ cls: "mnemovault-review-list" });
	for (const note of model.items) renderRow(list, note, model, actions);
}
