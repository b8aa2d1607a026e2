import { describe, expect, it } from "vitest";
import { debounceLatest, withTimeout, TimeoutError } from "../../src/core/timers";
import { nodeTimers } from "../../src/platform/node-env";

describe("timers", () => {
	it("withTimeout rejects late promises and passes prompt ones", async () => {
		const t = nodeTimers();
		await expect(withTimeout(new Promise(() => undefined), 20, t)).rejects.toBeInstanceOf(TimeoutError);
		await expect(withTimeout(Promise.resolve(3), 1000, t)).resolves.toBe(3);
	});

	it("debounceLatest runs once per burst and gives every caller the latest answer", async () => {
		const calls: string[] = [];
		const search = debounceLatest(async (q: string) => {
			calls.push(q);
			return `results for ${q}`;
		}, 20, nodeTimers());
		const answers = await Promise.all([search("j"), search("jw"), search("jwt")]);
		expect(calls).toEqual(["jwt"]);
		expect(answers).toEqual(["results for jwt", "results for jwt", "results for jwt"]);
	});
});
