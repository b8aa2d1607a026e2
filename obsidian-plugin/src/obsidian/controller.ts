/**
 * Composition of the plugin: bridge client, connection monitor, event stream, review
 * store, the open note, note actions, jobs, views and commands. main.ts creates one and
 * starts it; the pieces live in active-note.ts, note-actions.ts and jobs-ui.ts.
 */
import { Notice, type App, type Plugin, type WorkspaceLeaf } from "obsidian";
import { ReinforceOnOpenPolicy } from "../core/auto-reinforce";
import { BridgeClient, type HttpRequester } from "../core/bridge-client";
import { locateBridge, type LocatorEnv } from "../core/bridge-locator";
import { captureText, savedMessage } from "../core/capture";
import { ConnectionMonitor, type ConnectionState } from "../core/connection";
import { EventStream, type SseTransport, type StreamStatus } from "../core/event-stream";
import { DUE_COUNT_TITLE, dueCountText, stripFrontmatter } from "../core/format";
import { RelatedStore } from "../core/related-store";
import { ReviewStore, type ReviewState } from "../core/review-store";
import { bridgeOverride, folderList, type MnemovaultSettings } from "../core/settings";
import type { Timers } from "../core/timers";
import { errorMessage } from "../core/messages";
import {
	eventPaths,
	type BackgroundError,
	type BridgeEvent,
	type Move,
	type Note,
	type NoteKind,
	type ReviewGrade,
	type StatusResponse,
} from "../core/types";
import { StatusBarRenderer } from "../ui/status-bar";
import { ActiveNote } from "./active-note";
import { registerCommands } from "./commands";
import { GcModal } from "./gc-modal";
import { JobsUi } from "./jobs-ui";
import { NoteActions } from "./note-actions";
import { RELATED_VIEW_TYPE, RelatedView } from "./related-view";
import { ReviewFlowModal, type NoteText } from "./review-modal";
import { REVIEW_VIEW_TYPE, ReviewView } from "./review-view";
import { MemorySearchModal } from "./search-modal";
import { TagsModal } from "./tags-modal";
import { showThread } from "./thread-modal";

export interface ControllerDeps {
	plugin: Plugin;
	settings: () => MnemovaultSettings;
	vaultPath: string | null;
	http: HttpRequester;
	sse: SseTransport;
	locatorEnv: LocatorEnv;
	timers: Timers;
	notify?: (message: string) => void;
	/** A notice with one button (the archive notice's Undo, the merge confirmation). */
	notifyAction?: (message: string, label: string, run: () => void) => void;
	/** Asks for a capture's tags (a modal in the app). */
	askTags?: (preview: string, done: (tags: string[]) => void) => void;
	/** Timeout of quick requests (long operations run as daemon jobs). */
	requestTimeoutMs?: number;
}

