import { setImmediate as tick, setTimeout as sleep } from "node:timers/promises";

/** Polls `check` until it holds (or fails the test after `ms`). */
export async function waitFor(check: () => boolean, ms = 3000, what = "condition"): Promise<void> {
	const start = Date.now();
	while (!check()) {
		if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
		await tick();
		await sleep(5);
	}
}
