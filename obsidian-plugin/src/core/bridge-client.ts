/**
 * Client of the daemon's HTTP bridge. The HTTP layer is injected: Obsidian's
 * `requestUrl` in the app, a node:http implementation in tests.
 */
import type { BridgeEndpoint, LocateResult } from "./bridge-locator";
import type { SaveResponse } from "./capture";
import { TimeoutError, withTimeout, type Timers } from "./timers";
import type {
	ArchiveResponse,
	PinResponse,
	ArchivedValues,
	GradeResponse,
	ReviewGrade,
	ReviewValues,
	Cluster,
	EditingResponse,
	GcResponse,
	Job,
	JobKind,
	Note,
	PromoteResponse,
	RelatedResponse,
	RestoreResponse,
	ReviewResponse,
	SearchResponse,
	SearchScope,
	StatusResponse,
	SyncResponse,
	ThreadResponse,
	TouchResponse,
} from "./types";

export interface HttpRequest {
	url: string;
	method: "GET" | "POST";
	headers: Record<string, string>;
	body?: string;
}

export interface HttpResponse {
	status: number;
	text: string;
}

/** Resolves with any HTTP status; rejects only when no answer came (refused, reset...). */
export type HttpRequester = (request: HttpRequest) => Promise<HttpResponse>;

export type OfflineReason = "no_daemon" | "refused" | "unauthorized" | "too_new" | "incompatible";

/** The `daemon.api` this plugin speaks; the daemon's /api/status says its own. */
export const BRIDGE_API = 1;

/** Requests that may take minutes on a big vault (GC, promote-all, sync): no short timeout. */
export const LONG_TIMEOUT_MS = 30 * 60 * 1000;

export type Reachability = { online: true } | { online: false; reason: OfflineReason; detail: string };

/** The daemon could not be reached (or refused our token). */
export class BridgeOfflineError extends Error {
	constructor(
		readonly reason: OfflineReason,
		detail: string,
	) {
		super(detail);
		this.name = "BridgeOfflineError";
	}
}

/**
 * No answer within the timeout. The daemon accepted the connection and is working (a
 * refused or dead daemon fails at once), so this is "busy", never "offline".
 */
export class BridgeBusyError extends Error {
	constructor(readonly ms: number) {
		super(`The mnemovault daemon is busy: no answer within ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}. It keeps working; try again in a moment.`);
		this.name = "BridgeBusyError";
	}
}

/** Whether a daemon's /api/status `daemon` block speaks our API; the reason when not. */
export function apiMismatch(daemon: { api?: unknown; version?: unknown } | undefined): string | null {
	const api = typeof daemon?.api === "number" ? daemon.api : 0;
	if (api === BRIDGE_API) return null;
	const version = typeof daemon?.version === "string" ? ` ${daemon.version}` : "";
	return api < BRIDGE_API
		? `the daemon${version} speaks bridge API ${api}, this plugin needs ${BRIDGE_API}: update mnemovault (pip install -U mnemovault) and restart the daemon`
		: `the daemon${version} speaks bridge API ${api}, this plugin knows ${BRIDGE_API}: update the plugin`;
}

/** The daemon answered with an error object. */
export class BridgeApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
		this.name = "BridgeApiError";
	}
}

export interface BridgeClientDeps {
	http: HttpRequester;
	/** Where the daemon is now (re-run after a failure: it may have restarted on a new port). */
	locate: () => Promise<LocateResult>;
	timers: Timers;
	timeoutMs?: number;
	/** Told after every request whether the daemon answered. */
	onReachability?: (reachability: Reachability) => void;
}

export interface StreamTarget {
	url: string;
	headers: Record<string, string>;
}

function baseUrl(endpoint: BridgeEndpoint): string {
	return `http://${endpoint.host}:${endpoint.port}`;
}

function sameEndpoint(a: BridgeEndpoint, b: BridgeEndpoint): boolean {
	return a.host === b.host && a.port === b.port && a.token === b.token;
}

function parseError(status: number, text: string): BridgeApiError {
	try {
		const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
		const code = typeof body.error?.code === "string" ? body.error.code : "http_" + String(status);
		const message = typeof body.error?.message === "string" ? body.error.message : `HTTP ${status}`;
		return new BridgeApiError(status, code, message);
	} catch {
		return new BridgeApiError(status, "http_" + String(status), `HTTP ${status}`);
	}
}

export class BridgeClient {
	private endpoint: BridgeEndpoint | null = null;
	/** The endpoint whose daemon speaks another API, and why: refused until it changes. */
	private incompatible: { endpoint: BridgeEndpoint; detail: string } | null = null;
	private readonly timeoutMs: number;

	constructor(private readonly deps: BridgeClientDeps) {
		this.timeoutMs = deps.timeoutMs ?? 5000;
	}

	/** Forget the cached endpoint (settings changed, or the daemon restarted). */
	reset(): void {
		this.endpoint = null;
		this.incompatible = null;
	}

