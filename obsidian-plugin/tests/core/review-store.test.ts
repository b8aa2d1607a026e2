import { describe, expect, it } from "vitest";
import { BridgeOfflineError } from "../../src/core/bridge-client";
import { DEFAULT_SCORING } from "../../src/core/decay";
import { ReviewStore, type ReviewSource } from "../../src/core/review-store";
import { nodeTimers } from "../../src/platform/node-env";
import { makeNote, makeStatus } from "../helpers/fixtures";
import { waitFor } from "../helpers/wait";

function source(items = [makeNote({ state: "danger", score: 0.25 })]) {
	const calls = { review: 0, status: 0 };
	let fail: Error | null = null;
	const src: ReviewSource = {
		review: async () => {
			calls.review++;
			if (fail) throw fail;
			return { items };
		},
		status: async () => {
			calls.status++;
			if (fail) throw fail;
			return { ...makeStatus("/v"), scoring: { ...DEFAULT_SCORING, decay_model: "exponential" } };
		},
	};
	return { src, calls, setFail: (e: Error | null) => (fail = e) };
}

describe("ReviewStore", () => {
	it("loads scoring once, then the queue", async () => {
		const { src, calls } = source();
		const store = new ReviewStore(src, nodeTimers(), () => "offline", 50, 10);
		await store.refresh();
		await store.refresh();
		expect(store.state.status).toBe("ready");
		expect(store.state.scoring.decay_model).toBe("exponential");
		expect(calls).toEqual({ review: 2, status: 1 });
	});

	it("asks for the queue of the project the settings name, as they say it now", async () => {
		const asked: (string | undefined)[] = [];
		const { src } = source();
		const scoped: ReviewSource = { ...src, review: async (limit, project) => (asked.push(project), src.review(limit, project)) };
		let project = "";
		const store = new ReviewStore(scoped, nodeTimers(), () => "offline", 50, 10, () => project);
		await store.refresh();
		project = "atlas";
		await store.refresh();
		expect(asked).toEqual(["", "atlas"]);
	});

	it("shows the offline message when the daemon is down", async () => {
		const { src, setFail } = source();
		setFail(new BridgeOfflineError("refused", "ECONNREFUSED"));
		const store = new ReviewStore(src, nodeTimers(), () => "start the daemon", 50, 10);
		await store.refresh();
		expect(store.state).toMatchObject({ status: "offline", message: "start the daemon" });
		setFail(new Error("boom"));
		await store.refresh();
		expect(store.state).toMatchObject({ status: "error", message: "boom" });
	});

	it("updates a score in place at once and refreshes once for a burst of events", async () => {
		const { src, calls } = source();
		const store = new ReviewStore(src, nodeTimers(), () => "", 50, 20);
		await store.refresh();
		const seen: number[] = [];
		store.subscribe((s) => seen.push(s.items[0]?.score ?? -1));
		for (let i = 0; i < 5; i++) {
			store.handleEvent({ type: "score_changed", data: { path: "STM/jwt-rotation.md", id: null, score: 0.2 + i / 100, state: "danger" } });
		}
		expect(store.state.items[0].score).toBeCloseTo(0.24);
		store.handleEvent({ type: "indexed", data: { path: "STM/other.md", id: null } });
		store.handleEvent({ type: "problem", data: { path: "STM/x.md", cause: "bad yaml" } });
		await waitFor(() => calls.review === 2, 2000, "one debounced refresh");
		await new Promise((r) => setImmediate(r));
		expect(calls.review).toBe(2);
		expect(seen.length).toBeGreaterThan(5);
	});
});
