/**
 * Client of `GET /api/events` (server-sent events) with reconnect and backoff.
 * The transport is injected: Obsidian's requestUrl cannot stream, so the app uses
 * node:http from the desktop runtime (src/platform/node-http.ts).
 */
import type { StreamTarget } from "./bridge-client";
import type { Timers } from "./timers";
import { EVENT_TYPES, type BridgeEvent, type BridgeEventType } from "./types";

export interface RawSseEvent {
	event: string;
	data: string;
	id: string | null;
}

/** Incremental text/event-stream parser (WHATWG rules, minus `retry`). */
export class SseParser {
	private buffer = "";
	private event = "";
	private data: string[] = [];
	private id: string | null = null;

	push(chunk: string): RawSseEvent[] {
		this.buffer += chunk;
		const out: RawSseEvent[] = [];
		let newline: RegExpExecArray | null;
		const lineEnd = /\r\n|\r|\n/g;
		let start = 0;
		while ((newline = lineEnd.exec(this.buffer)) !== null) {
			// A lone \r at the very end may be the first half of \r\n: wait for more.
			if (newline[0] === "\r" && newline.index === this.buffer.length - 1) break;
			const line = this.buffer.slice(start, newline.index);
			start = newline.index + newline[0].length;
			const event = this.line(line);
			if (event) out.push(event);
		}
		this.buffer = this.buffer.slice(start);
		return out;
	}

	private line(line: string): RawSseEvent | null {
		if (line === "") {
			if (this.data.length === 0) {
				this.event = "";
				return null;
			}
			const event = { event: this.event || "message", data: this.data.join("\n"), id: this.id };
			this.event = "";
			this.data = [];
			return event;
		}
		if (line.startsWith(":")) return null;
		const colon = line.indexOf(":");
		const field = colon === -1 ? line : line.slice(0, colon);
		let value = colon === -1 ? "" : line.slice(colon + 1);
		if (value.startsWith(" ")) value = value.slice(1);
		if (field === "event") this.event = value;
		else if (field === "data") this.data.push(value);
		else if (field === "id") this.id = value;
		return null;
	}
}

/** A typed bridge event from a raw one, or null for unknown types and bad JSON. */
export function toBridgeEvent(raw: RawSseEvent): BridgeEvent | null {
	if (!(EVENT_TYPES as readonly string[]).includes(raw.event)) return null;
	let data: unknown;
	try {
		data = raw.data === "" ? {} : JSON.parse(raw.data);
	} catch {
		return null;
	}
	if (typeof data !== "object" || data === null) return null;
	return { type: raw.event as BridgeEventType, data } as BridgeEvent;
}

export interface SseHandlers {
	/** The server answered 200: the stream is open. */
	onOpen(): void;
	onChunk(text: string): void;
	/** The stream ended; `status` is set when the server answered with an error status. */
	onClose(error: Error | null, status?: number): void;
}

export interface SseConnection {
	close(): void;
}

export type SseTransport = (target: StreamTarget, handlers: SseHandlers) => SseConnection;

export type StreamStatus = "connecting" | "open" | "waiting" | "stopped";

export interface EventStreamDeps {
	transport: SseTransport;
	/** Where to connect, or null when the daemon is not running. */
	target: () => Promise<StreamTarget | null>;
	timers: Timers;
	onEvent: (event: BridgeEvent) => void;
	onStatus?: (status: StreamStatus, detail?: string) => void;
	initialDelayMs?: number;
	maxDelayMs?: number;
	/** Reconnect when nothing (not even a `: ping`) arrived for this long. */
	idleTimeoutMs?: number;
}

export class EventStream {
	private connection: SseConnection | null = null;
	private retryHandle: unknown = null;
	private idleHandle: unknown = null;
	private failures = 0;
	private running = false;
	private generation = 0;
	private readonly initialDelayMs: number;
	private readonly maxDelayMs: number;
	private readonly idleTimeoutMs: number;

	constructor(private readonly deps: EventStreamDeps) {
		this.initialDelayMs = deps.initialDelayMs ?? 1000;
		this.maxDelayMs = deps.maxDelayMs ?? 30000;
		this.idleTimeoutMs = deps.idleTimeoutMs ?? 45000;
	}

	get isRunning(): boolean {
		return this.running;
	}

	start(): void {
		if (this.running) return;
		this.running = true;
		this.failures = 0;
		void this.connect();
	}

	stop(): void {
		this.running = false;
		this.generation++;
		this.clearTimers();
		this.connection?.close();
		this.connection = null;
		this.deps.onStatus?.("stopped");
	}

	/** Drop any wait and connect at once (after a settings change or a manual retry). */
	reconnectNow(): void {
		if (!this.running) return this.start();
		this.generation++;
		this.clearTimers();
		this.connection?.close();
		this.connection = null;
		this.failures = 0;
		void this.connect();
	}

	/** The wait before the next attempt after `failures` failures in a row. */
	delayFor(failures: number): number {
		return Math.min(this.maxDelayMs, this.initialDelayMs * Math.pow(2, Math.max(0, failures - 1)));
	}

	private clearTimers(): void {
		if (this.retryHandle !== null) this.deps.timers.clearTimeout(this.retryHandle);
		if (this.idleHandle !== null) this.deps.timers.clearTimeout(this.idleHandle);
		this.retryHandle = null;
		this.idleHandle = null;
	}

	private armIdle(generation: number): void {
		if (this.idleHandle !== null) this.deps.timers.clearTimeout(this.idleHandle);
		this.idleHandle = this.deps.timers.setTimeout(() => {
			this.idleHandle = null;
			if (generation !== this.generation) return;
			this.connection?.close();
			this.retry(generation, "no data from the daemon for too long");
		}, this.idleTimeoutMs);
	}

	private retry(generation: number, detail: string): void {
		if (!this.running || generation !== this.generation) return;
		this.generation++;
		this.connection = null;
		if (this.idleHandle !== null) this.deps.timers.clearTimeout(this.idleHandle);
		this.idleHandle = null;
		this.failures++;
		const delay = this.delayFor(this.failures);
		this.deps.onStatus?.("waiting", detail);
		const next = this.generation;
		this.retryHandle = this.deps.timers.setTimeout(() => {
			this.retryHandle = null;
			if (next === this.generation) void this.connect();
		}, delay);
	}

	private async connect(): Promise<void> {
		const generation = this.generation;
		this.deps.onStatus?.("connecting");
		let target: StreamTarget | null = null;
		try {
			target = await this.deps.target();
		} catch (error) {
			return this.retry(generation, error instanceof Error ? error.message : String(error));
		}
		if (generation !== this.generation || !this.running) return;
		if (!target) return this.retry(generation, "the daemon is not running");
		const parser = new SseParser();
		this.connection = this.deps.transport(target, {
			onOpen: () => {
				if (generation !== this.generation) return;
				this.deps.onStatus?.("open");
				this.armIdle(generation);
			},
			onChunk: (text) => {
				if (generation !== this.generation) return;
				this.armIdle(generation);
				for (const raw of parser.push(text)) {
					const event = toBridgeEvent(raw);
					if (!event) continue;
					if (event.type === "hello") this.failures = 0;
					this.deps.onEvent(event);
				}
			},
			onClose: (error, status) => {
				if (generation !== this.generation) return;
				const detail = status ? `HTTP ${status}` : error ? error.message : "the stream ended";
				this.retry(generation, detail);
			},
		});
	}
}
