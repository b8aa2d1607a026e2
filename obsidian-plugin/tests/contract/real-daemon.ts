/**
 * Starts the real Python daemon on a temp vault for a contract test file, and stops it.
 * Needs the repository's Python environment: `MNEMOVAULT_PYTHON`, else `<repo>/.venv`;
 * without one the test fails (never skipped).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { BridgeClient, type Reachability } from "../../src/core/bridge-client";
import { locateBridge, type BridgeOverride } from "../../src/core/bridge-locator";
import { EventStream, type StreamStatus } from "../../src/core/event-stream";
import type { BridgeEvent } from "../../src/core/types";
import { nodeLocatorEnv, nodeTimers } from "../../src/platform/node-env";
import { nodeHttpRequester, nodeSseTransport } from "../../src/platform/node-http";
import { waitFor } from "../helpers/wait";

// from the path string, not `new URL`: under happy-dom (a controller test) URL is the DOM's
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

export function findPython(): string {
	const given = process.env.MNEMOVAULT_PYTHON;
	if (given) {
		if (!existsSync(given)) throw new Error(`MNEMOVAULT_PYTHON=${given} does not exist`);
		return given;
	}
	const candidates = [join(REPO, ".venv", "bin", "python"), join(REPO, ".venv", "Scripts", "python.exe")];
	const found = candidates.find((p) => existsSync(p));
	if (!found) {
		throw new Error(
			`no Python for the daemon: set MNEMOVAULT_PYTHON or create ${candidates[0]} ` +
				"(`make test` builds the venv first); this contract test is never skipped",
		);
	}
	return found;
}

/** Runs Python in the repository (for setting up a vault); throws with its stderr. */
export function runPython(python: string, script: string, args: string[]): string {
	const run = spawnSync(python, ["-c", script, ...args], { cwd: REPO, encoding: "utf8" });
	if (run.status !== 0) throw new Error(`python failed: ${run.stderr || String(run.error)}`);
	return run.stdout;
}

function pidOf(text: string): number | null {
	try {
		return (JSON.parse(text) as { pid?: number }).pid ?? null;
	} catch {
		return null; // being written
	}
}

export interface RealDaemon {
	vault: string;
	/** The daemon's config folder (its bridge file): a plugin's locator env points here. */
	configDir: string;
	/** The daemon process's pid. */
	pid: number | undefined;
	client: BridgeClient;
	/** What `client` reported about reaching the daemon, in order. */
	reachability: Reachability[];
	events: BridgeEvent[];
	/** The event stream's statuses, in order. */
	streamStatus: StreamStatus[];
	/** Another client on the same locator env, with an optional override (a wrong token...). */
	makeClient: (override?: BridgeOverride | null, onReachability?: (r: Reachability) => void) => BridgeClient;
	log: () => string;
	/**
	 * Stops the event stream and the daemon (SIGTERM, SIGKILL after 5 s) but keeps the temp
	 * folder; returns the signal that ended the process (null when it exited by itself).
	 */
	halt: () => Promise<NodeJS.Signals | null>;
	/** The daemon alone goes away (SIGTERM) / a new one starts on the same vault and config. */
	down: () => Promise<NodeJS.Signals | null>;
	up: () => Promise<void>;
	/** halt, then delete the temp folder. */
	stop: () => Promise<void>;
}

/**
 * A daemon on `vault` (filled by `prepare`), with the plugin's client and event stream.
 * `env` adds daemon settings (MNEMOVAULT_EMBEDDINGS...).
 */
