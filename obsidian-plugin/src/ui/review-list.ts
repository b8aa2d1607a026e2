/** Renders the review queue (danger-zone memories by priority) into an element. */
import { SECONDS_PER_DAY, secondsUntilBelow } from "../core/decay";
import type { CurveMemory } from "../core/curve";
import { formatDays, formatScore, parseTime } from "../core/format";
import type { Note, Scoring } from "../core/types";
import { renderCurve } from "./curve-svg";

export type ReviewStatus = "loading" | "ready" | "offline" | "error";

export interface ReviewModel {
	status: ReviewStatus;
	items: Note[];
	scoring: Scoring;
	nowMs: number;
	horizonDays: number;
	/** Offline or error text for a person. */
	message: string;
	/** The command that starts the daemon. */
	hint: string;
}

export interface ReviewActions {
	open(note: Note): void;
	reinforce(note: Note): void;
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

/** "forgotten in ~5 d" from the model, or null if it stays above the threshold. */
export function forgetEta(note: Note, scoring: Scoring, nowMs: number, horizonDays: number): string | null {
	const m = curveMemory(note);
	if (m.lastUsedMs === null) return null;
	const from = Math.max(0, (nowMs - m.lastUsedMs) / 1000);
	const s = secondsUntilBelow(
		scoring.forget_threshold,
		from,
		{ useCount: m.useCount, strength: m.strength },
		scoring,
		horizonDays * SECONDS_PER_DAY,
	);
	if (s === null) return null;
	if (s === 0) return "below the forget threshold";
	return `forgotten in ~${formatDays(s / SECONDS_PER_DAY)}`;
}

function renderHeader(container: HTMLElement, model: ReviewModel, actions: ReviewActions): void {
	const header = container.createDiv({ cls: "mnemovault-review-header" });
	const titles = header.createDiv({ cls: "mnemovault-review-titles" });
	titles.createDiv({ cls: "mnemovault-review-heading", text: "Review queue" });
	const sub =
		model.status === "ready"
			? `${model.items.length} ${model.items.length === 1 ? "memory" : "memories"} in the danger zone`
			: model.status === "loading"
				? "Loading…"
				: "";
	titles.createDiv({ cls: "mnemovault-review-sub", text: sub });
	const refresh = header.createEl("button", {
		cls: ["clickable-icon", "mnemovault-review-refresh"],
		text: "↻",
		attr: { "aria-label": "Refresh" },
	});
	refresh.addEventListener("click", () => actions.refresh());
}

/** Keys of the review list: move with arrows or j/k; Enter/o open, r reinforce, p promote, a archive. */
export const ROW_KEYS = "↑/↓ move · Enter open · r reinforce · p promote · a archive";

function rowKey(evt: KeyboardEvent, row: HTMLElement, note: Note, actions: ReviewActions): void {
	if (evt.target !== row || evt.ctrlKey || evt.metaKey || evt.altKey) return;
	const move = (next: Element | null) => {
		if (next instanceof HTMLElement) next.focus();
	};
	const handlers: Record<string, () => void> = {
		ArrowDown: () => move(row.nextElementSibling),
		j: () => move(row.nextElementSibling),
		ArrowUp: () => move(row.previousElementSibling),
		k: () => move(row.previousElementSibling),
		Enter: () => actions.open(note),
		o: () => actions.open(note),
		r: () => actions.reinforce(note),
		p: () => actions.promote(note),
		a: () => actions.archive(note),
	};
	const run = handlers[evt.key];
	if (!run) return;
	evt.preventDefault();
	run();
}

export function renderRow(list: HTMLElement, note: Note, model: ReviewModel, actions: ReviewActions): HTMLElement {
	const row = list.createDiv({ cls: "mnemovault-review-row", attr: { "data-path": note.path, tabindex: "0" } });
	const head = row.createDiv({ cls: "mnemovault-review-row-head" });
	const title = head.createEl("a", {
		cls: "mnemovault-review-title",
		text: note.title || note.path,
		attr: { href: "#", "aria-label": note.path },
	});
	title.addEventListener("click", (evt) => {
		evt.preventDefault();
		actions.open(note);
	});
	const button = head.createEl("button", {
		cls: "mnemovault-review-reinforce",
		text: "Reinforce",
		attr: { "aria-label": "Reinforce: count this memory as used now" },
	});
	button.addEventListener("click", (evt) => {
		evt.stopPropagation();
		button.disabled = true;
		actions.reinforce(note);
	});
	row.addEventListener("keydown", (evt) => rowKey(evt, row, note, actions));
	const meta = row.createDiv({ cls: "mnemovault-review-meta" });
	meta.createSpan({ cls: "mnemovault-review-score", text: `Score ${formatScore(note.score ?? note.decay_score)}` });
	meta.createSpan({ cls: "mnemovault-review-priority", text: `Priority ${formatScore(note.review_priority)}` });
	const eta = forgetEta(note, model.scoring, model.nowMs, model.horizonDays);
	if (eta) meta.createSpan({ cls: "mnemovault-review-eta", text: eta });
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
		if (model.status === "offline") {
			box.createDiv({ cls: "mnemovault-review-offline-label", text: "Start the daemon in a terminal:" });
			box.createEl("code", { cls: "mnemovault-review-hint", text: model.hint });
		}
		const retry = box.createEl("button", { text: "Try again" });
		retry.addEventListener("click", () => actions.refresh());
		return;
	}
	if (model.status === "ready" && model.items.length === 0) {
		container.createDiv({
			cls: "mnemovault-review-empty",
			text: "Nothing is about to fade. Memories show up here when their score enters the danger zone.",
		});
		return;
	}
	container.createDiv({ cls: "mnemovault-review-keys", text: ROW_KEYS });
	const list = container.createDiv({ cls: "mnemovault-review-list" });
	for (const note of model.items) renderRow(list, note, model, actions);
}
