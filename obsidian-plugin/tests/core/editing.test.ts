import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient } from "../../src/core/bridge-client";
import { EDITING_HEARTBEAT_MS, EditingReporter } from "../../src/core/editing";
import { nodeTimers } from "../../src/platform/node-env";
import { nodeHttpRequester } from "../../src/platform/node-http";
import { error, startFakeBridge, type FakeDaemon } from "../helpers/fake-daemon";
import { waitFor } from "../helpers/wait";

const daemons: FakeDaemon[] = [];
afterEach(async () => {
	await Promise.all(daemons.splice(0).map((d) => d.close()));
});

/** A reporter on a real client and the fake daemon, with a clock the test moves. */
async function setup() {
	const { daemon, locate } = await startFakeBridge();
	daemons.push(daemon);
	daemon.routes.set("POST /api/editing", (req) => ({ body: { ...(req.body as object), hold_seconds: 60 } }));
	const client = new BridgeClient({ http: nodeHttpRequester(), timers: nodeTimers(), locate });
	let now = 1_000_000;
	const clock = { now: () => now };
	const reporter = new EditingReporter((path) => client.editing(path), clock);
	const sent = () => daemon.requests.filter((r) => r.path === "/api/editing").map((r) => (r.body as { path: unknown }).path);
	const advance = (ms: number) => (now += ms);
	return { daemon, client, reporter, sent, advance };
}

describe("EditingReporter against the fake daemon", () => {
	it("BridgeClient.editing posts the path (or null) and reads the hold", async () => {
		const { client, daemon } = await setup();
		expect(await client.editing("STM/a.md")).toEqual({ path: "STM/a.md", hold_seconds: 60 });
		expect(await client.editing(null)).toEqual({ path: null, hold_seconds: 60 });
		expect(daemon.requests.map((r) => [r.method, r.path, r.body])).toEqual([
			["POST", "/api/editing", { path: "STM/a.md" }],
			["POST", "/api/editing", { path: null }],
		]);
	});

	it("sends each change of the open note, null when none is open, and nothing twice for the same", async () => {
		const { reporter, sent, advance } = await setup();
		reporter.opened("STM/a.md");
		reporter.opened("STM/a.md"); // the same note focused again at once
		advance(1000);
		reporter.opened("Projects/plan.md");
		reporter.opened(null);
		reporter.opened(null);
		await waitFor(() => sent().length === 3, 3000, "three calls");
		expect(sent()).toEqual(["STM/a.md", "Projects/plan.md", null]);
	});

	it("typing is a heartbeat at most every 20 s; null on close", async () => {
		const { reporter, sent, advance } = await setup();
		reporter.opened("STM/a.md");
		for (let i = 0; i < 50; i++) {
			advance(500); // typing for 25 s: one beat when 20 s have passed since the last call
			reporter.typed("STM/a.md");
		}
		await waitFor(() => sent().length === 2, 3000, "open + one beat");
		advance(EDITING_HEARTBEAT_MS - 1);
		reporter.typed("STM/a.md");
		advance(1);
		reporter.typed("STM/a.md");
		reporter.typed("STM/b.md"); // typing in another note than the last one told: told at once
		reporter.close();
		reporter.close();
		await waitFor(() => sent().length === 5, 3000, "beat, switch, close");
		expect(sent()).toEqual(["STM/a.md", "STM/a.md", "STM/a.md", "STM/b.md", null]);
	});

	it("one call at a time, in order, even when an earlier one is slow or fails", async () => {
		const started: (string | null)[] = [];
		const finish: (() => void)[] = [];
		const send = (path: string | null) =>
			new Promise<void>((resolve, reject) => {
				started.push(path);
				finish.push(path === "STM/a.md" ? () => reject(new Error("offline")) : resolve);
			});
		const reporter = new EditingReporter(send, { now: () => 0 });
		reporter.opened("STM/a.md");
		reporter.opened("Projects/plan.md");
		reporter.opened(null);
		await sleep(10);
		expect(started).toEqual(["STM/a.md"]); // the others wait for the first answer
		finish[0](); // the first fails: the next still goes
		await waitFor(() => started.length === 2, 1000, "second call");
		expect(started).toEqual(["STM/a.md", "Projects/plan.md"]);
		finish[1]();
		await waitFor(() => started.length === 3, 1000, "third call");
		expect(started).toEqual(["STM/a.md", "Projects/plan.md", null]);
	});

	it("failures are silent: an older daemon (404) or none at all", async () => {
		const { reporter, daemon, advance } = await setup();
		daemon.routes.set("POST /api/editing", () => error(404, "not_found", "no route"));
		reporter.opened("STM/a.md");
		await waitFor(() => daemon.requests.length === 1, 3000, "the 404");
		await daemon.close();
		advance(EDITING_HEARTBEAT_MS);
		reporter.typed("STM/a.md"); // rejected: no unhandled rejection, nothing thrown
		reporter.close();
		await sleep(50);
		expect(daemon.requests.filter((r) => r.path === "/api/editing")).toHaveLength(1);
	});
});
