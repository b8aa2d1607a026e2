import { afterEach, describe, expect, it } from "vitest";
import { BridgeClient } from "../../src/core/bridge-client";
import { EventStream, SseParser, toBridgeEvent, type StreamStatus } from "../../src/core/event-stream";
import type { BridgeEvent } from "../../src/core/types";
import { nodeTimers } from "../../src/platform/node-env";
import { nodeHttpRequester, nodeSseTransport } from "../../src/platform/node-http";
import { startFakeBridge, startFakeDaemon, type FakeDaemon } from "../helpers/fake-daemon";
import { writeBridgeFile } from "../helpers/fixtures";
import { waitFor } from "../helpers/wait";

describe("SseParser", () => {
	it("parses events split across chunks, comments, CRLF and multi-line data", () => {
		const p = new SseParser();
		expect(p.push("event: hel")).toEqual([]);
		expect(p.push("lo\ndata: {}\n")).toEqual([]);
		expect(p.push("\n: ping\n\n")).toEqual([{ event: "hello", data: "{}", id: null }]);
		expect(p.push('event: indexed\r\ndata: {"path":\r\ndata: "x"}\r\n\r\n')).toEqual([
			{ event: "indexed", data: '{"path":\n"x"}', id: null },
		]);
		expect(p.push("data: plain\r")).toEqual([]);
		expect(p.push("\n\r\n")).toEqual([{ event: "message", data: "plain", id: null }]);
	});

	it("types known events and drops unknown types and bad JSON", () => {
		expect(toBridgeEvent({ event: "score_changed", data: '{"path":"a","id":null,"score":0.3,"state":"danger"}', id: null })).toEqual({
			type: "score_changed",
			data: { path: "a", id: null, score: 0.3, state: "danger" },
		});
		expect(toBridgeEvent({ event: "surprise", data: "{}", id: null })).toBeNull();
		expect(toBridgeEvent({ event: "indexed", data: "{oops", id: null })).toBeNull();
	});
});

const daemons: FakeDaemon[] = [];
const streams: EventStream[] = [];
afterEach(async () => {
	streams.splice(0).forEach((s) => s.stop());
	await Promise.all(daemons.splice(0).map((d) => d.close()));
});

async function setup(opts: { idleTimeoutMs?: number } = {}) {
	const { daemon, configDir, vault, locate } = await startFakeBridge();
	daemons.push(daemon);
	const client = new BridgeClient({ http: nodeHttpRequester(), timers: nodeTimers(), locate });
	const events: BridgeEvent[] = [];
	const statuses: StreamStatus[] = [];
	const stream = new EventStream({
		transport: nodeSseTransport,
		target: () => client.streamTarget(),
		timers: nodeTimers(),
		onEvent: (e) => events.push(e),
		onStatus: (s) => statuses.push(s),
		initialDelayMs: 20,
		maxDelayMs: 200,
		idleTimeoutMs: opts.idleTimeoutMs ?? 5000,
	});
	streams.push(stream);
	return { daemon, stream, events, statuses, configDir, vault };
}

describe("EventStream against a real HTTP server", () => {
	it("receives hello, then the daemon's events in order; pings are ignored", async () => {
		const { daemon, stream, events, statuses } = await setup();
		stream.start();
		await waitFor(() => events.length === 1, 3000, "hello");
		expect(events[0]).toEqual({ type: "hello", data: {} });
		expect(statuses).toContain("open");
		expect(daemon.requests.at(-1)?.headers.authorization).toBe(`Bearer ${daemon.token}`);
		daemon.sendRaw(": ping\n\n");
		daemon.send("score_changed", { path: "STM/a.md", id: "1", score: 0.31, state: "danger" });
		daemon.send("promoted", { id: "1", title: "A", from: "STM/a.md", to: "LTM/a.md", reason: "score" });
		await waitFor(() => events.length === 3, 3000, "two events");
		expect(events.map((e) => e.type)).toEqual(["hello", "score_changed", "promoted"]);
	});

	it("reconnects after the connection drops", async () => {
		const { daemon, stream, events, statuses } = await setup();
		stream.start();
		await waitFor(() => events.length === 1 && daemon.streams() === 1, 3000, "first hello");
		daemon.dropStreams();
		await waitFor(() => events.filter((e) => e.type === "hello").length === 2, 3000, "second hello");
		expect(statuses).toContain("waiting");
	});

	it("waits with backoff while the daemon is down, then connects to the new one", async () => {
		const { daemon, stream, events, configDir, vault } = await setup();
		stream.start();
		await waitFor(() => events.length === 1, 3000, "hello");
		await daemon.close();
		daemons.splice(0);
		await new Promise((r) => setImmediate(r));
		const second = await startFakeDaemon("token-2");
		daemons.push(second);
		await writeBridgeFile(configDir, vault, { port: second.port, token: second.token });
		await waitFor(() => second.streams() === 1, 3000, "connection to the new daemon");
		await waitFor(() => events.length === 2, 3000, "hello from the new daemon");
	});

	it("reconnects when nothing arrives for the idle timeout", async () => {
		const { daemon, stream, events } = await setup({ idleTimeoutMs: 100 });
		stream.start();
		await waitFor(() => events.filter((e) => e.type === "hello").length >= 2, 3000, "reconnect after idle");
		expect(daemon.requests.filter((r) => r.path === "/api/events").length).toBeGreaterThanOrEqual(2);
	});

	it("doubles the delay up to the maximum", () => {
		const s = new EventStream({
			transport: nodeSseTransport,
			target: () => Promise.resolve(null),
			timers: nodeTimers(),
			onEvent: () => undefined,
			initialDelayMs: 1000,
			maxDelayMs: 30000,
		});
		expect([1, 2, 3, 4, 5, 6, 7].map((n) => s.delayFor(n))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
	});

	it("stops cleanly", async () => {
		const { daemon, stream, events } = await setup();
		stream.start();
		await waitFor(() => daemon.streams() === 1, 3000, "open");
		stream.stop();
		await waitFor(() => daemon.streams() === 0, 3000, "closed");
		daemon.send("indexed", { path: "x", id: null });
		await new Promise((r) => setImmediate(r));
		expect(events.map((e) => e.type)).toEqual(["hello"]);
	});
});