/** The review queue's size in the status bar ("3 due for review", as the card and panel say it); hidden when empty or unknown. */
function renderQueueCount(el: HTMLElement, state: ReviewState): void {
	const n = state.status === "ready" ? state.total : 0;
	el.setText(n ? dueCountText(n) : "");
	el.setAttr("aria-label", `${DUE_COUNT_TITLE} Click to review them one by one.`);
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
	readonly active: ActiveNote;
	readonly actions: NoteActions;
	readonly jobs: JobsUi;
	private statusBar: StatusBarRenderer | null = null;
	/** The review flow while it is open (closed when the plugin unloads). */
	private flow: ReviewFlowModal | null = null;
	private readonly policy: ReinforceOnOpenPolicy;
	/** Keys of health reports already shown, so each one is told once. */
	private readonly reported = new Set<string>();
	private streamStatus: StreamStatus = "stopped";
	private readonly app: App;
	private readonly notify: (message: string) => void;
	private readonly askTags: (preview: string, done: (tags: string[]) => void) => void;

	constructor(private readonly deps: ControllerDeps) {
		this.app = deps.plugin.app;
		this.notify = deps.notify ?? ((message) => new Notice(message, 8000));
		const notifyAction = deps.notifyAction ?? noticeWithButton;
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
		this.store = new ReviewStore(this.client, deps.timers, () => this.monitor.info(), 50, 300, () => deps.settings().reviewProject);
		this.stream = new EventStream({
			transport: deps.sse,
			target: () => this.client.streamTarget(),
			timers: deps.timers,
			onEvent: (event) => this.onEvent(event),
			onStatus: (status) => this.onStreamStatus(status),
		});
		this.policy = new ReinforceOnOpenPolicy(deps.timers);
		this.related = new RelatedStore((path) => this.client.related(path, 15));
		this.active = new ActiveNote({
			app: this.app,
			client: this.client,
			monitor: this.monitor,
			policy: this.policy,
			timers: deps.timers,
			statusBar: () => this.statusBar,
			// the panel follows the open note; its answer arrives later and never blocks the editor
			changed: (path) => {
				if (this.app.workspace.getLeavesOfType(RELATED_VIEW_TYPE).length > 0) this.related.show(path);
			},
			open: (path) => this.openPath(path),
		});
		this.actions = new NoteActions({
			app: this.app,
			client: this.client,
			monitor: this.monitor,
			store: this.store,
			policy: this.policy,
			active: this.active,
			timers: deps.timers,
			notify: this.notify,
			notifyAction,
		});
		this.jobs = new JobsUi({
			client: this.client,
			timers: deps.timers,
			streamOpen: () => this.streamStatus === "open",
			notify: this.notify,
			notifyAction,
			offlineText: () => this.monitor.message(),
			offline: () => this.monitor.state.status === "offline",
			ended: () => {
				this.store.refreshSoon();
				void this.active.show(false);
			},
		});
	}

	start(): void {
		const { plugin } = this.deps;
		plugin.registerView(REVIEW_VIEW_TYPE, (leaf) =>
			new ReviewView(leaf, {
				store: this.store,
				horizonDays: () => this.deps.settings().curveHorizonDays,
				now: () => this.deps.timers.now(),
				open: (note: Note) => this.openPath(note.path),
				grade: (note: Note, grade: ReviewGrade) => this.actions.grade(note.path, grade),
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
				minSimilarity: () => this.deps.settings().relatedMinSimilarity / 100,
				excludedFolders: () => folderList(this.deps.settings().relatedExcludedFolders),
				open: (item, newTab) => this.openPath(item.path, newTab),
				copy: (text) => void navigator.clipboard.writeText(text).then(() => this.notify("Link copied.")),
			}),
		);
		// hovering a related memory shows Obsidian's page preview of it
		plugin.registerHoverLinkSource(RELATED_VIEW_TYPE, { display: "Related memories", defaultMod: false });
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
		this.jobs.attach(plugin.addStatusBarItem());
		registerCommands(plugin, {
			activePath: () => this.activePath(),
			activeKind: () => this.activeKind(),
			jobRunning: (kind) => this.jobs.tracker.isRunning(kind),
			reinforce: (p) => this.reinforce(p),
			pin: (p) => this.actions.pin(p),
			unpin: (p) => this.actions.unpin(p),
			promote: (p) => this.promote(p),
			archive: (p) => this.archive(p),
			restore: (p) => this.restore(p),
			consolidate: (p) => this.consolidate(p),
			runGc: () => this.openGc(),
			promoteAll: () => this.promoteAll(),
			openReview: () => this.openReview(),
			reviewFlow: () => this.reviewFlow(),
			openRelated: () => this.openSide(RELATED_VIEW_TYPE),
			showThread: (p) => this.showThread(p),
			capture: (selection, noteText) => this.capture(selection, noteText),
			openSearch: () => this.openSearch(),
			sync: () => this.sync(),
		});
		plugin.register(this.monitor.onChange((state) => this.onConnection(state)));
		const { workspace, vault } = this.app;
		plugin.registerEvent(
			workspace.on("file-open", (file) => void this.active.fileOpened(file, this.deps.settings().autoReinforceOnOpen)),
		);
		plugin.registerEvent(workspace.on("editor-change", (_editor, info) => this.active.typed(info.file)));
		plugin.registerEvent(
			vault.on("rename", (file, oldPath) => {
				this.policy.moved(oldPath, file.path);
				if (file.path === this.activePath()) void this.active.show(false);
			}),
		);
		workspace.onLayoutReady(() => {
			this.stream.start();
			void this.active.fileOpened(workspace.getActiveFile(), this.deps.settings().autoReinforceOnOpen);
		});
	}

	/** The plugin unloads: no note is open any more for the daemon; the stream closes. */
	stop(): void {
		this.active.removeBanners();
		this.flow?.close();
		this.flow = null;
		this.active.editing.close();
		this.jobs.stop();
		this.stream.stop();
	}

	/** Settings changed: forget the endpoint, reconnect, redraw. */
	settingsChanged(): void {
		for (const leaf of this.app.workspace.getLeavesOfType(RELATED_VIEW_TYPE)) {
			if (leaf.view instanceof RelatedView) leaf.view.redraw();
		}
		this.client.reset();
		this.stream.reconnectNow();
		this.store.refreshSoon();
		void this.active.show(false);
	}

	activePath(): string | null {
		const file = this.app.workspace.getActiveFile();
		return file && file.extension === "md" ? file.path : null;
	}

	activeKind(): NoteKind | null {
		const path = this.activePath();
		if (!path) return null;
		return this.active.kindOf(path);
	}

	private onStreamStatus(status: StreamStatus): void {
		this.streamStatus = status;
		if (status === "open" && !this.client.incompatibleDetail()) this.monitor.report({ online: true });
		// The stream broke while we thought the daemon was up: ask once, which reports.
		else if (status === "waiting" && this.monitor.online) void this.client.status().catch(() => undefined);
	}

	private onConnection(state: ConnectionState): void {
		if (state.status === "offline") {
			this.statusBar?.showOffline(this.monitor.message(), this.monitor.label());
			this.store.setOffline();
		} else if (state.status === "online") {
			if (this.streamStatus !== "open" && this.streamStatus !== "connecting") this.stream.reconnectNow();
			this.store.refreshSoon();
			void this.active.show(false);
		}
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

	private backgroundError(failure: BackgroundError): void {
		const key = `bg:${failure.at}:${failure.task}`;
		if (this.reported.has(key)) return;
		this.reported.add(key);
		const text = `mnemovault background ${failure.task} failed: ${failure.message}`;
		this.notify(text);
		this.statusBar?.showWarning("Mnemovault daemon: background error", text);
	}

	private onEvent(event: BridgeEvent): void {
		this.store.handleEvent(event);
		this.related.handleEvent(event);
		const active = this.active.path;
		if (event.type === "hello" || event.type === "resync") {
			// hello: (re)connected; resync: events were dropped. Either way re-read everything.
			void this.client
				.status()
				.then((s) => {
					this.store.setScoring(s.scoring);
					this.reportHealth(s);
					return this.jobs.resync(); // only once the daemon is known to speak our API
				})
				.catch(() => undefined);
			void this.active.show(false);
			return;
		}
		if (event.type === "background_error") return this.backgroundError(event.data);
		if (event.type === "job") return this.jobs.tracker.handle(event.data);
		// moved by GC, another client or the CLI: the open note follows its file too
		if (event.type === "promoted" || event.type === "archived" || event.type === "restored") this.actions.moved(event.data);
		if (!active) return;
		if (event.type === "score_changed" && event.data.path === active) {
			this.active.score(event.data.score, event.data.state);
		} else if (eventPaths(event).includes(active)) {
			void this.active.show(false);
		}
	}

	reinforce(path: string): Promise<void> {
		return this.actions.reinforce(path);
	}

	promote(path: string): Promise<void> {
		return this.actions.promote(path);
	}

	archive(path: string): Promise<void> {
		return this.actions.archive(path);
	}

	restore(path: string): Promise<void> {
		return this.actions.restore(path);
	}

	reopenAt(path: string, waitMs = 5000): Promise<boolean> {
		return this.actions.reopenAt(path, waitMs);
	}

	/** Sync, promote-all and consolidation run as daemon jobs (jobs-ui.ts). */
	async sync(): Promise<void> {
		await this.jobs.run("sync");
	}

	async promoteAll(): Promise<void> {
		await this.jobs.run("promote");
	}

	consolidate(path: string): Promise<void> {
		const title = this.active.note?.path === path ? this.active.note.title : path;
		return this.jobs.consolidate(path, title);
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
			void this.actions.act(async () => {
				const r = await this.client.save(text, tags);
				this.store.refreshSoon();
				return savedMessage(r);
			}),
		);
	}

	/** The review flow; its requests go straight to the client (the flow tells their outcome itself). */
	reviewFlow(): void {
		const client = this.client;
		const moved = <T>(moves: (r: T) => Move[]) => (r: T) => {
			this.actions.afterMoves(moves(r));
			return r;
		};
		this.flow?.close();
		this.flow = new ReviewFlowModal(this.app, {
			store: this.store,
			readNote: (path) => this.readNote(path),
			grade: (p, g) => client.grade(p, g),
			undoGrade: (p, prior, after) => client.undoGrade(p, prior, after),
			promote: (p) => client.promote(p).then(moved((r) => r.promoted)),
			pin: (p) => client.pin(p),
			unpin: (p, prior) => client.unpin(p, prior),
			archive: (p) => client.archive(p).then(moved((r) => r.archived)),
			restore: (p, prior) => client.restore(p, prior).then(moved((r) => r.restored)),
			errorText: (e) => errorMessage(e, this.monitor.message()),
			offlineInfo: () => this.monitor.info(),
			retry: () => this.refreshAll(),
			open: (p) => this.openPath(p),
			now: () => this.deps.timers.now(),
			horizonDays: () => this.deps.settings().curveHorizonDays,
		});
		this.flow.open();
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
			startJob: () => this.jobs.run("gc"),
			offlineText: () => this.monitor.message(),
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

	/** The conversation thread modal; failures are told like any note action's. */
	showThread(path: string): Promise<void> {
		return this.actions.act(() => showThread(this.app, this.client, path, (p) => this.openPath(p)));
	}

	openPath(path: string, newTab = false): void {
		void this.app.workspace.openLinkText(path, "", newTab);
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
