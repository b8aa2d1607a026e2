/**
 * Composition of the plugin: bridge client, connection monitor, event stream,
 * review store, status bar, views, commands. main.ts creates one and starts it.
 */
import { Notice, type App, type Plugin, type TFile, type WorkspaceLeaf } from "obsidian";
import { ReinforceOnOpenPolicy } from "../core/auto-reinforce";
import { BridgeClient, BridgeOfflineError } from "../core/bridge-client";
import { locateBridge, type LocatorEnv } from "../core/bridge-locator";
import { ConnectionMonitor, type ConnectionState } from "../core/connection";
import { EventStream, type SseTransport, type StreamStatus } from "../core/event-stream";
import { kindFromPath } from "../core/format";
import {
	archivedMessage,
	errorMessage,
	jobDoneMessage,
	jobProgress,
	promotedMessage,
	reinforcedMessage,
	restoredMessage,
	syncedMessage,
} from "../core/messages";
import { ReviewStore, type ReviewState } from "../core/review-store";
import { stripFrontmatter } from "../core/format";
import { bridgeOverride, type MnemovaultSettings } from "../core/settings";
import type { Timers } from "../core/timers";
import {
	eventPaths,
	type BackgroundError,
	type BridgeEvent,
	type Job,
	type Move,
	type Note,
	type NoteKind,
	type StatusResponse,
} from "../core/types";
import { StatusBarRenderer } from "../ui/status-bar";
import type { HttpRequester } from "../core/bridge-client";
import { registerCommands } from "./commands";
import { GcModal } from "./gc-modal";
import { REVIEW_VIEW_TYPE, ReviewView } from "./review-view";
import { ReviewFlowModal, type NoteText } from "./review-modal";
import { TagsModal } from "./tags-modal";
import { captureText, savedMessage } from "../core/capture";
import { RELATED_VIEW_TYPE, RelatedView } from "./related-view";
import { RelatedStore } from "../core/related-store";
import { MemorySearchModal } from "./search-modal";

export interface ControllerDeps {
	plugin: Plugin;
	settings: () => MnemovaultSettings;
	vaultPath: string | null;
	http: HttpRequester;
	sse: SseTransport;
	locatorEnv: LocatorEnv;
	timers: Timers;
	notify?: (message: string) => void;
	/** A notice with one button (the archive notice's Undo). */
	notifyAction?: (message: string, label: string, run: () => void) => void;
	/** Asks for a capture's tags (a modal in the app). */
	askTags?: (preview: string, done: (tags: string[]) => void) => void;
	/** Timeout of quick requests (long operations have their own, far longer one). */
	requestTimeoutMs?: number;
}

/** The review queue's size in the status bar ("3 to review"); hidden when empty or unknown. */
function renderQueueCount(el: HTMLElement, state: ReviewState): void {
	const n = state.status === "ready" ? state.items.length : 0;
	el.setText(n ? `${n} to review` : "");
	el.setAttr("aria-label", "Memories in the danger zone. Click to review them one by one.");
	el.toggleClass("mnemovault-hidden", n === 0);
}

/** An Obsidian notice with the text and one button, which runs and closes it. */
function noticeWithButton(message: string, label: string, run: () => void): void {
	let notice: Notice | null = null;
	const fragment = createFragment((f) => {
		f.appendText(message + " ");
		const button = f.createEl("button", { text: label, cls: "mnemovault-notice-action" });
		button.addEventListener("click", () => {
			run();
			notice?.hide();
		});
	});
	notice = new Notice(fragment, 10_000);
}

