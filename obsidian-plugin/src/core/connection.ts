/**
 * Online/offline state of the bridge, fed by every request and by the event stream.
 * A person hears about it once per transition, never once per failed request.
 */
import type { OfflineReason, Reachability } from "./bridge-client";

export type ConnectionState =
	| { status: "unknown" }
	| { status: "online" }
	| { status: "offline"; reason: OfflineReason; detail: string };

export function startHint(vaultPath: string): string {
	const quoted = /[\s"'$`\\]/.test(vaultPath) ? `"${vaultPath.replace(/(["\\$`])/g, "\\$1")}"` : vaultPath;
	return `mnemovault daemon --vault ${quoted}`;
}

/** What is wrong, and the one command that fixes it (null when no command does). */
export interface OfflineInfo {
	text: string;
	command: string | null;
}

export function offlineInfo(state: ConnectionState, vaultPath: string): OfflineInfo {
	if (state.status !== "offline") return { text: "", command: null };
	if (state.reason === "unauthorized") {
		return {
			text: "The mnemovault daemon is running but refused the token (HTTP 401). Clear or correct the token override in the plugin settings; without an override, restart the daemon so it writes a fresh bridge file:",
			command: startHint(vaultPath),
		};
	}
	if (state.reason === "incompatible") {
		return { text: `The mnemovault daemon is running but incompatible: ${state.detail}.`, command: null };
	}
	if (state.reason === "too_new") {
		return { text: `The mnemovault daemon is newer than this plugin (${state.detail}). Update the plugin.`, command: null };
	}
	return { text: "The mnemovault daemon is not running. Start it with:", command: startHint(vaultPath) };
}

/** One line for a notice: the text with its command. */
export function offlineMessage(state: ConnectionState, vaultPath: string): string {
	const info = offlineInfo(state, vaultPath);
	return info.command ? `${info.text} ${info.command}` : info.text;
}

/** Short status bar text for a state (the tooltip carries the full message). */
export function offlineLabel(state: ConnectionState): string {
	if (state.status !== "offline") return "";
	if (state.reason === "unauthorized") return "Mnemovault daemon: token refused";
	if (state.reason === "incompatible" || state.reason === "too_new") return "Mnemovault daemon: incompatible version";
	return "Mnemovault daemon offline";
}

export class ConnectionMonitor {
	private current: ConnectionState = { status: "unknown" };
	private readonly listeners = new Set<(state: ConnectionState) => void>();
	private noticedOffline = false;

	constructor(
		private readonly vaultPath: string,
		private readonly notify: (message: string) => void,
	) {}

	get state(): ConnectionState {
		return this.current;
	}

	get online(): boolean {
		return this.current.status === "online";
	}

	hint(): string {
		return startHint(this.vaultPath);
	}

	label(): string {
		return offlineLabel(this.current);
	}

	message(): string {
		return offlineMessage(this.current, this.vaultPath);
	}

	info(): OfflineInfo {
		return offlineInfo(this.current, this.vaultPath);
	}

	onChange(listener: (state: ConnectionState) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	report(reachability: Reachability): void {
		const before = this.current;
		if (reachability.online) {
			if (before.status === "online") return;
			this.current = { status: "online" };
			if (this.noticedOffline) {
				this.noticedOffline = false;
				this.notify("Connected to the mnemovault daemon.");
			}
		} else {
			const next: ConnectionState = {
				status: "offline",
				reason: reachability.reason,
				detail: reachability.detail,
			};
			const changed = before.status !== "offline" || before.reason !== next.reason;
			this.current = next;
			if (before.status !== "offline") {
				this.noticedOffline = true;
				this.notify(offlineMessage(next, this.vaultPath));
			}
			if (!changed) return;
		}
		for (const listener of this.listeners) listener(this.current);
	}
}
