/**
 * The page side of the browser test of the built bundle: Obsidian (the tests' mock, on the
 * real DOM) and the Node modules main.js requires. File reads and HTTP go to the test
 * process through functions it exposes (`mvNode`), so main.js talks to the real daemon.
 */
import * as obsidian from "../mocks/obsidian";
import { installObsidianDom } from "../mocks/obsidian-dom";

type NodeCall = (op: string, arg: unknown) => Promise<unknown>;

declare global {
	interface Window {
		mvNode: NodeCall;
		mvHashes: Record<string, string>;
		mvBoot: (code: string, opts: BootOptions) => Promise<void>;
		mvObsidian: typeof obsidian;
		mvApp: obsidian.App;
		mvPlugin: obsidian.Plugin;
	}
}

export interface BootOptions {
	vault: string;
	configDir: string;
	contents: Record<string, string>;
	data: unknown;
}

installObsidianDom(document);
window.mvObsidian = obsidian;

function nodeModules(configDir: string): Record<string, unknown> {
	const call = (op: string) => (arg: unknown) => window.mvNode(op, arg);
	return {
		fs: { promises: { readFile: call("readFile"), readdir: call("readdir"), realpath: call("realpath") } },
		os: { homedir: () => "/home/nobody" },
		path: { join: (...parts: string[]) => parts.join("/").replace(/\/+/g, "/") },
		// the vault key: sha256 of the vault's real path, computed by the test process
		crypto: {
			createHash: () => {
				let text = "";
				const hash = {
					update: (t: string) => ((text += t), hash),
					digest: () => {
						const hex = window.mvHashes[text];
						if (!hex) throw new Error(`no hash prepared for ${text}`);
						return hex;
					},
				};
				return hash;
			},
		},
		timers: { setTimeout: window.setTimeout.bind(window), clearTimeout: window.clearTimeout.bind(window) },
		// no event stream in the page: it fails like a dropped connection, and the plugin asks
		http: {
			request: () => {
				const handlers: Record<string, (e: Error) => void> = {};
				const req = {
					on: (event: string, fn: (e: Error) => void) => ((handlers[event] = fn), req),
					end: () => window.setTimeout(() => handlers.error?.(new Error("no event stream in the test page")), 0),
					destroy: () => undefined,
				};
				return req;
			},
		},
		process: { env: { MNEMOVAULT_CONFIG_DIR: configDir }, platform: "linux" },
	};
}

window.mvBoot = async (code: string, opts: BootOptions) => {
	const modules = nodeModules(opts.configDir);
	const g = window as unknown as { process: unknown; mvRequire: unknown; mvModule: unknown };
	g.process = { ...(modules.process as object), kill: () => true };
	const require = (name: string): unknown => {
		if (name === "obsidian") return obsidian;
		const m = modules[name.replace(/^node:/, "")];
		if (!m) throw new Error(`the test page has no module ${name}`);
		return m;
	};
	obsidian.requestUrlHandler.fn = (req) => window.mvNode("http", req) as Promise<{ status: number; text: string }>;
	obsidian.Modal.parent = document.getElementById("modals");
	const module = { exports: {} as { default?: new (app: obsidian.App, manifest: unknown) => obsidian.Plugin } };
	// main.js as Obsidian loads it: CommonJS with `require` given, run as a script of the page
	g.mvRequire = require;
	g.mvModule = module;
	document.body.createEl("script", {
		text: `(function (require, module, exports) {\n${code}\n})(window.mvRequire, window.mvModule, window.mvModule.exports);`,
	});
	const app = new obsidian.App(opts.vault);
	for (const [path, text] of Object.entries(opts.contents)) app.vault.contents.set(path, text);
	const PluginClass = module.exports.default!;
	const plugin = new PluginClass(app, { id: "mnemovault" });
	plugin.data = opts.data;
	await (plugin as unknown as { onload(): Promise<void> }).onload();
	window.mvApp = app;
	window.mvPlugin = plugin;
};
document.body.dataset.ready = "yes";