export class MnemovaultController {
	readonly monitor: ConnectionMonitor;
	readonly client: BridgeClient;
	readonly stream: EventStream;
	readonly store: ReviewStore;
	readonly related: RelatedStore;
	private statusBar: StatusBarRenderer | null = null;
	private jobItem: HTMLElement | null = null;
	private readonly policy: ReinforceOnOpenPolicy;
	private activeFilePath: string | null = null;
	/** Keys of health reports already shown, so each one is told once. */
	private readonly reported = new Set<string>();
	private streamStatus: StreamStatus = "stopped";
	private readonly app: App;
	private readonly notify: (message: string) => void;
	private readonly askTags: (preview: string, done: (tags: string[]) => void) => void;
	private readonly notifyAction: (message: string, label: string, run: () => void) => void;
	/** The daemon's view of the active note, once it answered. */
	private activeNote: Note | null = null;
	/** The path being reopened after a move (the command's answer and its event both ask). */
	private reopening: string | null = null;

	constructor(private readonly deps: ControllerDeps) {
		this.app = deps.plugin.app;
		this.notify = deps.notify ?? ((message) => new Notice(message, 8000));
		this.notifyAction = deps.notifyAction ?? noticeWithButton;
		this.askTags = deps.askTags ?? ((preview, done) => new TagsModal(this.app, preview, done).open());
		const vaultPath = deps.vaultPath ?? "";
		this.monitor = new ConnectionMonitor(vaultPath || "<vault folder>", this.notify);
		this.client = new BridgeClient({
			http: deps.http,
			timers: deps.timers,
			timeoutMs: deps.requestTimeoutMs ?? 5000,
			locate: () =>
				deps.vaultPath
					? locateBridge(deps.vaultPath, deps.locatorEnv, bridgeOverride(deps.settings()))
					: Promise.resolve({ found: false, reason: "no_file", detail: "this vault is not a folder on disk" }),
			onReachability: (r) => this.monitor.report(r),
		});
		this.store = new ReviewStore(this.client, deps.timers, () => this.monitor.message());
		this.stream = new EventStream({
			transport: deps.sse,
			target: () => this.client.streamTarget(),
			timers: deps.timers,
			onEvent: (event) => this.onEvent(event),
			onStatus: (status) => this.onStreamStatus(status),
		});
		this.policy = new ReinforceOnOpenPolicy(deps.timers);
		this.related = new RelatedStore((path) => this.client.related(path, 15));
	}

	start(): void {
		const { plugin } = this.deps;
		plugin.registerView(REVIEW_VIEW_TYPE, (leaf) =>
			new ReviewView(leaf, {
				store: this.store,
				horizonDays: () => this.deps.settings().curveHorizonDays,
				hint: () => this.monitor.hint(),
				now: () => this.deps.timers.now(),
				open: (note: Note) => this.openPath(note.path),
				reinforce: (note: Note) => this.reinforce(note.path),
				promote: (note: Note) => this.promote(note.path),
				archive: (note: Note) => this.archive(note.path),
				refresh: () => this.refreshAll(),
			}),
		);
		plugin.registerView(RELATED_VIEW_TYPE, (leaf) =>
			new RelatedView(leaf, {
				store: this.related,
				activePath: () => this.activePath(),
				offlineText: () => this.monitor.message(),
				open: (item) => this.openPath(item.path),
			}),
		);
		const item = plugin.addStatusBarItem();
		item.addClass("mod-clickable");
		item.addEventListener("click", () => void this.openReview());
		this.statusBar = new StatusBarRenderer(item);
		this.statusBar.clear();
		plugin.addRibbonIcon("hourglass", "Review memories", () => this.reviewFlow());
		const queue = plugin.addStatusBarItem();
		queue.addClass("mod-clickable", "mnemovault-queue");
		queue.addEventListener("click", () => this.reviewFlow());
		plugin.register(this.store.subscribe((state) => renderQueueCount(queue, state)));
		this.jobItem = plugin.addStatusBarItem();
		this.jobItem.addClass("mnemovault-job", "mnemovault-hidden");
		registerCommands(plugin, {
			activePath: () => this.activePath(),
			activeKind: () => this.activeKind(),
			reinforce: (p) => this.reinforce(p),
			promote: (p) => this.promote(p),
			archive: (p) => this.archive(p),
			restore: (p) => this.restore(p),
			runGc: () => this.openGc(),
			openReview: () => this.openReview(),
			reviewFlow: () => this.reviewFlow(),
			openRelated: () => this.openSide(RELATED_VIEW_TYPE),
			capture: (selection, noteText) => this.capture(selection, noteText),
			openSearch: () => this.openSearch(),
			sync: () => this.sync(),
		});
		plugin.register(this.monitor.onChange((state) => this.onConnection(state)));
		plugin.registerEvent(this.app.workspace.on("file-open", (file) => void this.onFileOpen(file)));
		plugin.registerEvent(
			this.app.vault.on("rename", (file, oldPath) => {
				this.policy.moved(oldPath, file.path);
				if (file.path === this.activePath()) void this.showActive(false);
			}),
		);
		this.app.workspace.onLayoutReady(() => {
			this.stream.start();
			void this.onFileOpen(this.app.workspace.getActiveFile());
		});
	}

