/** Body of the GC modal: the candidates the daemon would archive, and the choice. */
import { formatScore } from "../core/format";
import type { Candidate } from "../core/types";

export interface GcPreviewActions {
	confirm(): void;
	cancel(): void;
}

export function renderGcLoading(el: HTMLElement): void {
	el.empty();
	el.createDiv({ cls: "mnemovault-gc-status", text: "Looking for memories below the forget threshold…" });
}

export function renderGcError(el: HTMLElement, message: string): void {
	el.empty();
	el.createDiv({ cls: "mnemovault-gc-status", text: message });
}

export function renderGcPreview(el: HTMLElement, candidates: Candidate[], actions: GcPreviewActions): void {
	el.empty();
	if (candidates.length === 0) {
		el.createDiv({ cls: "mnemovault-gc-status", text: "No memory is below the forget threshold. Nothing to archive." });
		const row = el.createDiv({ cls: "modal-button-container" });
		row.createEl("button", { text: "Close" }).addEventListener("click", () => actions.cancel());
		return;
	}
	const n = candidates.length;
	el.createDiv({
		cls: "mnemovault-gc-status",
		text: `${n} ${n === 1 ? "memory" : "memories"} will move to the archive. Nothing is deleted; each can be restored.`,
	});
	const list = el.createEl("ul", { cls: "mnemovault-gc-list" });
	for (const c of candidates) {
		const item = list.createEl("li", { cls: "mnemovault-gc-item" });
		item.createSpan({ cls: "mnemovault-gc-title", text: c.title || c.path });
		item.createSpan({ cls: "mnemovault-gc-score", text: formatScore(c.score) });
		if (c.reason) item.createDiv({ cls: "mnemovault-gc-reason", text: c.reason });
	}
	const row = el.createDiv({ cls: "modal-button-container" });
	row.createEl("button", { text: "Cancel" }).addEventListener("click", () => actions.cancel());
	const confirm = row.createEl("button", { cls: "mod-warning", text: `Archive ${n}` });
	confirm.addEventListener("click", () => {
		confirm.disabled = true;
		actions.confirm();
	});
}
