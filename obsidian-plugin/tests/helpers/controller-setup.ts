/** A controller on the mock app, wired to a real HTTP fake daemon (shared by the controller tests). */
import { join } from "node:path";
import type { Plugin as ObsidianPlugin } from "obsidian";
import { afterEach } from "vitest";
import { DEFAULT_SETTINGS, type MnemovaultSettings } from "../../src/core/settings";
import type { Timers } from "../../src/core/timers";
import { MnemovaultController } from "../../src/obsidian/controller";
import { nodeLocatorEnv, nodeTimers } from "../../src/platform/node-env";
import { nodeHttpRequester, nodeSseTransport } from "../../src/platform/node-http";
import { App, Plugin, TFile, type Command } from "../mocks/obsidian";
import { startFakeDaemon, type FakeDaemon } from "./fake-daemon";
import { makeNote, makeStatus, tempDir, writeBridgeFile } from "./fixtures";

export const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const c of cleanups.splice(0).reverse()) await c();
});

export function makeRelated(path: string) {
	return { path, id: null, title: path.replace(/^STM\//, "").replace(/\.md$/, ""), score: 0.5, state: "fading", similarity: 0.8 };
}

export async function setup(settings: Partial<MnemovaultSettings> = {}, requestTimeoutMs?: number, timers: Timers = nodeTimers()) {
	const root = await tempDir();
	const configDir = join(root, "config");
	const vault = join(root, "vault");
	const daemon: FakeDaemon = await startFakeDaemon();
	cleanups.push(() => daemon.close());
	await writeBridgeFile(configDir, vault, { port: daemon.port, token: daemon.token });
	let note = makeNote({ path: "STM/jwt-rotation.md", score: 1, state: "fresh" });
	daemon.routes.set("GET /api/note", () => ({ body: note }));
	daemon.routes.set("GET /api/status", () => ({ body: makeStatus(vault) }));
	daemon.routes.set("GET /api/review", () => ({ body: { items: [makeNote({ title: "Fading fact", score: 0.25, review_priority: 1, state: "danger" })] } }));
	daemon.routes.set("POST /api/touch", () => {
		note = { ...note, use_count: note.use_count + 1, score: 1.52 };
		return { body: { note, old_score: 1, new_score: 1.52 } };
	});
	const app = new App(vault);
	app.workspace.activeFile = new TFile("STM/jwt-rotation.md");
	const plugin = new Plugin(app);
	const notices: string[] = [];
	const actions: { message: string; label: string; run: () => void }[] = [];
	const asked: { preview: string; done: (tags: string[]) => void }[] = [];
	const current: MnemovaultSettings = { ...DEFAULT_SETTINGS, ...settings };
	const controller = new MnemovaultController({
		plugin: plugin as unknown as ObsidianPlugin,
		settings: () => current,
		vaultPath: vault,
		http: nodeHttpRequester(),
		sse: nodeSseTransport,
		locatorEnv: nodeLocatorEnv({ env: { MNEMOVAULT_CONFIG_DIR: configDir } }),
		timers,
		notify: (m) => notices.push(m),
		notifyAction: (message, label, run) => actions.push({ message, label, run }),
		askTags: (preview, done) => asked.push({ preview, done }),
		requestTimeoutMs,
	});
	cleanups.push(() => controller.stop());
	const command = (id: string): Command => plugin.commands.find((c) => c.id === id)!;
	return { app, plugin, controller, daemon, notices, actions, asked, command, vault, bar: () => plugin.statusBarItems[0] };
}