	stop(): void {
		this.stream.stop();
	}

	/** Settings changed: forget the endpoint, reconnect, redraw. */
	settingsChanged(): void {
		this.client.reset();
		this.stream.reconnectNow();
		this.store.refreshSoon();
		void this.showActive(false);
	}

	activePath(): string | null {
		const file = this.app.workspace.getActiveFile();
		return file && file.extension === "md" ? file.path : null;
	}

	activeKind(): NoteKind | null {
		const path = this.activePath();
		if (!path) return null;
		return this.activeNote?.path === path ? this.activeNote.kind : kindFromPath(path);
	}

	private onStreamStatus(status: StreamStatus): void {
		this.streamStatus = status;
		if (status === "open" && !this.client.incompatibleDetail()) this.monitor.report({ online: true });
		// The stream broke while we thought the daemon was up: ask once, which reports.
		else if (status === "waiting" && this.monitor.online) void this.client.status().catch(() => undefined);
	}

	private onConnection(state: ConnectionState): void {
		if (state.status === "offline") {
			this.showOffline();
			this.store.setOffline();
		} else if (state.status === "online") {
			if (this.streamStatus !== "open" && this.streamStatus !== "connecting") this.stream.reconnectNow();
			this.store.refreshSoon();
			void this.showActive(false);
		}
	}

	private showOffline(): void {
		this.statusBar?.showOffline(this.monitor.message(), this.monitor.label());
	}

	/** Tells the person, once each, about quarantined files and background failures. */
	private reportHealth(status: StatusResponse): void {
		for (const q of status.quarantined ?? []) {
			const key = `q:${q.file}:${q.cause}`;
			if (this.reported.has(key)) continue;
			this.reported.add(key);
			this.notify(`mnemovault set aside ${q.file}: ${q.cause} (${q.action}).`);
		}
		const failure = status.background?.last_error;
		if (failure) this.backgroundError(failure);
	}

	/** A job's progress in its status bar item; its end as a notice (each job told once). */
	private jobEvent(job: Job): void {
		const el = this.jobItem;
		if (job.state === "running") {
			el?.setText(jobProgress(job));
			el?.toggleClass("mnemovault-hidden", false);
			return;
		}
		el?.setText("");
		el?.toggleClass("mnemovault-hidden", true);
		const key = `job:${job.id}:${job.state}`;
		if (this.reported.has(key)) return;
		this.reported.add(key);
		this.store.refreshSoon();
		this.notify(jobDoneMessage(job));
	}

	private backgroundError(failure: BackgroundError): void {
		const key = `bg:${failure.at}:${failure.task}`;
		if (this.reported.has(key)) return;
		this.reported.add(key);
		const text = `mnemovault background ${failure.task} failed: ${failure.message}`;
		this.notify(text);
		this.statusBar?.showWarning("Memory daemon: background error", text);
	}

