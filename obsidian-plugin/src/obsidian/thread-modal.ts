/**
 * "Show conversation thread": the memories said around the open one in its conversation.
 * The thread is read first: a note said in no conversation, or a daemon that cannot
 * answer, gets a notice instead of an empty modal.
 */
import { Modal, type App } from "obsidian";
import { BridgeApiError, type BridgeClient } from "../core/bridge-client";
import type { ThreadResponse } from "../core/types";
import { renderThread } from "../ui/thread-list";

/** Turns shown on each side of the open memory. */
export const THREAD_AROUND = 10;

export const NO_CONVERSATION = "This note was not said in a conversation.";

export class ThreadModal extends Modal {
	constructor(
		app: App,
		private readonly thread: ThreadResponse,
		private readonly openNote: (path: string) => void,
	) {
		super(app);
	}

	override onOpen(): void {
		this.titleEl.setText("Conversation thread");
		this.modalEl.addClass("mnemovault-thread-modal");
		renderThread(this.contentEl, this.thread, {
			open: (turn) => {
				this.close();
				this.openNote(turn.path);
			},
		});
		this.contentEl.querySelector<HTMLElement>(".is-this")?.scrollIntoView?.({ block: "center" });
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}

/**
 * Reads the thread of `path` and opens the modal. Answers the notice to show instead
 * (said in no conversation), or null once the modal is open; other failures are thrown,
 * for the caller's usual messages (offline, not indexed, busy).
 */
export async function showThread(app: App, client: Pick<BridgeClient, "thread">, path: string, open: (path: string) => void): Promise<string | null> {
	let thread: ThreadResponse;
	try {
		thread = await client.thread(path, THREAD_AROUND, THREAD_AROUND);
	} catch (error) {
		if (error instanceof BridgeApiError && error.status === 409 && error.code === "wrong_state") return NO_CONVERSATION;
		throw error;
	}
	new ThreadModal(app, thread, open).open();
	return null;
}
