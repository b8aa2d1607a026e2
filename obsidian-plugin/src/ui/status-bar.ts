/** The status bar item: the active note's score and state, or the offline state. */
import { formatScore, stateLabel } from "../core/format";
import type { NoteState } from "../core/types";

const STATE_CLASSES = [
	"is-fresh",
	"is-fading",
	"is-danger",
	"is-forget",
	"is-promote_candidate",
	"is-pinned",
	"is-promoted",
	"is-archived",
	"is-note",
	"is-offline",
	"is-warning",
	"is-superseded",
];

export class StatusBarRenderer {
	constructor(private readonly el: HTMLElement) {
		el.addClass("mnemovault-status");
	}

	private set(text: string, cls: string | null, tooltip: string): void {
		this.el.removeClass(...STATE_CLASSES);
		if (cls) this.el.addClass(cls);
		this.el.setText(text);
		this.el.setAttr("aria-label", tooltip);
		this.el.toggleClass("mnemovault-hidden", text === "");
	}

	showScore(score: number | null, state: NoteState): void {
		this.set(
			`Memory ${formatScore(score)} · ${stateLabel(state)}`,
			`is-${state}`,
			"Decay score of this memory. Click to open the review queue.",
		);
	}

	/** A memory that another one replaced: its score no longer matters. */
	showSuperseded(successor: string | null): void {
		const by = successor ? `Superseded by ${successor}.` : "Superseded.";
		this.set("Memory superseded", "is-superseded", `${by} Click to open the review queue.`);
	}

	showOffline(message: string, label = "Mnemovault daemon offline"): void {
		this.set(label, "is-offline", message);
	}

	/** A problem the daemon reported in the background; the click still opens the review. */
	showWarning(label: string, message: string): void {
		this.set(label, "is-warning", message);
	}

	clear(): void {
		this.set("", null, "");
	}

	get text(): string {
		return this.el.getText();
	}
}