	private onEvent(event: BridgeEvent): void {
		this.store.handleEvent(event);
		this.related.handleEvent(event);
		const active = this.activeFilePath;
		if (event.type === "hello" || event.type === "resync") {
			// hello: (re)connected; resync: events were dropped. Either way re-read everything.
			void this.client
				.status()
				.then((s) => {
					this.store.setScoring(s.scoring);
					this.reportHealth(s);
				})
				.catch(() => undefined);
			void this.showActive(false);
			return;
		}
		if (event.type === "background_error") return this.backgroundError(event.data);
		if (event.type === "job") return this.jobEvent(event.data);
		if (event.type === "promoted" || event.type === "archived" || event.type === "restored") {
			this.policy.moved(event.data.from, event.data.to);
			// moved by GC, another client or the CLI: the open note follows its file too
			if (event.data.from === active) void this.reopenAt(event.data.to);
		}
		if (!active) return;
		if (event.type === "score_changed" && event.data.path === active) {
			this.statusBar?.showScore(event.data.score, event.data.state);
		} else if (eventPaths(event).includes(active)) {
			void this.showActive(false);
		}
	}

	private async onFileOpen(file: TFile | null): Promise<void> {
		this.activeFilePath = file && file.extension === "md" ? file.path : null;
		this.activeNote = null;
		// the panel follows the open note; its answer arrives later and never blocks the editor
		if (this.app.workspace.getLeavesOfType(RELATED_VIEW_TYPE).length > 0) this.related.show(this.activeFilePath);
		await this.showActive(this.deps.settings().autoReinforceOnOpen);
	}

	/** Show the active note's score; reinforce it first when the option says so. */
	private async showActive(mayReinforce: boolean): Promise<void> {
		const path = this.activeFilePath;
		if (!path) return this.statusBar?.clear();
		if (this.monitor.state.status === "offline" && !mayReinforce) {
			return this.showOffline();
		}
		try {
			let note = await this.client.note(path);
			if (mayReinforce && this.policy.take(note.path, note.kind)) {
				note = (await this.client.touch(note.path)).note;
			}
			if (path !== this.activeFilePath) return;
			this.activeNote = note;
			if (note.kind === "note") this.statusBar?.clear();
			else this.statusBar?.showScore(note.score ?? note.decay_score, note.state);
		} catch (error) {
			if (path !== this.activeFilePath) return;
			if (error instanceof BridgeOfflineError) this.showOffline();
			else this.statusBar?.clear();
		}
	}

	/** Runs one request for a command and tells the person how it went, once. */
	private async act(run: () => Promise<string | null>): Promise<void> {
		const wasOffline = this.monitor.state.status === "offline";
		try {
			const text = await run();
			if (text !== null) this.notify(text);
		} catch (error) {
			// Going offline already produced its one notice.
			if (error instanceof BridgeOfflineError && !wasOffline) return;
			this.notify(errorMessage(error, this.monitor.message()));
		}
	}

	reinforce(path: string): Promise<void> {
		return this.act(async () => {
			const r = await this.client.touch(path);
			this.store.refreshSoon();
			if (path === this.activeFilePath) this.statusBar?.showScore(r.note.score ?? r.new_score, r.note.state);
			return reinforcedMessage(r);
		});
	}

	promote(path: string): Promise<void> {
		return this.act(async () => {
			const r = await this.client.promote(path);
			this.afterMoves(r.promoted);
			return promotedMessage(r);
		});
	}

	/** Archives, with an Undo on the notice that restores it. */
	archive(path: string): Promise<void> {
		return this.act(async () => {
			const r = await this.client.archive(path);
			this.afterMoves(r.archived);
			const moved = r.archived[0];
			if (r.archived.length !== 1 || !moved) return archivedMessage(r);
			this.notifyAction(archivedMessage(r), "Undo", () => void this.restore(moved.to));
			return null;
		});
	}

	restore(path: string): Promise<void> {
		return this.act(async () => {
			const r = await this.client.restore(path);
			this.afterMoves(r.restored);
			return restoredMessage(r);
		});
	}

