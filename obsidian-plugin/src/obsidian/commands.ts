/** The plugin's commands (no default hotkeys). Each one calls a single controller action. */
import type { Plugin } from "obsidian";

export interface CommandActions {
	/** Vault path of the active Markdown note, or null. */
	activePath(): string | null;
	reinforce(path: string): Promise<void>;
	promote(path: string): Promise<void>;
	archive(path: string): Promise<void>;
	runGc(): void;
	openReview(): Promise<void>;
	openSearch(): void;
	sync(): Promise<void>;
}

function noteCommand(plugin: Plugin, id: string, name: string, run: (path: string) => Promise<void>, actions: CommandActions) {
	plugin.addCommand({
		id,
		name,
		checkCallback: (checking) => {
			const path = actions.activePath();
			if (!path) return false;
			if (!checking) void run(path);
			return true;
		},
	});
}

export function registerCommands(plugin: Plugin, actions: CommandActions): void {
	noteCommand(plugin, "reinforce-note", "Reinforce this note", (p) => actions.reinforce(p), actions);
	noteCommand(plugin, "promote-note", "Promote this note to long-term memory", (p) => actions.promote(p), actions);
	noteCommand(plugin, "archive-note", "Archive this note", (p) => actions.archive(p), actions);
	plugin.addCommand({ id: "run-gc", name: "Archive forgotten memories (preview first)", callback: () => actions.runGc() });
	plugin.addCommand({ id: "open-review-queue", name: "Open review queue", callback: () => void actions.openReview() });
	plugin.addCommand({ id: "search-memories", name: "Search memories", callback: () => actions.openSearch() });
	plugin.addCommand({ id: "sync-now", name: "Sync now", callback: () => void actions.sync() });
}