	/** Why the current daemon cannot be used (another bridge API), or null. */
	incompatibleDetail(): string | null {
		return this.incompatible?.detail ?? null;
	}

	private report(reachability: Reachability): void {
		this.deps.onReachability?.(reachability);
	}

	private async resolve(fresh: boolean): Promise<BridgeEndpoint> {
		if (this.endpoint && !fresh) return this.endpoint;
		const found = await this.deps.locate();
		if (!found.found) {
			this.endpoint = null;
			throw new BridgeOfflineError(found.reason === "too_new" ? "too_new" : "no_daemon", found.detail);
		}
		this.endpoint = found.endpoint;
		return found.endpoint;
	}

	/** URL and headers for `GET /api/events`, or null when the daemon is not running. */
	async streamTarget(): Promise<StreamTarget | null> {
		try {
			const endpoint = await this.resolve(true);
			return {
				url: `${baseUrl(endpoint)}/api/events`,
				headers: { Authorization: `Bearer ${endpoint.token}`, Accept: "text/event-stream" },
			};
		} catch (error) {
			if (error instanceof BridgeOfflineError) {
				this.report({ online: false, reason: error.reason, detail: error.message });
				return null;
			}
			throw error;
		}
	}

	private send(endpoint: BridgeEndpoint, method: "GET" | "POST", path: string, body: unknown, timeoutMs: number) {
		const headers: Record<string, string> = {
			Authorization: `Bearer ${endpoint.token}`,
			Accept: "application/json",
		};
		const request: HttpRequest = { url: baseUrl(endpoint) + path, method, headers };
		if (body !== undefined) {
			headers["Content-Type"] = "application/json";
			request.body = JSON.stringify(body);
		}
		return withTimeout(this.deps.http(request), timeoutMs, this.deps.timers);
	}

	/**
	 * One request; on no connection or 401, re-locates once in case the daemon moved.
	 * A timeout throws BridgeBusyError and leaves the online state alone.
	 */
	async request<T>(method: "GET" | "POST", path: string, body?: unknown, timeoutMs = this.timeoutMs): Promise<T> {
		let endpoint: BridgeEndpoint;
		try {
			endpoint = await this.resolve(false);
			const bad = this.incompatible;
			// Only /api/status may reach a daemon known to speak another API (to re-check it).
			if (bad && sameEndpoint(bad.endpoint, endpoint) && path !== "/api/status") {
				throw new BridgeOfflineError("incompatible", bad.detail);
			}
		} catch (error) {
			if (error instanceof BridgeOfflineError) {
				this.report({ online: false, reason: error.reason, detail: error.message });
			}
			throw error;
		}
		let response: HttpResponse | null = null;
		for (let attempt = 0; attempt < 2; attempt++) {
			let failure: BridgeOfflineError | null = null;
			try {
				response = await this.send(endpoint, method, path, body, timeoutMs);
				if (response.status === 401) {
					failure = new BridgeOfflineError("unauthorized", "the daemon refused the token");
				}
			} catch (error) {
				if (error instanceof TimeoutError) throw new BridgeBusyError(timeoutMs);
				failure = new BridgeOfflineError("refused", error instanceof Error ? error.message : String(error));
			}
			if (!failure) break;
			this.endpoint = null;
			let next: BridgeEndpoint | null = null;
			if (attempt === 0) {
				try {
					next = await this.resolve(true);
				} catch (error) {
					if (error instanceof BridgeOfflineError) failure = error;
				}
			}
			if (next && !sameEndpoint(next, endpoint)) {
				endpoint = next;
				continue;
			}
			this.report({ online: false, reason: failure.reason, detail: failure.message });
			throw failure;
		}
		const bad = this.incompatible;
		if (bad && sameEndpoint(bad.endpoint, endpoint) && path !== "/api/status") {
			// found incompatible while this request was on its way: do not call it online
			throw new BridgeOfflineError("incompatible", bad.detail);
		}
		this.report({ online: true });
		const answer = response as HttpResponse;
		if (answer.status >= 400) throw parseError(answer.status, answer.text);
		try {
			return JSON.parse(answer.text) as T;
		} catch {
			throw new BridgeApiError(answer.status, "bad_json", "the daemon sent an answer that is not JSON");
		}
	}

	/** The daemon's status; an incompatible daemon is reported (and thrown) as offline. */
	async status(): Promise<StatusResponse> {
		const status = await this.request<StatusResponse>("GET", "/api/status");
		const mismatch = apiMismatch(status.daemon);
		this.incompatible = mismatch && this.endpoint ? { endpoint: this.endpoint, detail: mismatch } : null;
		if (mismatch) {
			this.report({ online: false, reason: "incompatible", detail: mismatch });
			throw new BridgeOfflineError("incompatible", mismatch);
		}
		return status;
	}

