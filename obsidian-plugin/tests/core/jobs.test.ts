import { describe, expect, it } from "vitest";
import { JobTracker } from "../../src/core/jobs";
import type { Timers } from "../../src/core/timers";
import type { Job } from "../../src/core/types";

/** Timers the test runs by hand. */
function manualTimers() {
	const pending: { fn: () => void; at: number }[] = [];
	let now = 0;
	const timers: Timers = {
		now: () => now,
		setTimeout: (fn, ms) => {
			const t = { fn, at: now + ms };
			pending.push(t);
			return t;
		},
		clearTimeout: (h) => {
			const i = pending.indexOf(h as never);
			if (i >= 0) pending.splice(i, 1);
		},
	};
	const advance = async (ms: number) => {
		now += ms;
		for (const t of pending.filter((p) => p.at <= now)) {
			pending.splice(pending.indexOf(t), 1);
			t.fn();
		}
		for (let i = 0; i < 5; i++) await Promise.resolve();
	};
	return { timers, advance, pending };
}

const job = (patch: Partial<Job>): Job => ({ id: "1", kind: "sync", state: "running", done: 0, total: null, result: null, error: null, ...patch });

describe("JobTracker", () => {
	it("tells progress, then the end once, from events; a late 'running' after the end is ignored", async () => {
		const { timers } = manualTimers();
		const progress: Job[] = [];
		const ends: Job[] = [];
		const tracker = new JobTracker({
			client: { startJob: async () => job({}), jobs: async () => ({ jobs: [] }) },
			timers,
			streamOpen: () => true,
			onProgress: (j) => progress.push(j),
			onEnd: (j) => ends.push(j),
		});
		tracker.handle(job({ done: 3, total: 10 }));
		expect(tracker.isRunning("sync")).toBe(true);
		tracker.handle(job({ state: "done", done: 10, total: 10, result: { added: 1 } }));
		tracker.handle(job({ state: "done" }));
		// the start's own answer ("running") may arrive after a fast job's end event
		tracker.handle(job({}));
		expect(progress.map((j) => j.done)).toEqual([3]);
		expect(ends).toHaveLength(1);
		expect(tracker.isRunning("sync")).toBe(false);
	});

	it("while the stream is down, the jobs it started are polled until they end", async () => {
		const { timers, advance, pending } = manualTimers();
		let daemonJobs: Job[] = [job({ id: "5", kind: "gc" })];
		let polls = 0;
		const ends: Job[] = [];
		const tracker = new JobTracker({
			client: {
				startJob: async (kind) => job({ id: "5", kind }),
				jobs: async () => {
					polls++;
					return { jobs: [job({ id: "9", kind: "sync", state: "done" }), ...daemonJobs] };
				},
			},
			timers,
			streamOpen: () => false,
			onProgress: () => undefined,
			onEnd: (j) => ends.push(j),
			pollMs: 1000,
		});
		await tracker.start("gc");
		await advance(1000);
		expect(polls).toBe(1);
		expect(ends).toEqual([]);
		daemonJobs = [job({ id: "5", kind: "gc", state: "done", result: { archived: [] } })];
		await advance(1000);
		// only its own job: another client's finished sync is not told by polling
		expect(ends.map((j) => [j.id, j.state])).toEqual([["5", "done"]]);
		await advance(5000);
		expect(polls).toBe(2);
		expect(pending).toHaveLength(0);
	});
});

describe("JobTracker.resync (the stream reconnected)", () => {
	it("re-reads the daemon's jobs: a restarted daemon's job 1 is new, a lost running job frees its command", async () => {
		const { timers } = manualTimers();
		const ends: Job[] = [];
		const progress: Job[] = [];
		let listed: Job[] = [];
		const tracker = new JobTracker({
			client: { startJob: async (kind) => job({ id: "1", kind }), jobs: async () => ({ jobs: listed }) },
			timers,
			streamOpen: () => true,
			onProgress: (j) => progress.push(j),
			onEnd: (j) => ends.push(j),
		});
		await tracker.start("gc");
		tracker.handle(job({ id: "1", kind: "gc", state: "done" }));
		await tracker.start("sync"); // job "2" in this daemon's numbering, say
		tracker.handle(job({ id: "2", kind: "sync" }));
		expect(tracker.isRunning("sync")).toBe(true);
		// the daemon restarted: it knows nothing of job 2; its own first job is a new "1"
		listed = [];
		await tracker.resync();
		expect(tracker.isRunning("sync")).toBe(false);
		tracker.handle(job({ id: "1", kind: "promote" }));
		tracker.handle(job({ id: "1", kind: "promote", state: "done" }));
		expect(ends.map((j) => j.kind)).toEqual(["gc", "promote"]);
		// a reconnect to the same daemon: a job that ended before is not told again; a running one shows
		listed = [job({ id: "1", kind: "promote", state: "done" }), job({ id: "3", kind: "sync", done: 5, total: 9 })];
		await tracker.resync();
		tracker.handle(job({ id: "1", kind: "promote", state: "done" }));
		expect(ends).toHaveLength(2);
		expect(tracker.isRunning("sync")).toBe(true);
		expect(progress.at(-1)).toMatchObject({ id: "3", done: 5 });
	});
});
