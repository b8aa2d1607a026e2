import { createHash } from "node:crypto";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_SCORING } from "../../src/core/decay";
import type { Move, Note, StatusResponse } from "../../src/core/types";

export const NOW = Date.parse("2026-11-22T12:00:00Z");

export function makeNote(patch: Partial<Note> = {}): Note {
	return {
		path: "STM/jwt-rotation.md",
		id: "7d4f0c2e-4f1b-4a52-9a3e-0c8f5d1e2b11",
		kind: "stm",
		title: "JWT key rotation",
		status: "active",
		tags: ["security"],
		use_count: 1,
		strength: 1,
		last_used: new Date(NOW).toISOString(),
		created: new Date(NOW).toISOString(),
		decay_score: 1,
		score: 1,
		review_priority: 0,
		state: "fresh",
		problems: [],
		...patch,
	};
}

export function makeStatus(vault: string): StatusResponse {
	return {
		vault,
		counts: { stm: 3, ltm: 1, archive: 0, note: 5 },
		by_status: { active: 3 },
		problems: [],
		conflicts: [],
		dangling_links: 0,
		last_sync: null,
		embeddings: { enabled: false, done: 0, total: 0 },
		scoring: { ...DEFAULT_SCORING },
		daemon: { pid: process.pid, started: "2026-11-22T01:30:00+00:00", version: "0.1.0", api: 1 },
	};
}

export function makeMove(patch: Partial<Move> = {}): Move {
	return { id: "m1", title: "JWT key rotation", from: "STM/jwt-rotation.md", to: "Archive/jwt-rotation.md", reason: "forgotten", ...patch };
}

export async function tempDir(prefix = "mnemovault-test-"): Promise<string> {
	return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

export function keyOf(vaultPath: string): string {
	return createHash("sha256").update(vaultPath, "utf8").digest("hex").slice(0, 16);
}

/** Writes `<configDir>/bridges/<key>.json` the way the daemon does. */
export async function writeBridgeFile(
	configDir: string,
	vaultPath: string,
	content: { port: number; token: string; pid?: number; vault?: string },
	name = `${keyOf(vaultPath)}.json`,
): Promise<string> {
	const dir = join(configDir, "bridges");
	await mkdir(dir, { recursive: true });
	const file = join(dir, name);
	const body = {
		pid: process.pid,
		vault: vaultPath,
		version: 1,
		started: "2026-11-22T01:30:00+00:00",
		...content,
	};
	await writeFile(file, JSON.stringify(body), { mode: 0o600 });
	return file;
}
