/** Clock and timers, injected so tests can run on real or fake time. */
export interface Timers {
	now(): number;
	setTimeout(fn: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

export class TimeoutError extends Error {
	constructor(ms: number) {
		super(`no answer within ${ms} ms`);
		this.name = "TimeoutError";
	}
}

/** Resolves like `promise`, or rejects with TimeoutError after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, timers: Timers): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		const handle = timers.setTimeout(() => reject(new TimeoutError(ms)), ms);
		promise.then(
			(value) => {
				timers.clearTimeout(handle);
				resolve(value);
			},
			(error: unknown) => {
				timers.clearTimeout(handle);
				reject(error instanceof Error ? error : new Error(String(error)));
			},
		);
	});
}

/**
 * Calls `run` at most once per `ms` quiet period; every caller of a period gets the
 * result of the last call (so no stale answer overtakes a newer one).
 */
export function debounceLatest<A extends unknown[], R>(
	run: (...args: A) => Promise<R>,
	ms: number,
	timers: Timers,
): (...args: A) => Promise<R> {
	let handle: unknown = null;
	let waiting: { resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
	return (...args: A) =>
		new Promise<R>((resolve, reject) => {
			waiting.push({ resolve, reject });
			if (handle !== null) timers.clearTimeout(handle);
			handle = timers.setTimeout(() => {
				handle = null;
				const batch = waiting;
				waiting = [];
				run(...args).then(
					(r) => batch.forEach((w) => w.resolve(r)),
					(e: unknown) => batch.forEach((w) => w.reject(e)),
				);
			}, ms);
		});
}
