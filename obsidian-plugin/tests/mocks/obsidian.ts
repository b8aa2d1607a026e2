/**
 * Hand-written stand-in for the `obsidian` module (types only on npm), aliased in
 * vitest.config.ts. Just enough behaviour for the plugin's tests; records what the
 * plugin does (commands, notices, views) so tests can assert on it.
 */

export const notices: string[] = [];

export class Notice {
	constructor(message: string) {
		notices.push(message);
	}
	hide(): void {}
}

export class Events {
	private handlers = new Map<string, ((...args: unknown[]) => unknown)[]>();
	on(name: string, cb: (...args: unknown[]) => unknown) {
		const list = this.handlers.get(name) ?? [];
		list.push(cb);
		this.handlers.set(name, list);
		return { name, cb };
	}
	trigger(name: string, ...args: unknown[]): void {
		for (const cb of this.handlers.get(name) ?? []) cb(...args);
	}
}

export class TFile {
	constructor(public path: string) {}
	get extension(): string {
		return this.path.split(".").pop() ?? "";
	}
	get basename(): string {
		return (this.path.split("/").pop() ?? "").replace(/\.[^.]*$/, "");
	}
}

export class FileSystemAdapter {
	constructor(private base: string) {}
	getBasePath(): string {
		return this.base;
	}
}

export type Modifier = "Mod" | "Ctrl" | "Meta" | "Shift" | "Alt";
type KeyHandler = (evt: KeyboardEvent, ctx: { key: string; modifiers: string }) => unknown;
interface Registered {
	scope: Scope;
	modifiers: Modifier[];
	key: string | null;
	func: KeyHandler;
}

/** Obsidian's Scope: keys handled while it is on top of the keymap (a modal, a focused view). */
export class Scope {
	readonly keys: Registered[] = [];
	constructor(public parent?: Scope) {}
	register(modifiers: Modifier[] | null, key: string | null, func: KeyHandler): Registered {
		const h: Registered = { scope: this, modifiers: modifiers ?? [], key, func };
		this.keys.push(h);
		return h;
	}
	unregister(handler: Registered): void {
		const i = this.keys.indexOf(handler);
		if (i >= 0) this.keys.splice(i, 1);
	}
	/** As the app's keymap: the first matching handler runs; `false` stops the key (preventDefault). */
	handle(evt: KeyboardEvent): boolean {
		const held = new Set<string>();
		if (evt.ctrlKey) held.add("Ctrl");
		if (evt.metaKey) held.add("Meta");
		if (evt.altKey) held.add("Alt");
		if (evt.shiftKey) held.add("Shift");
		for (const h of this.keys) {
			const want = new Set<string>(h.modifiers.map((m) => (m === "Mod" ? "Ctrl" : m)));
			const keyOk = h.key === null || h.key.toLowerCase() === evt.key.toLowerCase();
			const modsOk = want.size === held.size && [...want].every((m) => held.has(m));
			if (!keyOk || !modsOk) continue;
			if (h.func(evt, { key: evt.key, modifiers: [...held].join(",") }) === false) {
				evt.preventDefault();
				return true;
			}
		}
		return this.parent ? this.parent.handle(evt) : false;
	}
}

/** The app's keymap: one document listener; the top open modal's scope, else the focused view's. */
const keymap = { modals: [] as Modal[], views: new Set<ItemView>(), installed: null as Document | null };
function installKeymap(): void {
	if (typeof document === "undefined" || keymap.installed === document) return;
	keymap.installed = document;
	document.addEventListener("keydown", (evt) => {
		const modal = keymap.modals[keymap.modals.length - 1];
		if (modal) {
			modal.scope.handle(evt);
			return;
		}
		const focused = document.activeElement;
		for (const view of keymap.views) {
			if (view.scope && focused && view.containerEl.contains(focused)) view.scope.handle(evt);
		}
	});
}

export class Component {
	private cleanups: (() => void)[] = [];
	register(cb: () => void): void {
		this.cleanups.push(cb);
	}
	registerEvent(_ref: unknown): void {}
	registerInterval(id: number): number {
		this.cleanups.push(() => window.clearInterval(id));
		return id;
	}
	unload(): void {
		for (const cb of this.cleanups.splice(0)) cb();
	}
}

export class WorkspaceLeaf {
	app?: App;
	view: unknown = null;
	viewType: string | null = null;
	async setViewState(state: { type: string; active?: boolean }): Promise<void> {
		this.viewType = state.type;
	}
}

export class Workspace extends Events {
	activeFile: TFile | null = null;
	opened: string[] = [];
	leaves: WorkspaceLeaf[] = [];
	getActiveFile(): TFile | null {
		return this.activeFile;
	}
	onLayoutReady(cb: () => void): void {
		cb();
	}
	/** Paths opened in a new tab (openLinkText's newLeaf). */
	openedInNewTab: string[] = [];
	async openLinkText(path: string, _source = "", newLeaf: unknown = false): Promise<void> {
		this.opened.push(path);
		if (newLeaf) this.openedInNewTab.push(path);
	}
	getLeavesOfType(type: string): WorkspaceLeaf[] {
		return this.leaves.filter((l) => l.viewType === type);
	}
	getRightLeaf(_split: boolean): WorkspaceLeaf {
		const leaf = new WorkspaceLeaf();
		this.leaves.push(leaf);
		return leaf;
	}
	async revealLeaf(_leaf: WorkspaceLeaf): Promise<void> {}
}

