import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
	BridgeApiError,
	BridgeBusyError,
	BridgeClient,
	BridgeOfflineError,
	type HttpRequester,
	type Reachability,
} from "../../src/core/bridge-client";
import { locateBridge } from "../../src/core/bridge-locator";
import { nodeLocatorEnv, nodeTimers } from "../../src/platform/node-env";
import { nodeHttpRequester } from "../../src/platform/node-http";
import { error, startFakeBridge, startFakeDaemon, type FakeDaemon } from "../helpers/fake-daemon";
import { makeNote, makeStatus, tempDir, writeBridgeFile } from "../helpers/fixtures";

const daemons: FakeDaemon[] = [];
afterEach(async () => {
	await Promise.all(daemons.splice(0).map((d) => d.close()));
});

async function setup(opts: { http?: HttpRequester; timeoutMs?: number } = {}) {
	const { daemon, configDir, vault, locate } = await startFakeBridge();
	daemons.push(daemon);
	const seen: Reachability[] = [];
	const client = new BridgeClient({
		http: opts.http ?? nodeHttpRequester(),
		timers: nodeTimers(),
		timeoutMs: opts.timeoutMs ?? 2000,
		locate,
		onReachability: (r) => seen.push(r),
	});
	return { client, daemon, configDir, vault, seen };
}

