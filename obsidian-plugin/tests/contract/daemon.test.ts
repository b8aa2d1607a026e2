/**
 * The cross-language contract: the real Python daemon on a temp copy of the sample vault,
 * driven only through the plugin's own client code (locator, BridgeClient, event stream).
 *
 * Needs the repository's Python environment: `MNEMOVAULT_PYTHON`, else `<repo>/.venv`.
 * Without one the suite fails (it is never skipped). It runs with `npm run test:contract`
 * (vitest.contract.config.ts), which `make test-plugin` calls after building the venv.
 */
import { existsSync } from "node:fs";
import { appendFile, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BRIDGE_API, BridgeApiError, BridgeOfflineError, type BridgeClient, type Reachability } from "../../src/core/bridge-client";
import { offlineMessage } from "../../src/core/connection";
import { savedMessage } from "../../src/core/capture";
import { errorMessage, jobDoneMessage } from "../../src/core/messages";
import { EventStream, type StreamStatus } from "../../src/core/event-stream";
import type { BridgeEvent, Candidate, Note, PromoteResponse, Scoring } from "../../src/core/types";
import { nodeTimers } from "../../src/platform/node-env";
import { nodeSseTransport } from "../../src/platform/node-http";
import { waitFor } from "../helpers/wait";
import { sampleVault, startRealDaemon, type RealDaemon } from "./real-daemon";

const LONG = 60_000;

const SCORING_KEYS: (keyof Scoring)[] = [
	"decay_model",
	"half_life_days",
	"pl_alpha",
	"tc_weight_fast",
	"tc_fast_half_life_hours",
	"tc_slow_half_life_days",
	"beta",
	"forget_threshold",
	"promote_threshold",
	"promote_min_uses",
	"danger_zone_min",
	"danger_zone_max",
];

function frontmatterInt(text: string, key: string): number {
	const match = new RegExp(`^${key}:\\s*(\\d+)\\s*$`, "m").exec(text);
	if (!match) throw new Error(`no ${key} in the note's frontmatter`);
	return Number(match[1]);
}

async function listMd(dir: string): Promise<string[]> {
	return (await readdir(dir)).filter((n) => n.endsWith(".md")).sort();
}

let d: RealDaemon;
let vault = "";
let configDir = "";
let client: BridgeClient;

function eventsOf<T extends BridgeEvent["type"]>(type: T): Extract<BridgeEvent, { type: T }>[] {
	return d.events.filter((e): e is Extract<BridgeEvent, { type: T }> => e.type === type);
}

beforeAll(async () => {
	// The dates in the sample vault are relative to a reference day: sampleVault shifts them to today.
	d = await startRealDaemon({ prepare: sampleVault });
	({ vault, configDir, client } = d);
}, LONG);

afterAll(async () => {
	await d?.stop();
}, LONG);