export class Vault extends Events {
	/** Paths Obsidian knows about (tests add to it). */
	files = new Set<string>();
	/** Contents of files, for cachedRead (tests set them). */
	contents = new Map<string, string>();
	getFileByPath(path: string): TFile | null {
		return this.files.has(path) || this.contents.has(path) ? new TFile(path) : null;
	}
	async cachedRead(file: TFile): Promise<string> {
		return this.contents.get(file.path) ?? "";
	}
	adapter: unknown;
	constructor(basePath = "/vault") {
		super();
		this.adapter = new FileSystemAdapter(basePath);
	}
}

/** Parses `key: value` frontmatter lines of the vault's test contents. */
export class MetadataCache {
	constructor(private readonly vault: Vault) {}
	getFileCache(file: TFile): { frontmatter?: Record<string, unknown> } | null {
		const text = this.vault.contents.get(file.path) ?? "";
		const m = /^---\n([\s\S]*?)\n---/.exec(text);
		if (!m) return null;
		const frontmatter: Record<string, unknown> = {};
		for (const line of m[1].split("\n")) {
			const kv = /^(\w+):\s*(.*)$/.exec(line);
			if (kv) frontmatter[kv[1]] = kv[2];
		}
		return { frontmatter };
	}
}

export class App {
	scope = new Scope();
	workspace = new Workspace();
	metadataCache: MetadataCache;
	vault: Vault;
	constructor(basePath = "/vault") {
		this.vault = new Vault(basePath);
		this.metadataCache = new MetadataCache(this.vault);
	}
}

export interface Command {
	id: string;
	name: string;
	callback?: () => unknown;
	editorCallback?: (editor: { getSelection(): string; getValue(): string }) => unknown;
	checkCallback?: (checking: boolean) => boolean | void;
	hotkeys?: unknown[];
}

export class Plugin extends Component {
	commands: Command[] = [];
	views = new Map<string, (leaf: WorkspaceLeaf) => unknown>();
	statusBarItems: HTMLElement[] = [];
	data: unknown = null;
	constructor(
		public app: App,
		public manifest: unknown = {},
	) {
		super();
	}
	addCommand(command: Command): Command {
		this.commands.push(command);
		return command;
	}
	registerView(type: string, factory: (leaf: WorkspaceLeaf) => unknown): void {
		this.views.set(type, factory);
	}
	ribbon: { icon: string; title: string; run: () => unknown }[] = [];
	addRibbonIcon(icon: string, title: string, run: () => unknown): HTMLElement {
		this.ribbon.push({ icon, title, run });
		return createDiv();
	}
	addStatusBarItem(): HTMLElement {
		const el = createDiv();
		this.statusBarItems.push(el);
		return el;
	}
	/** The settings tabs added (a browser test draws one). */
	settingTabs: unknown[] = [];
	addSettingTab(tab: unknown): void {
		this.settingTabs.push(tab);
	}
	hoverSources = new Map<string, unknown>();
	registerHoverLinkSource(id: string, info: unknown): void {
		this.hoverSources.set(id, info);
	}
	async loadData(): Promise<unknown> {
		return this.data;
	}
	async saveData(data: unknown): Promise<void> {
		this.data = data;
	}
}

export class ItemView extends Component {
	containerEl: HTMLElement;
	contentEl: HTMLElement;
	scope: Scope | null = null;
	app: App;
	constructor(public leaf: WorkspaceLeaf) {
		super();
		this.app = leaf.app ?? new App();
		this.containerEl = createDiv();
		this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
		installKeymap();
		keymap.views.add(this);
		this.register(() => keymap.views.delete(this));
	}
	getIcon(): string {
		return "document";
	}
}

export class Modal {
	containerEl: HTMLElement;
	modalEl: HTMLElement;
	titleEl: HTMLElement;
	contentEl: HTMLElement;
	isOpen = false;
	scope: Scope;
	constructor(public app: App) {
		this.containerEl = createDiv({ cls: "modal-container" });
		this.modalEl = this.containerEl.createDiv({ cls: "modal", attr: { tabindex: "-1" } });
		this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
		this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
		this.scope = new Scope(app.scope);
		this.scope.register([], "Escape", () => {
			this.close();
			return false;
		});
	}
	/** Every modal opened, last one last (tests reach the modal a command opened). */
	static opened: Modal[] = [];
	/** Where open() puts the modal (the browser page sets a visible parent). */
	static parent: HTMLElement | null = null;
	open(): void {
		this.isOpen = true;
		Modal.opened.push(this);
		installKeymap();
		keymap.modals.push(this);
		(Modal.parent ?? (typeof document !== "undefined" ? document.body : null))?.appendChild(this.containerEl);
		this.onOpen();
	}
	close(): void {
		if (!this.isOpen) return;
		this.isOpen = false;
		keymap.modals.splice(keymap.modals.indexOf(this), 1);
		this.onClose();
		this.containerEl.remove();
	}
	onOpen(): void {}
	onClose(): void {}
}

