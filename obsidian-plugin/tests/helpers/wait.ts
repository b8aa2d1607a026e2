import { setImmediate as tick, setTimeout as sleep } from "node:timers/promises";

/** A loaded CI machine (two cores shared with the Python suite) can take many times a quiet
 * one's time: every wait gets at least this long. A wait that holds returns at once, so only
 * a failing test pays for it. */
const LEAST_WAIT_MS = 20_000;

/** Polls `check` until it holds (or fails the test after `ms`, at least LEAST_WAIT_MS). */
export async function waitFor(check: () => boolean, ms = 3000, what = "condition"): Promise<void> {
	const start = Date.now();
	const limit = Math.max(ms, LEAST_WAIT_MS);
	while (!check()) {
		if (Date.now() - start > limit) throw new Error(`timed out waiting for ${what}`);
		await tick();
		await sleep(5);
	}
}
