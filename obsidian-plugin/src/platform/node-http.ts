/**
 * node:http implementations of the injected HTTP seams: the SSE transport the app
 * uses for the event stream (requestUrl cannot stream), and an HttpRequester that
 * tests and scripts use where the app uses Obsidian's requestUrl.
 */
import { request as httpRequest } from "http";
import type { HttpRequester } from "../core/bridge-client";
import type { SseTransport } from "../core/event-stream";

export function nodeHttpRequester(): HttpRequester {
	return (req) =>
		new Promise((resolve, reject) => {
			const r = httpRequest(req.url, { method: req.method, headers: req.headers }, (res) => {
				res.setEncoding("utf8");
				let text = "";
				res.on("data", (chunk: string) => (text += chunk));
				res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
				res.on("error", reject);
			});
			r.on("error", reject);
			if (req.body !== undefined) r.write(req.body);
			r.end();
		});
}

export const nodeSseTransport: SseTransport = (target, handlers) => {
	let closed = false;
	const finish = (error: Error | null, status?: number) => {
		if (closed) return;
		closed = true;
		handlers.onClose(error, status);
	};
	const req = httpRequest(target.url, { method: "GET", headers: target.headers }, (res) => {
		const status = res.statusCode ?? 0;
		if (status !== 200) {
			res.resume();
			finish(new Error(`HTTP ${status}`), status);
			req.destroy();
			return;
		}
		res.setEncoding("utf8");
		handlers.onOpen();
		res.on("data", (chunk: string) => {
			if (!closed) handlers.onChunk(chunk);
		});
		res.on("end", () => finish(null));
		res.on("error", (error) => finish(error));
	});
	req.on("error", (error) => finish(error));
	req.end();
	return {
		close: () => {
			closed = true;
			req.destroy();
		},
	};
};