export async function startRealDaemon(opts: {
	prepare: (python: string, vault: string) => void;
	env?: Record<string, string>;
	timeoutMs?: number;
}): Promise<RealDaemon> {
	const python = findPython();
	const root = await realpath(await mkdtemp(join(tmpdir(), "mnemovault-contract-")));
	const vault = join(root, "vault");
	const configDir = join(root, "config");
	opts.prepare(python, vault);
	const daemonEnv = {
		...process.env,
		MNEMOVAULT_CONFIG_DIR: configDir,
		MNEMOVAULT_DATA_DIR: join(root, "data"),
		MNEMOVAULT_LOG_DIR: join(root, "log"),
		MNEMOVAULT_EMBEDDINGS: "false",
		MNEMOVAULT_QUIET_SECONDS: "0",
		MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS: "3600",
		// The first lifecycle run comes 10 s after start: keep it from moving notes under the test.
		MNEMOVAULT_AUTO_PROMOTE: "false",
		MNEMOVAULT_AUTO_GC: "false",
		...opts.env,
	};
	let log = "";
	const launch = async () => {
		const child: ChildProcess = spawn(python, ["-m", "bridge.cli", "daemon", "--vault", vault], {
			cwd: REPO,
			stdio: ["ignore", "ignore", "pipe"],
			env: daemonEnv,
		});
		child.stderr?.setEncoding("utf8");
		child.stderr?.on("data", (chunk: string) => (log += chunk));
		const exited = new Promise<void>((done) => child.once("exit", () => done()));
		const running = () => child.exitCode === null && child.signalCode === null;
		const start = Date.now();
		for (;;) {
			if (!running()) throw new Error(`the daemon exited early (code ${String(child.exitCode)}):\n${log}`);
			// this process's bridge file (a daemon that was stopped may have left its own)
			const files = await readdir(join(configDir, "bridges")).catch(() => [] as string[]);
			const pids = await Promise.all(
				files
					.filter((n) => n.endsWith(".json"))
					.map((n) => readFile(join(configDir, "bridges", n), "utf8").then(pidOf, () => null)),
			);
			if (pids.includes(child.pid ?? -1)) break;
			if (Date.now() - start > 60_000) throw new Error(`no bridge file after 60 s; daemon output:\n${log}`);
			await sleep(100);
		}
		return { child, exited, running };
	};
	let proc = await launch();
	const env = nodeLocatorEnv({ env: { MNEMOVAULT_CONFIG_DIR: configDir } });
	const makeClient = (override: BridgeOverride | null = null, onReachability?: (r: Reachability) => void) =>
		new BridgeClient({
			http: nodeHttpRequester(),
			timers: nodeTimers(),
			timeoutMs: opts.timeoutMs ?? 15_000,
			locate: () => locateBridge(vault, env, override),
			onReachability,
		});
	const reachability: Reachability[] = [];
	const client = makeClient(null, (r) => reachability.push(r));
	const events: BridgeEvent[] = [];
	const streamStatus: StreamStatus[] = [];
	const stream = new EventStream({
		transport: nodeSseTransport,
		target: () => client.streamTarget(),
		timers: nodeTimers(),
		onEvent: (event) => events.push(event),
		onStatus: (status) => streamStatus.push(status),
		initialDelayMs: 200,
	});
	stream.start();
	await waitFor(() => events.some((e) => e.type === "hello"), 15_000, "the event stream's hello");
	const stopProcess = async () => {
		const { child, exited, running } = proc;
		if (running()) {
			child.kill("SIGTERM");
			const done = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
			if (!done && running()) {
				child.kill("SIGKILL");
				await exited;
			}
		}
		return child.signalCode;
	};
	const halt = async () => {
		stream.stop();
		return stopProcess();
	};
	return {
		vault,
		configDir,
		get pid() {
			return proc.child.pid;
		},
		client,
		reachability,
		events,
		streamStatus,
		makeClient,
		log: () => log,
		halt,
		down: stopProcess,
		up: async () => {
			proc = await launch();
		},
		stop: async () => {
			await halt();
			await rm(root, { recursive: true, force: true });
		},
	};
}

/** The sample vault, its dates shifted to today. */
export function sampleVault(python: string, target: string): void {
	runPython(
		python,
		"import sys; from pathlib import Path; from vault_sync.sample import shifted_copy; " +
			"from vault_sync.dates import utc_now; shifted_copy(Path(sys.argv[1]), Path(sys.argv[2]), utc_now())",
		[join(REPO, "sample-vault"), target],
	);
}

/** Waits for the job's end event and returns it. */
export async function jobEnd(d: RealDaemon, id: string, ms = 60_000) {
	const end = () =>
		d.events.find((e) => e.type === "job" && e.data.id === id && e.data.state !== "running") as
			| Extract<BridgeEvent, { type: "job" }>
			| undefined;
	await waitFor(() => end() !== undefined, ms, `job ${id} to end`);
	return end()!.data;
}
