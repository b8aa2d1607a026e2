/**
 * Issue 16 against the real daemon: the note open in the editor is not rewritten by
 * background work. The plugin reports it with `POST /api/editing`; a sweep through the daemon
 * then leaves that file byte-identical while it writes its twin, and writes it once the
 * editor lets go (`{"path": null}`).
 *
 * Plain node http with the token from the bridge file (the requests BridgeClient makes).
 * Needs the repository's Python environment, as tests/contract/daemon.test.ts does:
 * `MNEMOVAULT_PYTHON`, else `<repo>/.venv`; never skipped.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { request } from "node:http";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const LONG = 60_000;

function findPython(): string {
	const given = process.env.MNEMOVAULT_PYTHON;
	if (given) {
		if (!existsSync(given)) throw new Error(`MNEMOVAULT_PYTHON=${given} does not exist`);
		return given;
	}
	const found = [join(REPO, ".venv", "bin", "python"), join(REPO, ".venv", "Scripts", "python.exe")].find((p) => existsSync(p));
	if (!found) throw new Error("no Python for the daemon: set MNEMOVAULT_PYTHON or create <repo>/.venv (`make test` does)");
	return found;
}

/** An STM memory last used three days ago, with no score written yet: every sweep wants to write it. */
function memory(n: number): string {
	const last = new Date(Date.now() - 3 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
	const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
	return `---\nid: ${id}\ncreated: ${last}\nlast_used: ${last}\nuse_count: 1\nstrength: 1.0\nstatus: active\n---\nMemory number ${n}.\n`;
}

let root = "";
let vault = "";
let daemon: ChildProcess | null = null;
let exited: Promise<void> = Promise.resolve();
let daemonLog = "";
let base = "";
let token = "";

interface Answer {
	status: number;
	json: {
		path?: string | null;
		hold_seconds?: number;
		editing?: string | null;
		result?: { written: number; held: number };
		error?: { code: string; message: string };
	};
}

/** One request with the token, by node's own http module (what the plugin's node transport uses). */
function api(method: "GET" | "POST", path: string, body?: unknown): Promise<Answer> {
	const data = body === undefined ? undefined : JSON.stringify(body);
	return new Promise((done, fail) => {
		const req = request(
			base + path,
			{ method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" } },
			(res) => {
				let text = "";
				res.setEncoding("utf8");
				res.on("data", (chunk: string) => (text += chunk));
				res.on("end", () => done({ status: res.statusCode ?? 0, json: JSON.parse(text) as Answer["json"] }));
			},
		);
		req.on("error", fail);
		req.end(data);
	});
}

async function editing(path: string | null): Promise<Answer> {
	return api("POST", "/api/editing", { path });
}

async function sweep(): Promise<{ written: number; held: number }> {
	const answer = await api("POST", "/api/rpc", { op: "sweep", args: { full: true } });
	expect(answer.status, JSON.stringify(answer.json)).toBe(200);
	if (!answer.json.result) throw new Error("the sweep answered no result");
	return answer.json.result;
}

beforeAll(async () => {
	const python = findPython();
	root = await realpath(await mkdtemp(join(tmpdir(), "mnemovault-editing-")));
	vault = join(root, "vault");
	await mkdir(join(vault, "STM"), { recursive: true });
	await writeFile(join(vault, "STM", "neighbour.md"), memory(1));
	const configDir = join(root, "config");
	const child = spawn(python, ["-m", "bridge.cli", "daemon", "--vault", vault], {
		cwd: REPO,
		stdio: ["ignore", "ignore", "pipe"],
		env: {
			...process.env,
			MNEMOVAULT_CONFIG_DIR: configDir,
			MNEMOVAULT_DATA_DIR: join(root, "data"),
			MNEMOVAULT_LOG_DIR: join(root, "log"),
			MNEMOVAULT_EMBEDDINGS: "false",
			// no "recently edited" grace: only the editor hold may keep a new note unwritten
			MNEMOVAULT_QUIET_SECONDS: "0",
			MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS: "3600",
			MNEMOVAULT_AUTO_PROMOTE: "false",
			MNEMOVAULT_AUTO_GC: "false",
		},
	});
	daemon = child;
	exited = new Promise((done) => child.once("exit", () => done()));
	child.stderr?.setEncoding("utf8");
	child.stderr?.on("data", (chunk: string) => (daemonLog += chunk));
	const bridges = join(configDir, "bridges");
	const start = Date.now();
	for (;;) {
		if (child.exitCode !== null) throw new Error(`the daemon exited early (code ${String(child.exitCode)}):\n${daemonLog}`);
		const files = (await readdir(bridges).catch(() => [] as string[])).filter((n) => n.endsWith(".json"));
		if (files.length > 0) {
			const info = JSON.parse(await readFile(join(bridges, files[0]), "utf8")) as { port: number; token: string };
			base = `http://127.0.0.1:${info.port}`;
			token = info.token;
			// the file is written just before the server listens: ready once status answers
			if ((await api("GET", "/api/status").catch(() => ({ status: 0 }))).status === 200) break;
		}
		if (Date.now() - start > 30_000) throw new Error(`no bridge file after 30 s; daemon output:\n${daemonLog}`);
		await sleep(100);
	}
}, LONG);

afterAll(async () => {
	if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
		daemon.kill("SIGTERM");
		const done = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
		if (!done) daemon.kill("SIGKILL");
	}
	if (root) await rm(root, { recursive: true, force: true });
}, LONG);

async function waitIndexed(path: string): Promise<void> {
	const start = Date.now();
	while ((await api("GET", `/api/note?path=${encodeURIComponent(path)}`)).status !== 200) {
		if (Date.now() - start > 20_000) throw new Error(`${path} was not indexed in 20 s:\n${daemonLog}`);
		await sleep(100);
	}
}

describe("the note open in the editor, against the real daemon", { timeout: LONG }, () => {
	it("a sweep leaves the open note byte-identical and writes its twin; after null it writes it", async () => {
		// the person creates a note and it opens in the editor: reported before the file exists
		expect(await editing("STM/open.md")).toEqual({ status: 200, json: { path: "STM/open.md", hold_seconds: 60 } });
		const open = join(vault, "STM", "open.md");
		const twin = join(vault, "STM", "twin.md");
		await writeFile(open, memory(2));
		await writeFile(twin, memory(3));
		const original = await readFile(open, "utf8");
		await waitIndexed("STM/open.md");
		await waitIndexed("STM/twin.md");

		expect((await editing("STM/open.md")).status).toBe(200); // the heartbeat while typing
		expect((await api("GET", "/api/status")).json.editing).toBe("STM/open.md");
		const held = await sweep();
		expect(held.held).toBe(1);
		expect(await readFile(open, "utf8")).toBe(original);
		expect(await readFile(twin, "utf8")).toMatch(/^decay_score: /m); // the same kind of note, not open: written
		expect(await readFile(join(vault, "STM", "neighbour.md"), "utf8")).toMatch(/^decay_score: /m);

		// a bad report is refused and the hold stands
		const bad = await editing("../outside.md");
		expect(bad.status).toBe(400);
		expect(bad.json.error?.code).toBe("invalid");
		expect((await api("GET", "/api/status")).json.editing).toBe("STM/open.md");
		await sweep();
		expect(await readFile(open, "utf8")).toBe(original);

		// the editor closes the note: the next pass writes it
		expect(await editing(null)).toEqual({ status: 200, json: { path: null, hold_seconds: 60 } });
		expect((await api("GET", "/api/status")).json.editing).toBeNull();
		const released = await sweep();
		expect(released.held).toBe(0);
		expect(released.written).toBeGreaterThanOrEqual(1);
		const after = await readFile(open, "utf8");
		expect(after).not.toBe(original);
		expect(after).toMatch(/^decay_score: /m);
		expect(after.endsWith("---\nMemory number 2.\n")).toBe(true); // only the owned keys changed
	});
});