	note(path: string): Promise<Note> {
		return this.request("GET", `/api/note?path=${encodeURIComponent(path)}`);
	}

	touch(ref: string, boost = false): Promise<TouchResponse> {
		return this.request("POST", "/api/touch", { ref, boost });
	}

	promote(ref: string, dryRun = false): Promise<PromoteResponse> {
		return this.request("POST", "/api/promote", { ref, dry_run: dryRun });
	}

	promoteAuto(dryRun = false): Promise<PromoteResponse> {
		return this.request("POST", "/api/promote", { auto: true, dry_run: dryRun }, LONG_TIMEOUT_MS);
	}

	/** Keeps a memory as it is (its score, no due dates, out of review); answers `prior` for an exact undo. */
	pin(ref: string): Promise<PinResponse> {
		return this.request("POST", "/api/pin", { ref });
	}

	/** Lets it age again; with `prior` (what pin answered) pin's exact undo. */
	unpin(ref: string, prior?: ReviewValues | null): Promise<PinResponse> {
		return this.request("POST", "/api/unpin", prior ? { ref, prior } : { ref });
	}

	archive(ref: string): Promise<ArchiveResponse> {
		return this.request("POST", "/api/archive", { ref });
	}

	/** Back from the archive; with `prior` (what archive answered) an exact undo, not a use. */
	restore(ref: string, prior?: ArchivedValues | null): Promise<RestoreResponse> {
		return this.request("POST", "/api/restore", prior ? { ref, prior } : { ref });
	}

	/** A graded review: "remember" keeps it alive below the promote threshold, "fade" lets it go. */
	grade(ref: string, grade: ReviewGrade): Promise<GradeResponse> {
		return this.request("POST", "/api/grade", { ref, grade });
	}

	/** Writes a review's `prior` back; 409 when the memory changed since. */
	undoGrade(ref: string, prior: ReviewValues, after: ReviewValues): Promise<{ note: Note; undone: boolean }> {
		return this.request("POST", "/api/ungrade", { ref, prior, after });
	}

	gc(dryRun: boolean): Promise<GcResponse> {
		return this.request("POST", "/api/gc", { dry_run: dryRun }, LONG_TIMEOUT_MS);
	}

	/** The review queue; with `project`, that project's memories and shared ones. */
	review(limit = 20, project = ""): Promise<ReviewResponse> {
		const scoped = project.trim() ? `&project=${encodeURIComponent(project.trim())}` : "";
		return this.request("GET", `/api/review?limit=${limit}${scoped}`);
	}

	/** `includeArchived`: archived memories too, each with its `status` (the daemon's `include_archived`). */
	search(q: string, limit = 10, scope: SearchScope = "all", includeArchived = false): Promise<SearchResponse> {
		const query = `q=${encodeURIComponent(q)}&limit=${limit}&scope=${scope}${includeArchived ? "&include_archived=true" : ""}`;
		return this.request("GET", `/api/search?${query}`);
	}

	/** Saves text as a new short-term memory (or reinforces its exact twin). */
	save(text: string, tags: string[]): Promise<SaveResponse> {
		return this.request("POST", "/api/save", { text, tags });
	}

	/**
	 * Starts a long operation as a daemon job; the daemon answers at once and the progress
	 * arrives as `job` events. `ids` only for consolidate (ids, paths or one cluster id).
	 */
	startJob(kind: JobKind, ids?: string[]): Promise<Job> {
		return this.request("POST", "/api/jobs", ids ? { kind, ids } : { kind });
	}

	/** The daemon's recent jobs (for when the event stream is down). */
	jobs(): Promise<{ jobs: Job[] }> {
		return this.request("GET", "/api/jobs");
	}

	/** Clusters of short-term memories close in meaning; may load the model, so no short timeout. */
	async clusters(): Promise<Cluster[]> {
		const r = await this.request<{ result: Cluster[] }>("POST", "/api/rpc", { op: "cluster", args: {} }, LONG_TIMEOUT_MS);
		return r.result;
	}

	/** Tells the daemon which note is open in the editor (null: none), so it holds its writes. */
	editing(path: string | null): Promise<EditingResponse> {
		return this.request("POST", "/api/editing", { path });
	}

	related(path: string, limit = 10): Promise<RelatedResponse> {
		return this.request("GET", `/api/related?path=${encodeURIComponent(path)}&limit=${limit}`);
	}

	/**
	 * The memories said around `path` in its conversation, in order (`before`/`after` 0-50).
	 * A note said in no conversation: BridgeApiError 409 `wrong_state`.
	 */
	thread(path: string, before = 5, after = 5): Promise<ThreadResponse> {
		return this.request("GET", `/api/thread?ref=${encodeURIComponent(path)}&before=${before}&after=${after}`);
	}

	sync(): Promise<SyncResponse> {
		return this.request("POST", "/api/sync", {}, LONG_TIMEOUT_MS);
	}
}
