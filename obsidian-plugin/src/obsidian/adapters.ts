/** Obsidian's side of the injected seams: requestUrl, window timers, the vault's path. */
import { FileSystemAdapter, requestUrl, type App } from "obsidian";
import type { HttpRequester } from "../core/bridge-client";
import type { Timers } from "../core/timers";

/** `requestUrl` as an HttpRequester: any status resolves, only "no answer" rejects. */
export function requestUrlRequester(request: typeof requestUrl = requestUrl): HttpRequester {
	return async (req) => {
		const response = await request({
			url: req.url,
			method: req.method,
			headers: req.headers,
			body: req.body,
			contentType: req.body === undefined ? undefined : "application/json",
			throw: false,
		});
		return { status: response.status, text: response.text };
	};
}

export function windowTimers(): Timers {
	return {
		now: () => Date.now(),
		setTimeout: (fn, ms) => window.setTimeout(fn, ms),
		clearTimeout: (handle) => window.clearTimeout(handle as number),
	};
}

/** Absolute path of the vault on disk, or null (not a desktop file-system vault). */
export function vaultBasePath(app: App): string | null {
	const adapter = app.vault.adapter;
	return adapter instanceof FileSystemAdapter ? adapter.getBasePath() : null;
}