export abstract class SuggestModal<T> extends Modal {
	inputEl: HTMLInputElement = document.createElement("input");
	emptyStateText = "";
	placeholder = "";
	instructions: unknown[] = [];
	setPlaceholder(p: string): void {
		this.placeholder = p;
	}
	setInstructions(i: unknown[]): void {
		this.instructions = i;
	}
	abstract getSuggestions(query: string): T[] | Promise<T[]>;
	abstract renderSuggestion(value: T, el: HTMLElement): void;
	abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;
}

class TextComponent {
	inputEl: HTMLInputElement;
	private cb: ((v: string) => unknown) | null = null;
	constructor(parent: HTMLElement) {
		this.inputEl = parent.createEl("input");
		// typed by a person (a browser test's keyboard): as Obsidian's, each input is a change
		this.inputEl.addEventListener("input", () => void this.cb?.(this.inputEl.value));
	}
	setPlaceholder(p: string): this {
		this.inputEl.placeholder = p;
		return this;
	}
	setValue(v: string): this {
		this.inputEl.value = v;
		return this;
	}
	onChange(cb: (v: string) => unknown): this {
		this.cb = cb;
		return this;
	}
	/** Test helper: type a value. */
	type(v: string): void {
		this.inputEl.value = v;
		this.cb?.(v);
	}
}

class ToggleComponent {
	value = false;
	private cb: ((v: boolean) => unknown) | null = null;
	setValue(v: boolean): this {
		this.value = v;
		return this;
	}
	onChange(cb: (v: boolean) => unknown): this {
		this.cb = cb;
		return this;
	}
	/** Test helper: flip it. */
	toggle(): void {
		this.value = !this.value;
		this.cb?.(this.value);
	}
}

export class Setting {
	settingEl: HTMLElement;
	descEl: HTMLElement;
	name = "";
	desc = "";
	heading = false;
	components: (TextComponent | ToggleComponent)[] = [];
	static all: Setting[] = [];
	constructor(containerEl: HTMLElement) {
		this.settingEl = containerEl.createDiv({ cls: "setting-item" });
		this.descEl = this.settingEl.createDiv({ cls: "setting-item-description" });
		Setting.all.push(this);
	}
	setName(name: string): this {
		this.name = name;
		this.settingEl.insertBefore(createDiv({ cls: "setting-item-name", text: name }), this.descEl);
		return this;
	}
	setDesc(desc: string): this {
		this.desc = desc;
		this.descEl.setText(desc);
		return this;
	}
	setHeading(): this {
		this.heading = true;
		return this;
	}
	addText(cb: (t: TextComponent) => unknown): this {
		const t = new TextComponent(this.settingEl);
		this.components.push(t);
		cb(t);
		return this;
	}
	addToggle(cb: (t: ToggleComponent) => unknown): this {
		const t = new ToggleComponent();
		this.components.push(t);
		cb(t);
		return this;
	}
}

export abstract class PluginSettingTab {
	containerEl: HTMLElement;
	constructor(
		public app: App,
		public plugin: Plugin,
	) {
		this.containerEl = createDiv();
	}
	abstract display(): void;
}

export function setIcon(): void {}

/** An open Markdown note in a leaf (the superseded banner goes into its contentEl). */
export class MarkdownView extends ItemView {
	constructor(
		leaf: WorkspaceLeaf,
		public file: TFile | null,
	) {
		super(leaf);
		leaf.view = this;
		leaf.viewType = "markdown";
	}
}

export interface RequestUrlParam {
	url: string;
	method?: string;
	headers?: Record<string, string>;
	body?: string;
	contentType?: string;
	throw?: boolean;
}

/** Obsidian's requestUrl; a page or test sets what answers it (`requestUrlHandler.fn`). */
export const requestUrlHandler: { fn: ((req: RequestUrlParam) => Promise<{ status: number; text: string }>) | null } = { fn: null };
export function requestUrl(req: RequestUrlParam): Promise<{ status: number; text: string }> {
	if (!requestUrlHandler.fn) throw new Error("requestUrl is not available in tests: inject an HttpRequester");
	return requestUrlHandler.fn(req);
}

export class MenuItem {
	title = "";
	icon = "";
	run: (() => unknown) | null = null;
	setTitle(title: string): this {
		this.title = title;
		return this;
	}
	setIcon(icon: string): this {
		this.icon = icon;
		return this;
	}
	onClick(run: () => unknown): this {
		this.run = run;
		return this;
	}
}

/** Obsidian's context menu; the last one shown is `Menu.shown` (tests pick an item). */
export class Menu {
	static shown: Menu | null = null;
	items: MenuItem[] = [];
	addItem(cb: (item: MenuItem) => unknown): this {
		const item = new MenuItem();
		cb(item);
		this.items.push(item);
		return this;
	}
	showAtMouseEvent(_evt: MouseEvent): this {
		Menu.shown = this;
		return this;
	}
}