	/** After a move: the queue may change, and the open note follows its file. */
	private afterMoves(moves: Move[]): void {
		this.store.refreshSoon();
		for (const m of moves) {
			this.policy.moved(m.from, m.to);
			if (m.from === this.activeFilePath) void this.reopenAt(m.to);
		}
	}

	/**
	 * Opens `path` once Obsidian has seen the moved file (the daemon moves it on disk, so
	 * it arrives as a new file a moment later); never creates a note that is not there.
	 */
	async reopenAt(path: string, waitMs = 5000): Promise<boolean> {
		if (this.reopening === path) return false;
		this.reopening = path;
		try {
			return await this.waitAndOpen(path, waitMs);
		} finally {
			this.reopening = null;
		}
	}

	private async waitAndOpen(path: string, waitMs: number): Promise<boolean> {
		const deadline = this.deps.timers.now() + waitMs;
		while (!this.app.vault.getFileByPath(path)) {
			if (this.deps.timers.now() >= deadline) return false;
			await new Promise<void>((resolve) => this.deps.timers.setTimeout(resolve, 100));
		}
		await this.app.workspace.openLinkText(path, "", false);
		return true;
	}

	sync(): Promise<void> {
		return this.act(async () => {
			const r = await this.client.sync();
			this.store.refreshSoon();
			return syncedMessage(r);
		});
	}

	refreshAll(): void {
		this.client.reset();
		if (this.streamStatus !== "open") this.stream.reconnectNow();
		void this.store.refresh();
	}

	/** Asks for tags, then saves; the notice says saved, reinforced a twin, or why not. */
	capture(selection: string, noteText: string): void {
		const text = captureText(selection, noteText);
		if (!text) return this.notify("Nothing to save: select some text, or write a first paragraph.");
		const preview = text.length > 200 ? text.slice(0, 200) + "…" : text;
		this.askTags(preview, (tags) =>
			void this.act(async () => {
				const r = await this.client.save(text, tags);
				this.store.refreshSoon();
				return savedMessage(r);
			}),
		);
	}

	reviewFlow(): void {
		new ReviewFlowModal(this.app, {
			store: this.store,
			readNote: (path) => this.readNote(path),
			reinforce: (p) => this.reinforce(p),
			promote: (p) => this.promote(p),
			archive: (p) => this.archive(p),
			open: (p) => this.openPath(p),
			now: () => this.deps.timers.now(),
			horizonDays: () => this.deps.settings().curveHorizonDays,
		}).open();
	}

	/** A note's text without frontmatter, and its `archive_on`, from Obsidian's copy. */
	private async readNote(path: string): Promise<NoteText | null> {
		const file = this.app.vault.getFileByPath(path);
		if (!file) return null;
		const raw = await this.app.vault.cachedRead(file);
		const archiveOn = this.app.metadataCache.getFileCache(file)?.frontmatter?.archive_on as unknown;
		return { text: stripFrontmatter(raw).trim(), archiveOn: typeof archiveOn === "string" ? archiveOn : null };
	}

	openGc(): void {
		new GcModal(this.app, {
			client: this.client,
			offlineText: () => this.monitor.message(),
			notify: this.notify,
		}).open();
	}

	openSearch(): void {
		new MemorySearchModal(this.app, {
			client: this.client,
			timers: this.deps.timers,
			offlineText: () => this.monitor.message(),
			open: (path) => this.openPath(path),
		}).open();
	}

	openPath(path: string): void {
		void this.app.workspace.openLinkText(path, "", false);
	}

	openReview(): Promise<void> {
		return this.openSide(REVIEW_VIEW_TYPE);
	}

	/** Reveals the side view of `type`, opening it in the right sidebar the first time. */
	async openSide(type: string): Promise<void> {
		const { workspace } = this.app;
		let leaf: WorkspaceLeaf | null = workspace.getLeavesOfType(type)[0] ?? null;
		if (!leaf) {
			leaf = workspace.getRightLeaf(false);
			if (!leaf) return;
			await leaf.setViewState({ type, active: true });
		}
		await workspace.revealLeaf(leaf);
	}
}
