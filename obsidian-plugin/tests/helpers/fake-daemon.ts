/**
 * A real HTTP server on 127.0.0.1 that follows docs/bridge-api.md (auth, Host and
 * Origin checks, JSON errors, the event stream), with answers a test can script.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { locateBridge } from "../../src/core/bridge-locator";
import { nodeLocatorEnv } from "../../src/platform/node-env";
import { tempDir, writeBridgeFile } from "./fixtures";

export interface RecordedRequest {
	method: string;
	path: string;
	query: URLSearchParams;
	headers: IncomingMessage["headers"];
	body: unknown;
}

export type Answer = { status?: number; body: unknown } | "hang";
export type Route = (req: RecordedRequest) => Answer | Promise<Answer>;

export interface FakeDaemon {
	port: number;
	token: string;
	requests: RecordedRequest[];
	routes: Map<string, Route>;
	/** Number of open event-stream connections. */
	streams(): number;
	send(type: string, data: unknown): void;
	sendRaw(text: string): void;
	/** Ends every open event stream (the daemon restarted its stream, or crashed). */
	dropStreams(): void;
	close(): Promise<void>;
}

export function error(status: number, code: string, message: string): Answer {
	return { status, body: { error: { code, message } } };
}

export async function startFakeDaemon(token = "secret-token", port = 0): Promise<FakeDaemon> {
	const requests: RecordedRequest[] = [];
	const routes = new Map<string, Route>();
	const streams = new Set<ServerResponse>();
	const hanging = new Set<ServerResponse>();

	const handle = async (req: IncomingMessage, res: ServerResponse, body: string) => {
		const url = new URL(req.url ?? "/", "http://127.0.0.1");
		const send = (status: number, payload: unknown) => {
			res.writeHead(status, { "Content-Type": "application/json" });
			res.end(JSON.stringify(payload));
		};
		if (req.headers.authorization !== `Bearer ${token}`) {
			return send(401, { error: { code: "unauthorized", message: "missing or wrong token" } });
		}
		const host = req.headers.host ?? "";
		const actualPort = (server.address() as AddressInfo).port;
		if (host !== `127.0.0.1:${actualPort}` && host !== `localhost:${actualPort}`) {
			return send(403, { error: { code: "forbidden", message: "bad host" } });
		}
		if (req.headers.origin !== undefined && req.headers.origin !== "app://obsidian.md") {
			return send(403, { error: { code: "forbidden", message: "bad origin" } });
		}
		let parsed: unknown = null;
		if (body) {
			try {
				parsed = JSON.parse(body);
			} catch {
				return send(400, { error: { code: "invalid", message: "body is not JSON" } });
			}
		}
		const record: RecordedRequest = {
			method: req.method ?? "GET",
			path: url.pathname,
			query: url.searchParams,
			headers: req.headers,
			body: parsed,
		};
		requests.push(record);
		if (url.pathname === "/api/events") {
			res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
			res.write("event: hello\ndata: {}\n\n");
			streams.add(res);
			res.on("close", () => streams.delete(res));
			return;
		}
		const route = routes.get(`${record.method} ${url.pathname}`);
		if (!route) return send(404, { error: { code: "not_found", message: `no route ${url.pathname}` } });
		const answer = await route(record);
		if (answer === "hang") {
			hanging.add(res);
			return;
		}
		send(answer.status ?? 200, answer.body);
	};

	const server: Server = createServer((req, res) => {
		let body = "";
		req.setEncoding("utf8");
		req.on("data", (chunk: string) => (body += chunk));
		req.on("end", () => void handle(req, res, body));
	});
	await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
	const actual = (server.address() as AddressInfo).port;

	return {
		port: actual,
		token,
		requests,
		routes,
		streams: () => streams.size,
		send(type, data) {
			for (const res of streams) res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
		},
		sendRaw(text) {
			for (const res of streams) res.write(text);
		},
		dropStreams() {
			for (const res of streams) res.destroy();
			streams.clear();
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const res of [...streams, ...hanging]) res.destroy();
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** A fake daemon with its bridge file written for a temp vault, and a locator that finds it. */
export async function startFakeBridge(): Promise<{
	daemon: FakeDaemon;
	configDir: string;
	vault: string;
	locate: () => ReturnType<typeof locateBridge>;
}> {
	const root = await tempDir();
	const configDir = join(root, "config");
	const vault = join(root, "vault");
	const daemon = await startFakeDaemon();
	await writeBridgeFile(configDir, vault, { port: daemon.port, token: daemon.token });
	const env = nodeLocatorEnv({ env: { MNEMOVAULT_CONFIG_DIR: configDir } });
	return { daemon, configDir, vault, locate: () => locateBridge(vault, env) };
}