describe("BridgeClient against a real HTTP server", () => {
	it("sends the token and reads /api/status", async () => {
		const { client, daemon, vault, seen } = await setup();
		daemon.routes.set("GET /api/status", () => ({ body: makeStatus(vault) }));
		const status = await client.status();
		expect(status.scoring.decay_model).toBe("power_law");
		expect(daemon.requests[0].headers.authorization).toBe(`Bearer ${daemon.token}`);
		expect(daemon.requests[0].headers.host).toBe(`127.0.0.1:${daemon.port}`);
		expect(seen).toEqual([{ online: true }]);
	});

	it("encodes the note path and the search query", async () => {
		const { client, daemon } = await setup();
		daemon.routes.set("GET /api/note", (r) => ({ body: makeNote({ path: r.query.get("path")! }) }));
		daemon.routes.set("GET /api/search", (r) => ({
			body: { results: [], semantic: false, notice: `${r.query.get("q")}|${r.query.get("limit")}|${r.query.get("scope")}` },
		}));
		expect((await client.note("STM/a b&c.md")).path).toBe("STM/a b&c.md");
		expect((await client.search("jwt & keys", 7, "stm")).notice).toBe("jwt & keys|7|stm");
	});

	it("posts JSON bodies as the contract says", async () => {
		const { client, daemon } = await setup();
		const move = { id: "1", title: "T", from: "STM/t.md", to: "LTM/t.md", reason: "manual" };
		daemon.routes.set("POST /api/touch", () => ({ body: { note: makeNote(), old_score: 0.2, new_score: 0.9 } }));
		daemon.routes.set("POST /api/promote", () => ({ body: { promoted: [move], dry_run: false } }));
		daemon.routes.set("POST /api/archive", () => ({ body: { archived: [move] } }));
		daemon.routes.set("POST /api/restore", () => ({ body: { restored: [move] } }));
		daemon.routes.set("POST /api/gc", () => ({ body: { candidates: [], archived: [], dry_run: true } }));
		daemon.routes.set("POST /api/sync", () => ({ body: { added: 1, updated: 0, removed: 0, moved: 0, unchanged: 3, problems: 0 } }));
		daemon.routes.set("GET /api/review", (r) => ({ body: { items: [makeNote({ title: r.query.get("limit")! })] } }));
		await client.touch("STM/t.md", true);
		await client.promote("STM/t.md");
		await client.promoteAuto(true);
		await client.archive("STM/t.md");
		await client.restore("Archive/t.md");
		await client.gc(true);
		await client.sync();
		expect((await client.review(5)).items[0].title).toBe("5");
		await client.review(5, " atlas "); // the review queue scoped to a project (and shared memories)
		const scoped = daemon.requests.filter((r) => r.method === "GET" && r.path === "/api/review").map((r) => r.query.get("project"));
		expect(scoped).toEqual([null, "atlas"]);
		const bodies = daemon.requests.filter((r) => r.method === "POST").map((r) => [r.path, r.body]);
		expect(bodies).toEqual([
			["/api/touch", { ref: "STM/t.md", boost: true }],
			["/api/promote", { ref: "STM/t.md", dry_run: false }],
			["/api/promote", { auto: true, dry_run: true }],
			["/api/archive", { ref: "STM/t.md" }],
			["/api/restore", { ref: "Archive/t.md" }],
			["/api/gc", { dry_run: true }],
			["/api/sync", {}],
		]);
		for (const r of daemon.requests.filter((x) => x.method === "POST")) {
			expect(r.headers["content-type"]).toBe("application/json");
		}
	});

	it("turns error objects into BridgeApiError and stays online", async () => {
		const { client, daemon, seen } = await setup();
		daemon.routes.set("POST /api/promote", () => error(409, "wrong_state", "STM/x.md is already promoted"));
		const failure = await client.promote("STM/x.md").catch((e: unknown) => e);
		expect(failure).toBeInstanceOf(BridgeApiError);
		expect(failure).toMatchObject({ status: 409, code: "wrong_state", message: "STM/x.md is already promoted" });
		expect(seen).toEqual([{ online: true }]);
	});

	it("asks for a thread by ref with before/after, and maps a note said in no conversation to wrong_state", async () => {
		const { client, daemon, seen } = await setup();
		const turn = (path: string, text: string, self = false) => ({
			path, id: null, title: text, kind: "stm", status: "active", said_at: "2023-05-08T13:56:00+00:00", text, this: self,
		});
		daemon.routes.set("GET /api/thread", (r) =>
			r.query.get("ref") === "STM/none.md"
				? error(409, "wrong_state", "STM/none.md was not said in a conversation (it has no `conversation` key)")
				: {
						body: {
							conversation: "c-1",
							path: r.query.get("ref"),
							turns: [turn("STM/a.md", "hi"), turn(r.query.get("ref")!, "there", true)],
							earlier: Number(r.query.get("before")),
							later: Number(r.query.get("after")),
						},
					},
		);
		const thread = await client.thread("STM/a b&c.md", 3, 7);
		const asked = daemon.requests.at(-1)!;
		expect([asked.method, asked.path, [...asked.query.entries()]]).toEqual([
			"GET",
			"/api/thread",
			[["ref", "STM/a b&c.md"], ["before", "3"], ["after", "7"]],
		]);
		expect(thread).toMatchObject({ conversation: "c-1", path: "STM/a b&c.md", earlier: 3, later: 7 });
		expect(thread.turns.map((t) => [t.path, t.this])).toEqual([["STM/a.md", false], ["STM/a b&c.md", true]]);
		await client.thread("STM/x.md");
		expect([daemon.requests.at(-1)!.query.get("before"), daemon.requests.at(-1)!.query.get("after")]).toEqual(["5", "5"]);
		const failure = await client.thread("STM/none.md").catch((e: unknown) => e);
		expect(failure).toBeInstanceOf(BridgeApiError);
		expect(failure).toMatchObject({ status: 409, code: "wrong_state" });
		expect(seen.every((r) => r.online)).toBe(true);
	});

	it("is offline with no_daemon when there is no bridge file", async () => {
		const root = await tempDir();
		const env = nodeLocatorEnv({ env: { MNEMOVAULT_CONFIG_DIR: join(root, "nothing") } });
		const seen: Reachability[] = [];
		const client = new BridgeClient({
			http: nodeHttpRequester(),
			timers: nodeTimers(),
			locate: () => locateBridge(join(root, "vault"), env),
			onReachability: (r) => seen.push(r),
		});
		await expect(client.status()).rejects.toMatchObject({ name: "BridgeOfflineError", reason: "no_daemon" });
		expect(seen[0]).toMatchObject({ online: false, reason: "no_daemon" });
	});

	it("is offline with refused when the file names a port nobody listens on", async () => {
		const { client, daemon, seen } = await setup();
		await daemon.close();
		daemons.splice(0);
		const failure = await client.status().catch((e: unknown) => e);
		expect(failure).toBeInstanceOf(BridgeOfflineError);
		expect(failure).toMatchObject({ reason: "refused" });
		expect(seen.at(-1)).toMatchObject({ online: false, reason: "refused" });
	});

	it("calls a daemon that does not answer in time busy, never offline", async () => {
		const { client, daemon, seen } = await setup({ timeoutMs: 150 });
		daemon.routes.set("GET /api/status", () => "hang");
		const started = Date.now();
		const failure = await client.status().catch((e: unknown) => e);
		expect(failure).toBeInstanceOf(BridgeBusyError);
		expect((failure as Error).message).toMatch(/busy: no answer within 150 ms\. It keeps working/);
		expect(Date.now() - started).toBeLessThan(1500);
		expect(seen.some((r) => !r.online)).toBe(false);
	});

	it("waits for long operations far beyond the short timeout", async () => {
		const { client, daemon, seen } = await setup({ timeoutMs: 100 });
		daemon.routes.set("POST /api/gc", async () => {
			await sleep(400);
			return { body: { candidates: [], archived: [], dry_run: false } };
		});
		expect((await client.gc(false)).dry_run).toBe(false);
		expect(seen.every((r) => r.online)).toBe(true);
	});

	it("reports a daemon speaking another bridge API as incompatible, with its version", async () => {
		const { client, daemon, vault, seen } = await setup();
		const old = makeStatus(vault);
		daemon.routes.set("GET /api/status", () => ({ body: { ...old, daemon: { pid: 1, started: "x", version: "0.0.9" } } }));
		const failure = await client.status().catch((e: unknown) => e);
		expect(failure).toMatchObject({ reason: "incompatible" });
		expect(seen.at(-1)).toMatchObject({ online: false, reason: "incompatible" });
		expect((failure as Error).message).toBe(
			"the daemon 0.0.9 speaks bridge API 0, this plugin needs 1: update mnemovault (pip install -U mnemovault) and restart the daemon",
		);
		daemon.routes.set("GET /api/status", () => ({ body: { ...old, daemon: { pid: 1, started: "x", api: 2 } } }));
		await expect(client.status()).rejects.toThrow(/API 2, this plugin knows 1: update the plugin/);
	});

	it("follows the daemon to its new port and token after a restart", async () => {
		const { client, daemon, configDir, vault, seen } = await setup();
		daemon.routes.set("GET /api/status", () => ({ body: makeStatus(vault) }));
		await client.status();
		await daemon.close();
		daemons.splice(0);
		const second = await startFakeDaemon("new-token");
		daemons.push(second);
		second.routes.set("GET /api/status", () => ({ body: makeStatus("second") }));
		await writeBridgeFile(configDir, vault, { port: second.port, token: second.token });
		expect((await client.status()).vault).toBe("second");
		expect(seen.every((r) => r.online)).toBe(true);
	});

	it("re-reads the token after a 401 and reports unauthorized when it is still refused", async () => {
		const { client, daemon, configDir, vault, seen } = await setup();
		daemon.routes.set("GET /api/status", () => ({ body: makeStatus(vault) }));
		await writeBridgeFile(configDir, vault, { port: daemon.port, token: "wrong" });
		client.reset();
		await expect(client.status()).rejects.toMatchObject({ reason: "unauthorized" });
		expect(seen.at(-1)).toMatchObject({ online: false, reason: "unauthorized" });
		await writeBridgeFile(configDir, vault, { port: daemon.port, token: daemon.token });
		expect((await client.status()).vault).toBe(vault);
	});

	it("gives the stream target with the token", async () => {
		const { client, daemon } = await setup();
		expect(await client.streamTarget()).toEqual({
			url: `http://127.0.0.1:${daemon.port}/api/events`,
			headers: { Authorization: `Bearer ${daemon.token}`, Accept: "text/event-stream" },
		});
	});
});
