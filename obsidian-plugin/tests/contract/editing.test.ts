// @vitest-environment happy-dom
/**
 * End to end: the note open in the editor is not rewritten by background work.
 * The plugin's own controller (on the obsidian mock) reports the open note to the real
 * daemon by itself; a sweep through the daemon then leaves that note byte-identical while
 * it writes its neighbours, writes it once another note is opened, and on unload the
 * daemon holds nothing. Daemon start-up: tests/contract/real-daemon.ts (no quiet grace,
 * so only the editor hold keeps a new note unwritten). happy-dom: the controller draws its status bar.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Plugin as ObsidianPlugin } from "obsidian";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/core/settings";
import type { EditingResponse } from "../../src/core/types";
import { MnemovaultController } from "../../src/obsidian/controller";
import { nodeLocatorEnv, nodeTimers } from "../../src/platform/node-env";
import { nodeHttpRequester, nodeSseTransport } from "../../src/platform/node-http";
import { App, Plugin, TFile } from "../mocks/obsidian";
import { startRealDaemon, type RealDaemon } from "./real-daemon";

const LONG = 90_000;
let d: RealDaemon;

/** An STM memory last used three days ago, with no score written yet: every sweep wants to write it. */
function memory(n: number): string {
	const last = new Date(Date.now() - 3 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
	const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
	return `---\nid: ${id}\ncreated: ${last}\nlast_used: ${last}\nuse_count: 1\nstrength: 1.0\nstatus: active\n---\nMemory number ${n}.\n`;
}

/** Polls an async condition until it holds (or fails the test after `ms`, with the daemon's log). */
async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
	const start = Date.now();
	while (!(await check().catch(() => false))) {
		if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}; daemon output:\n${d.log()}`);
		await sleep(50);
	}
}

const held = async () => (await d.client.request<{ editing: string | null }>("GET", "/api/status")).editing;
const waitHeld = (path: string | null) => until(async () => (await held()) === path, `status editing = ${String(path)}`);
const waitIndexed = (path: string) => until(async () => (await d.client.note(path)).path === path, `${path} indexed`);
const scored = (text: string) => /^decay_score: /m.test(text);
const file = (name: string) => join(d.vault, "STM", name);

async function sweep(): Promise<{ written: number; held: number }> {
	const answer = await d.client.request<{ result: { written: number; held: number } }>("POST", "/api/rpc", { op: "sweep", args: { full: true } });
	return answer.result;
}

/** The plugin's controller on the mock app, its client pointed at the real daemon. */
function pluginOn(daemon: RealDaemon) {
	const app = new App(daemon.vault);
	const plugin = new Plugin(app);
	const controller = new MnemovaultController({
		plugin: plugin as unknown as ObsidianPlugin,
		settings: () => ({ ...DEFAULT_SETTINGS, autoReinforceOnOpen: false }),
		vaultPath: daemon.vault,
		http: nodeHttpRequester(),
		sse: nodeSseTransport,
		locatorEnv: nodeLocatorEnv({ env: { MNEMOVAULT_CONFIG_DIR: daemon.configDir } }),
		timers: nodeTimers(),
		notify: () => undefined,
		notifyAction: () => undefined,
	});
	return { app, controller };
}

let plugin: ReturnType<typeof pluginOn> | null = null;

beforeAll(async () => {
	d = await startRealDaemon({
		prepare: (_python, vault) => {
			mkdirSync(join(vault, "STM"), { recursive: true });
			writeFileSync(join(vault, "STM", "neighbour.md"), memory(1));
		},
	});
}, LONG);

afterAll(async () => {
	plugin?.controller.stop();
	await d?.stop();
}, LONG);

describe("the note open in the editor, the plugin against the real daemon", { timeout: LONG }, () => {
	it("the open note is left byte-identical by sweeps; another note opened, it is written; unload holds nothing", async () => {
		expect(await held()).toBeNull();
		// the person creates a note and it is open in the editor when the plugin loads
		plugin = pluginOn(d);
		const { app, controller } = plugin;
		app.workspace.activeFile = new TFile("STM/open.md");
		controller.start();
		await waitHeld("STM/open.md"); // reported by the controller itself, before the file exists

		await writeFile(file("open.md"), memory(2));
		await writeFile(file("twin.md"), memory(3));
		const original = await readFile(file("open.md"), "utf8");
		await waitIndexed("STM/open.md");
		await waitIndexed("STM/twin.md");

		const first = await sweep();
		expect(first.held).toBe(1);
		expect(await readFile(file("open.md"), "utf8")).toBe(original);
		expect(scored(await readFile(file("twin.md"), "utf8"))).toBe(true); // the same kind of note, not open: written
		expect(scored(await readFile(file("neighbour.md"), "utf8"))).toBe(true);

		// the hold is not used up by one pass
		expect((await sweep()).held).toBe(1);
		expect(await readFile(file("open.md"), "utf8")).toBe(original);

		// the person opens another new note: the hold moves with the file-open event
		app.workspace.activeFile = new TFile("STM/other.md");
		app.workspace.trigger("file-open", app.workspace.activeFile);
		await waitHeld("STM/other.md");
		await writeFile(file("other.md"), memory(4));
		const otherOriginal = await readFile(file("other.md"), "utf8");
		await waitIndexed("STM/other.md");

		const second = await sweep();
		expect(second.held).toBe(1);
		const after = await readFile(file("open.md"), "utf8");
		expect(after).not.toBe(original);
		expect(scored(after)).toBe(true);
		expect(after.endsWith("---\nMemory number 2.\n")).toBe(true); // only the owned keys changed
		expect(await readFile(file("other.md"), "utf8")).toBe(otherOriginal);

		// the plugin unloads: the daemon holds nothing, and the next sweep writes the last note
		controller.stop();
		await waitHeld(null);
		expect((await sweep()).held).toBe(0);
		expect(scored(await readFile(file("other.md"), "utf8"))).toBe(true);
	});

	it("the daemon's answer to a report is the shape the plugin's client types", async () => {
		const answer: EditingResponse = await d.client.editing("STM/new note.md");
		expect(answer).toEqual({ path: "STM/new note.md", hold_seconds: 60 });
		expect(await d.client.editing(null)).toEqual({ path: null, hold_seconds: 60 });
		expect(await held()).toBeNull();
	});
});
