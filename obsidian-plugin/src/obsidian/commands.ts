/** The plugin's commands (no default hotkeys). Each one calls a single controller action. */
import type { Editor, Plugin } from "obsidian";
import type { JobKind, NoteKind } from "../core/types";

export interface CommandActions {
	/** Vault path of the active Markdown note, or null. */
	activePath(): string | null;
	/** What the active note is (memory kinds, or "note"); null when not known. */
	activeKind(): NoteKind | null;
	/** Whether a daemon job of this kind is running (its command waits until it ends). */
	jobRunning(kind: JobKind): boolean;
	reinforce(path: string): Promise<void>;
	pin(path: string): Promise<void>;
	unpin(path: string): Promise<void>;
	promote(path: string): Promise<void>;
	archive(path: string): Promise<void>;
	restore(path: string): Promise<void>;
	consolidate(path: string): Promise<void>;
	runGc(): void;
	promoteAll(): Promise<void>;
	openReview(): Promise<void>;
	reviewFlow(): void;
	openRelated(): Promise<void>;
	/** The memories said around this note in its conversation (a modal). */
	showThread(path: string): Promise<void>;
	/** Save the editor's selection (or the note's first paragraph) as a memory. */
	capture(selection: string, noteText: string): void;
	openSearch(): void;
	sync(): Promise<void>;
}

/** A command on the active note, offered only when the note is one of `kinds`. */
function noteCommand(
	plugin: Plugin,
	actions: CommandActions,
	id: string,
	name: string,
	kinds: readonly NoteKind[],
	run: (path: string) => Promise<void>,
) {
	plugin.addCommand({
		id,
		name,
		checkCallback: (checking) => {
			const path = actions.activePath();
			const kind = actions.activeKind();
			if (!path || !kind || !kinds.includes(kind)) return false;
			if (!checking) void run(path);
			return true;
		},
	});
}

/** A command that starts a daemon job, offered while no job of its kind runs. */
function jobCommand(plugin: Plugin, actions: CommandActions, id: string, name: string, kind: JobKind, run: () => unknown) {
	plugin.addCommand({
		id,
		name,
		checkCallback: (checking) => {
			if (actions.jobRunning(kind)) return false;
			if (!checking) void run();
			return true;
		},
	});
}

export function registerCommands(plugin: Plugin, actions: CommandActions): void {
	noteCommand(plugin, actions, "reinforce-note", "Reinforce this memory", ["stm", "ltm"], (p) => actions.reinforce(p));
	noteCommand(plugin, actions, "pin-note", "Pin this memory", ["stm", "ltm"], (p) => actions.pin(p));
	noteCommand(plugin, actions, "unpin-note", "Unpin this memory", ["stm", "ltm"], (p) => actions.unpin(p));
	noteCommand(plugin, actions, "promote-note", "Promote this memory to long-term", ["stm"], (p) => actions.promote(p));
	noteCommand(plugin, actions, "archive-note", "Archive this memory", ["stm"], (p) => actions.archive(p));
	noteCommand(plugin, actions, "restore-note", "Restore this memory from the archive", ["archive"], (p) => actions.restore(p));
	noteCommand(plugin, actions, "consolidate-note", "Merge this memory with similar ones", ["stm"], (p) => actions.consolidate(p));
	plugin.addCommand({
		id: "save-selection",
		name: "Save selection as memory",
		editorCallback: (editor: Editor) => actions.capture(editor.getSelection(), editor.getValue()),
	});
	jobCommand(plugin, actions, "run-gc", "Archive forgotten memories (preview first)", "gc", () => actions.runGc());
	jobCommand(plugin, actions, "promote-all", "Promote all strong memories to long-term", "promote", () => actions.promoteAll());
	plugin.addCommand({ id: "review-memories", name: "Review memories", callback: () => actions.reviewFlow() });
	plugin.addCommand({ id: "open-review-queue", name: "Open review queue", callback: () => void actions.openReview() });
	plugin.addCommand({ id: "open-related", name: "Open related memories", callback: () => void actions.openRelated() });
	plugin.addCommand({
		id: "show-thread",
		name: "Show conversation thread",
		// any Markdown note: whether it was said in a conversation only the daemon knows
		checkCallback: (checking) => {
			const path = actions.activePath();
			if (!path) return false;
			if (!checking) void actions.showThread(path);
			return true;
		},
	});
	plugin.addCommand({ id: "search-memories", name: "Search memories", callback: () => actions.openSearch() });
	jobCommand(plugin, actions, "sync-now", "Sync now", "sync", () => actions.sync());
}
