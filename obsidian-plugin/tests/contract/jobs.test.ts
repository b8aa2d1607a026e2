/**
 * Contract: every long operation the plugin offers runs as a job of the real daemon (GC,
 * promote-all, sync, consolidate), through the plugin's own client, tracker and messages;
 * and the note answer a superseded note gives, and search snippets as the plugin shows them.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snippetParts } from "../../src/core/format";
import { JobTracker } from "../../src/core/jobs";
import { jobDoneMessage } from "../../src/core/messages";
import type { ConsolidateResult, GcResponse, Job, PromoteResponse } from "../../src/core/types";
import { nodeTimers } from "../../src/platform/node-env";
import { waitFor } from "../helpers/wait";
import { jobEnd, sampleVault, startRealDaemon, type RealDaemon } from "./real-daemon";

const LONG = 90_000;
let d: RealDaemon;

const listMd = async (dir: string) => (await readdir(join(d.vault, dir)).catch(() => [] as string[])).filter((n) => n.endsWith(".md")).sort();
const progressOf = (id: string) => d.events.filter((e) => e.type === "job" && e.data.id === id).map((e) => e.data as Job);

beforeAll(async () => {
	d = await startRealDaemon({ prepare: (python, vault) => sampleVault(python, vault) });
}, LONG);

afterAll(async () => {
	await d?.stop();
}, LONG);

describe("long operations as jobs of the real daemon", { timeout: LONG }, () => {
	it("promote-all: the job answers at once; every candidate moves to LTM on disk; the message names them", async () => {
		const preview = await d.client.promoteAuto(true);
		const candidates = (preview as PromoteResponse & { candidates?: { path: string }[] }).candidates ?? [];
		expect(candidates.length).toBeGreaterThan(0);
		const started = await d.client.startJob("promote");
		expect(started).toMatchObject({ kind: "promote", state: "running" });
		const end = await jobEnd(d, started.id);
		expect(end.state).toBe("done");
		const result = end.result as PromoteResponse;
		expect(result.promoted.map((m) => m.from).sort()).toEqual(candidates.map((c) => c.path).sort());
		expect(end.total).toBe(candidates.length);
		for (const m of result.promoted) expect(await listMd("LTM")).toContain(m.to.slice("LTM/".length));
		expect(jobDoneMessage(end)).toBe(
			result.promoted.length === 1 ? `Promoted "${result.promoted[0].title}" to ${result.promoted[0].to}.` : `Promoted ${result.promoted.length} memories.`,
		);
	});

	it("gc: progress with a total, then the end; the candidates are in the archive on disk", async () => {
		const preview = await d.client.gc(true);
		expect(preview.candidates.length).toBeGreaterThan(0);
		const started = await d.client.startJob("gc");
		const end = await jobEnd(d, started.id);
		expect(end.state).toBe("done");
		const result = end.result as GcResponse;
		expect(result.archived.length).toBe(preview.candidates.length);
		expect(progressOf(started.id).some((j) => j.state === "running" && j.total === preview.candidates.length)).toBe(true);
		const archive = await listMd("Archive");
		for (const m of result.archived) expect(archive).toContain(m.to.slice("Archive/".length));
		expect(jobDoneMessage(end)).toMatch(/^Archived \d+ memor(y|ies)\. Each can be restored from the archive\.$/);
	});

	it("sync through the tracker with the stream ignored: GET /api/jobs is polled to the end", async () => {
		const ends: Job[] = [];
		const tracker = new JobTracker({
			client: d.client,
			timers: nodeTimers(),
			streamOpen: () => false,
			onProgress: () => undefined,
			onEnd: (job) => ends.push(job),
			pollMs: 100,
		});
		const started = await tracker.start("sync");
		await waitFor(() => ends.length === 1, 30_000, "the polled end");
		tracker.stop();
		expect(ends[0]).toMatchObject({ id: started.id, kind: "sync", state: "done" });
		expect(jobDoneMessage(ends[0])).toMatch(/^Index synced: \d+ added, \d+ updated, \d+ removed, \d+ moved/);
		expect((await d.client.jobs()).jobs.map((j) => j.id)).toContain(started.id);
	});

	it("consolidate: two memories merge into one note; the originals go to the archive; a bad call is a 400", async () => {
		const a = await d.client.save("The release train leaves every second Tuesday at noon.", ["release"]);
		const b = await d.client.save("Releases ship every other Tuesday, at twelve o'clock.", ["release", "ops"]);
		const started = await d.client.startJob("consolidate", [a.note.id!, b.note.path]);
		expect(started).toMatchObject({ kind: "consolidate", state: "running" });
		const end = await jobEnd(d, started.id);
		expect(end.state).toBe("done");
		expect(end.total).toBe(2);
		const result = end.result as ConsolidateResult;
		expect(result.note).not.toBeNull();
		expect(await listMd("STM")).toContain(result.note!.path.slice("STM/".length));
		expect(await listMd("STM")).not.toContain(a.note.path.slice("STM/".length));
		expect(result.archived.map((m) => m.from).sort()).toEqual([a.note.path, b.note.path].sort());
		expect(jobDoneMessage(end)).toBe(
			`Consolidated 2 memories into "${result.note!.title}" (${result.note!.path}). The originals are in the archive, linked to it.`,
		);
		await expect(d.client.startJob("consolidate")).rejects.toMatchObject({ status: 400, code: "invalid" });
		await expect(d.client.startJob("sync", ["x"])).rejects.toMatchObject({ status: 400 });
		const failed = await d.client.startJob("consolidate", ["STM/No such memory.md", "STM/Nor this.md"]);
		const failure = await jobEnd(d, failed.id);
		expect(failure.state).toBe("failed");
		expect(jobDoneMessage(failure)).toMatch(/^mnemovault consolidate failed: /);
	});

	it("a superseded note: the note answer says so and names the newest successor", async () => {
		const old = await d.client.save("The team standup is at 09:30 in room Atlas.", ["meetings"]);
		const mid = await d.client.save("The team standup moved to 10:00 in room Atlas.", ["meetings"]);
		const now = await d.client.save("The team standup is now at 10:15, online only.", ["meetings"]);
		for (const [o, n] of [[old, mid], [mid, now]] as const) {
			await d.client.request("POST", "/api/rpc", { op: "supersede", args: { old: o.note.path, by: n.note.path } });
		}
		const note = await d.client.note(old.note.path);
		expect(note.status).toBe("superseded");
		expect(note.superseded_by).toBe(now.note.path);
		expect((await d.client.note(now.note.path)).superseded_by).toBeNull();
	});

	it("search snippets: the match markers become highlights, the text shown has no `**`", async () => {
		const found = await d.client.search("Redis session", 5, "all");
		const hit = found.results.find((r) => r.snippet.includes("**"));
		expect(hit, "the daemon marks matched words with **").toBeDefined();
		const parts = snippetParts(hit!.snippet);
		expect(parts.some((p) => p.match && /redis|session/i.test(p.text))).toBe(true);
		expect(parts.map((p) => p.text).join("")).not.toContain("**");
	});
});
