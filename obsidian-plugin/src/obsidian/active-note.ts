/**
 * The open note: its score or state in the status bar, the superseded banner over it, the
 * related panel following it, and the daemon told which note is being edited.
 */
import { MarkdownView, type App, type TFile } from "obsidian";
import type { ReinforceOnOpenPolicy } from "../core/auto-reinforce";
import { BridgeOfflineError, type BridgeClient } from "../core/bridge-client";
import type { ConnectionMonitor } from "../core/connection";
import { EditingReporter } from "../core/editing";
import { kindFromPath } from "../core/format";
import type { Timers } from "../core/timers";
import type { Note, NoteKind } from "../core/types";
import { removeSupersededBanner, renderSupersededBanner } from "../ui/superseded-banner";
import type { StatusBarRenderer } from "../ui/status-bar";

export interface ActiveNoteDeps {
	app: App;
	client: BridgeClient;
	monitor: ConnectionMonitor;
	policy: ReinforceOnOpenPolicy;
	timers: Timers;
	statusBar: () => StatusBarRenderer | null;
	/** The open note changed (the related panel follows it). */
	changed: (path: string | null) => void;
	open: (path: string) => void;
}

/** Whether the daemon's answer says the note was replaced by another. */
export function isSuperseded(note: Note): boolean {
	return note.status === "superseded" || Boolean(note.superseded_by);
}

export class ActiveNote {
	/** Vault path of the open Markdown note, or null. */
	path: string | null = null;
	/** The daemon's view of it, once it answered. */
	note: Note | null = null;
	readonly editing: EditingReporter;

	constructor(private readonly deps: ActiveNoteDeps) {
		this.editing = new EditingReporter((path) => deps.client.editing(path), deps.timers);
	}

	/** What the note at `path` is: the daemon's answer when it is the open one, else by folder. */
	kindOf(path: string): NoteKind {
		return this.note?.path === path ? this.note.kind : kindFromPath(path);
	}

	async fileOpened(file: TFile | null, mayReinforce: boolean): Promise<void> {
		this.path = file && file.extension === "md" ? file.path : null;
		this.note = null;
		this.editing.opened(this.path);
		this.banner(null);
		this.deps.changed(this.path);
		await this.show(mayReinforce);
	}

	/** The person typed in a note (editor-change): a throttled heartbeat to the daemon. */
	typed(file: TFile | null): void {
		if (file && file.extension === "md") this.editing.typed(file.path);
	}

	/** Shows the open note's score (or that it is superseded); reinforces it first when allowed. */
	async show(mayReinforce: boolean): Promise<void> {
		const path = this.path;
		const bar = this.deps.statusBar();
		if (!path) return bar?.clear();
		if (this.deps.monitor.state.status === "offline" && !mayReinforce) {
			return bar?.showOffline(this.deps.monitor.message(), this.deps.monitor.label());
		}
		try {
			let note = await this.deps.client.note(path);
			if (mayReinforce && !isSuperseded(note) && this.deps.policy.take(note.path, note.kind)) {
				note = (await this.deps.client.touch(note.path)).note;
			}
			if (path !== this.path) return;
			this.note = note;
			this.render(note);
		} catch (error) {
			if (path !== this.path) return;
			if (error instanceof BridgeOfflineError) bar?.showOffline(this.deps.monitor.message(), this.deps.monitor.label());
			else bar?.clear();
		}
	}

	/** A live score for the open note; a superseded note keeps saying so. */
	score(score: number | null, state: Note["state"]): void {
		if (this.note && isSuperseded(this.note)) return;
		this.deps.statusBar()?.showScore(score, state);
	}

	private render(note: Note): void {
		const bar = this.deps.statusBar();
		if (isSuperseded(note)) {
			bar?.showSuperseded(note.superseded_by ?? null);
			this.banner(note);
		} else {
			this.banner(null);
			if (note.kind === "note") bar?.clear();
			else bar?.showScore(note.score ?? note.decay_score, note.state);
		}
	}

	/** The plugin unloads: nothing of it stays in a note. */
	removeBanners(): void {
		this.banner(null);
	}

	/** The banner over every open view of the superseded note; gone from all the others. */
	private banner(note: Note | null): void {
		for (const leaf of this.deps.app.workspace.getLeavesOfType("markdown")) {
			const view = leaf.view;
			if (!(view instanceof MarkdownView)) continue;
			if (note && view.file?.path === note.path) {
				renderSupersededBanner(view.contentEl, note.superseded_by ?? null, this.deps.open);
			} else {
				removeSupersededBanner(view.contentEl);
			}
		}
	}
}