describe("the real daemon through the plugin's client", { timeout: LONG }, () => {
	let review: Note[] = [];

	it("status: counts, scoring parameters, the daemon's pid", async () => {
		const status = await client.status();
		expect(status.vault).toBe(vault);
		expect(status.counts).toMatchObject({
			stm: (await listMd(join(vault, "STM"))).length,
			ltm: (await listMd(join(vault, "LTM"))).length,
			archive: (await listMd(join(vault, "Archive"))).length,
		});
		expect(status.counts.stm).toBeGreaterThan(0);
		expect(status.counts.note).toBeGreaterThan(0);
		for (const key of SCORING_KEYS) expect(status.scoring[key], key).toBeDefined();
		expect(["power_law", "exponential", "two_component"]).toContain(status.scoring.decay_model);
		expect(status.daemon.pid).toBe(d.pid);
		expect(status.daemon.api).toBe(BRIDGE_API);
		expect(status.daemon.version).toMatch(/^\d+\.\d+|^unknown$/);
		expect(status.embeddings.enabled).toBe(false);
		expect(Array.isArray(status.problems)).toBe(true);
		expect(d.reachability.at(-1)).toEqual({ online: true });
	});

	it("review queue: danger-zone STM memories, highest priority first", async () => {
		const { scoring } = await client.status();
		review = (await client.review(50)).items;
		expect(review.length).toBeGreaterThan(1);
		for (const item of review) {
			expect(item.kind).toBe("stm");
			expect(item.state).toBe("danger");
			expect(item.score).toBeGreaterThanOrEqual(scoring.danger_zone_min);
			expect(item.score).toBeLessThanOrEqual(scoring.danger_zone_max);
		}
		const priorities = review.map((n) => n.review_priority);
		expect(priorities).toEqual([...priorities].sort((a, b) => b - a));
		expect((await client.review(2)).items.map((n) => n.path)).toEqual(review.slice(0, 2).map((n) => n.path));
	});

	it("note by path: score and state of an STM memory; a person's note has none", async () => {
		const first = review[0];
		const note = await client.note(first.path);
		expect(note).toMatchObject({ path: first.path, id: first.id, kind: "stm", state: "danger" });
		expect(typeof note.score).toBe("number");
		expect(note.use_count).toBeGreaterThanOrEqual(1);

		const person = await client.note("People.md");
		expect(person).toMatchObject({ kind: "note", score: null, state: "note", id: null });

		await expect(client.note("STM/No such memory.md")).rejects.toMatchObject({ status: 404, code: "not_found" });
	});

	it("related: memories sharing the note's tags (embeddings off, and it says so), never the note itself", async () => {
		const tagged = review.find((n) => n.tags.length > 0) ?? review[0];
		const related = await client.related(tagged.path, 5);
		expect(["tags", "text"]).toContain(related.method);
		expect(related.notice).toMatch(/Embeddings are off/);
		expect(related.items.length).toBeLessThanOrEqual(5);
		for (const item of related.items) {
			expect(item.path).not.toBe(tagged.path);
			expect(item.path).toMatch(/^(STM|LTM)\//);
			expect(item.similarity).toBeGreaterThan(0);
			expect(typeof item.state).toBe("string");
		}
		if (related.method === "tags") expect(related.items.length).toBeGreaterThan(0);
		await expect(client.related("STM/No such memory.md", 5)).rejects.toMatchObject({ status: 404, code: "not_found" });
	});

	it("capture: save creates an STM file, the same text again reinforces it, a secret is refused", async () => {
		const text = "The staging database is restored from the nightly snapshot every Monday at 06:00.";
		const first = await client.save(text, ["ops", "staging"]);
		expect(first).toMatchObject({ saved: true, reinforced: false });
		expect(first.note.path).toMatch(/^STM\//);
		expect(await readFile(join(vault, first.note.path), "utf8")).toContain(text);
		expect(savedMessage(first)).toBe(`Saved as a memory: "${first.note.title}" in ${first.note.path}.`);
		const again = await client.save(text, []);
		expect(again).toMatchObject({ saved: false, reinforced: true, duplicate_of: first.note.path });
		expect(savedMessage(again)).toMatch(/^Already a memory: reinforced/);
		const secret = await client.save("The deploy token is ghp_Zq8mX2vB7kL4nR9tW1yH6cF3dJ5sP0aE8uGi for CI.", []).catch((e: unknown) => e);
		expect(secret).toMatchObject({ status: 422, code: "refused" });
		expect(errorMessage(secret, "")).toMatch(/^Not saved: refused: the text contains a secret/);
	});

	it("jobs: a sync job answers at once, then reports its end as a job event", async () => {
		const started = await client.startJob("sync");
		expect(started).toMatchObject({ kind: "sync", state: "running" });
		await waitFor(() => eventsOf("job").some((e) => e.data.id === started.id && e.data.state === "done"), 30_000, "job done");
		const done = eventsOf("job").find((e) => e.data.id === started.id && e.data.state === "done")!;
		expect(jobDoneMessage(done.data)).toMatch(/^Index synced: /);
		await expect(client.startJob("nonsense" as "sync")).rejects.toMatchObject({ status: 400 });
	});

	it("limit outside 1-1000 is a 400 `invalid`", async () => {
		const failure = await client.review(0).catch((e: unknown) => e);
		expect(failure).toBeInstanceOf(BridgeApiError);
		expect(failure).toMatchObject({ status: 400, code: "invalid" });
		await expect(client.search("redis", 1001)).rejects.toMatchObject({ status: 400, code: "invalid" });
	});

	it("touch: use_count + 1 in the file on disk, and a score_changed event", async () => {
		const target = review[0];
		const file = join(vault, target.path);
		const before = frontmatterInt(await readFile(file, "utf8"), "use_count");
		const answer = await client.touch(target.path);
		expect(answer.note.use_count).toBe(before + 1);
		expect(answer.new_score).toBeGreaterThan(answer.old_score ?? 0);
		expect(frontmatterInt(await readFile(file, "utf8"), "use_count")).toBe(before + 1);
		await waitFor(
			() => eventsOf("score_changed").some((e) => e.data.path === target.path),
			10_000,
			"score_changed after touch",
		);
		const changed = eventsOf("score_changed").find((e) => e.data.path === target.path);
		expect(changed?.data.id).toBe(target.id);
		expect(changed?.data.score).toBeCloseTo(answer.new_score ?? 0, 2);
		expect(typeof changed?.data.state).toBe("string");
	});

	it("search: results without semantic scores while embeddings are off", async () => {
		const found = await client.search("Redis session", 5, "all");
		expect(found.semantic).toBe(false);
		expect(found.notice === null || typeof found.notice === "string").toBe(true);
		const hit = found.results.find((r) => r.path === "STM/Redis session TTL is 30 minutes.md");
		expect(hit).toBeDefined();
		expect(hit).toMatchObject({ kind: "stm", parts: { semantic: null } });
		expect(typeof hit?.snippet).toBe("string");
		expect((await client.search("Redis session", 5, "ltm")).results.every((r) => r.kind === "ltm")).toBe(true);
	});

	it("gc preview: a dry run lists candidates and changes nothing on disk", async () => {
		const stm = await listMd(join(vault, "STM"));
		const archive = await listMd(join(vault, "Archive"));
		const preview = await client.gc(true);
		expect(preview.dry_run).toBe(true);
		expect(preview.archived).toEqual([]);
		expect(preview.candidates.length).toBeGreaterThan(0);
		const { scoring } = await client.status();
		for (const c of preview.candidates) {
			expect(c.path.startsWith("STM/")).toBe(true);
			expect(c.score).toBeLessThan(scoring.forget_threshold);
		}
		expect(await listMd(join(vault, "STM"))).toEqual(stm);
		expect(await listMd(join(vault, "Archive"))).toEqual(archive);
	});

	it("promote: a candidate moves from STM to LTM on disk", async () => {
		const preview = (await client.promoteAuto(true)) as PromoteResponse & { candidates?: Candidate[] };
		expect(preview.promoted).toEqual([]);
		const candidate = preview.candidates?.[0];
		if (!candidate) throw new Error("the sample vault should have a promote candidate");
		const name = candidate.path.slice("STM/".length);
		const answer = await client.promote(candidate.path);
		expect(answer.promoted).toHaveLength(1);
		expect(answer.promoted[0]).toMatchObject({ id: candidate.id, from: candidate.path, to: `LTM/${name}` });
		expect(existsSync(join(vault, "STM", name))).toBe(false);
		expect(existsSync(join(vault, "LTM", name))).toBe(true);
		expect(await client.note(`LTM/${name}`)).toMatchObject({ kind: "ltm", state: "promoted" });
		await waitFor(() => eventsOf("promoted").some((e) => e.data.id === candidate.id), 10_000, "promoted event");
	});

	it("promote by ref also promotes a memory that is not a candidate", async () => {
		const target = review[review.length - 1];
		const answer = await client.promote(target.path);
		expect(answer.promoted[0]).toMatchObject({ from: target.path, reason: "requested" });
		expect(existsSync(join(vault, answer.promoted[0].to))).toBe(true);
	});

	it("archive and restore move the file both ways", async () => {
		const preview = await client.gc(true);
		const target = preview.candidates[0];
		const name = target.path.slice("STM/".length);
		const archived = await client.archive(target.path);
		expect(archived.archived[0]).toMatchObject({ from: target.path, to: `Archive/${name}` });
		expect(existsSync(join(vault, "Archive", name))).toBe(true);
		expect(existsSync(join(vault, "STM", name))).toBe(false);
		expect((await client.note(`Archive/${name}`)).state).toBe("archived");

		const restored = await client.restore(target.id);
		expect(restored.restored[0]).toMatchObject({ from: `Archive/${name}`, to: target.path });
		expect(existsSync(join(vault, "STM", name))).toBe(true);
		expect(existsSync(join(vault, "Archive", name))).toBe(false);
		await waitFor(
			() =>
				eventsOf("archived").some((e) => e.data.id === target.id) &&
				eventsOf("restored").some((e) => e.data.id === target.id),
			10_000,
			"archived and restored events",
		);
		await expect(client.restore(target.path)).rejects.toMatchObject({ status: 409, code: "wrong_state" });
	});

	it("gc for real archives the candidates and still lists them", async () => {
		const result = await client.gc(false);
		expect(result.dry_run).toBe(false);
		expect(result.archived.map((m) => m.from).sort()).toEqual(result.candidates.map((c) => c.path).sort());
		for (const move of result.archived) expect(existsSync(join(vault, move.to))).toBe(true);
	});

	it("sync: counts, with `problems` a number", async () => {
		const report = await client.sync();
		for (const key of ["added", "updated", "removed", "moved", "unchanged", "problems"] as const) {
			expect(typeof report[key], key).toBe("number");
		}
	});

	it("event stream: editing a note on disk brings an `indexed` event", async () => {
		const path = "STM/Staging runs Postgres 16.md";
		const count = () => eventsOf("indexed").filter((e) => e.data.path === path).length;
		const before = count();
		await appendFile(join(vault, path), "\nUpgrade to 17 is planned for Q1.\n", "utf8");
		await waitFor(() => count() > before, 20_000, `indexed event for ${path}`);
		expect(d.streamStatus).toContain("open");
	});

	it("a wrong token: the client reports unauthorized, the stream gets a 401", async () => {
		const seen: Reachability[] = [];
		const wrong = d.makeClient({ host: "127.0.0.1", port: 0, token: "not-the-token" }, (r) => seen.push(r));
		const failure = await wrong.status().catch((e: unknown) => e);
		expect(failure).toBeInstanceOf(BridgeOfflineError);
		expect((failure as BridgeOfflineError).reason).toBe("unauthorized");
		const last = seen.at(-1);
		expect(last).toMatchObject({ online: false, reason: "unauthorized" });
		if (last && !last.online) {
			expect(offlineMessage({ status: "offline", ...last }, vault)).toMatch(/refused the token/);
		}

		const statuses: { status: StreamStatus; detail?: string }[] = [];
		const bad = new EventStream({
			transport: nodeSseTransport,
			target: () => wrong.streamTarget(),
			timers: nodeTimers(),
			onEvent: () => undefined,
			onStatus: (status, detail) => statuses.push({ status, detail }),
			initialDelayMs: 60_000,
		});
		bad.start();
		try {
			await waitFor(() => statuses.some((s) => s.status === "waiting"), 10_000, "the stream to give up");
			expect(statuses.find((s) => s.status === "waiting")?.detail).toBe("HTTP 401");
			expect(statuses.some((s) => s.status === "open")).toBe(false);
		} finally {
			bad.stop();
		}
	});

	it("stops on SIGTERM, removes its bridge file, and the client goes offline", async () => {
		const signal = await d.halt();
		expect(signal === "SIGKILL").toBe(false);
		expect((await readdir(join(configDir, "bridges"))).filter((n) => n.endsWith(".json"))).toEqual([]);
		await expect(client.status()).rejects.toMatchObject({ reason: "no_daemon" });
		expect(d.reachability.at(-1)).toMatchObject({ online: false, reason: "no_daemon" });
	});
});
