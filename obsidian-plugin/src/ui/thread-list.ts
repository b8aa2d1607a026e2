/** Body of the thread modal: the turns of a conversation in order, the open memory marked. */
import type { ThreadResponse, ThreadTurn } from "../core/types";

export interface ThreadActions {
	open(turn: ThreadTurn): void;
}

/**
 * When a turn was said, as the conversation wrote it ("2023-05-08 13:56"): its own clock,
 * not converted to this computer's zone, so the turns read as the people said them.
 */
export function saidAtLabel(saidAt: string | null): string {
	if (!saidAt) return "";
	const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?/.exec(saidAt);
	if (!m) return saidAt;
	return m[2] ? `${m[1]} ${m[2]}` : m[1];
}

/** "3 earlier turns not shown" / "1 later turn not shown". */
export function cutLabel(n: number, side: "earlier" | "later"): string {
	return `${n} ${side} ${n === 1 ? "turn" : "turns"} not shown`;
}

/** Why a turn no longer holds, when it does not (archived, superseded); else "". */
function turnFlag(turn: ThreadTurn): string {
	if (turn.status === "superseded") return "superseded";
	if (turn.kind === "archive") return "archived";
	return "";
}

export function renderThread(el: HTMLElement, thread: ThreadResponse, actions: ThreadActions): void {
	el.empty();
	el.addClass("mnemovault-thread");
	el.createDiv({ cls: "mnemovault-thread-conversation", text: `Conversation ${thread.conversation}` });
	if (thread.earlier > 0) el.createDiv({ cls: "mnemovault-thread-cut is-earlier", text: cutLabel(thread.earlier, "earlier") });
	const list = el.createDiv({ cls: "mnemovault-thread-list" });
	for (const turn of thread.turns) {
		const row = list.createDiv({
			cls: turn.this ? "mnemovault-thread-turn is-this" : "mnemovault-thread-turn",
			attr: { "data-path": turn.path, "aria-label": turn.path, tabindex: "0" },
		});
		if (turn.this) row.setAttr("aria-current", "true");
		const meta = row.createDiv({ cls: "mnemovault-thread-meta" });
		meta.createSpan({ cls: "mnemovault-thread-time", text: saidAtLabel(turn.said_at) || "(no time)" });
		const flag = turnFlag(turn);
		if (flag) meta.createSpan({ cls: "mnemovault-thread-flag", text: flag });
		if (turn.this) meta.createSpan({ cls: "mnemovault-thread-here", text: "this memory" });
		// plain text: a turn is what someone said, never Markdown or HTML to render
		row.createDiv({ cls: "mnemovault-thread-text", text: turn.text || turn.title || turn.path });
		row.addEventListener("click", () => actions.open(turn));
		row.addEventListener("keydown", (evt) => {
			if (evt.key === "Enter") actions.open(turn);
		});
	}
	if (thread.later > 0) el.createDiv({ cls: "mnemovault-thread-cut is-later", text: cutLabel(thread.later, "later") });
}
