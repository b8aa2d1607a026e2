/**
 * The conversation thread end to end: turns written as notes (as `save_memories` or a person
 * would write them), the real daemon, and the plugin's own BridgeClient.thread.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRealDaemon, type RealDaemon } from "./real-daemon";

const LONG = 90_000;
const TURNS = ["We reached the museum.", "Was it the one on Murano?", "Yes, I went there yesterday!", "A blue vase.", "Bye!"];
let d: RealDaemon;

beforeAll(async () => {
	d = await startRealDaemon({
		prepare: (_python, vault) => {
			mkdirSync(join(vault, "STM"), { recursive: true });
			TURNS.forEach((text, i) => {
				const said = `2023-05-08T10:0${i}:00Z`;
				writeFileSync(join(vault, "STM", `trip ${i}.md`), `---\nconversation: trip\nsaid_at: ${said}\n---\n${text}\n`);
			});
			writeFileSync(join(vault, "STM", "plain.md"), "A memory said in no conversation.\n");
		},
	});
}, LONG);

afterAll(async () => {
	await d?.stop();
}, LONG);

describe("the thread of a memory, from the real daemon", { timeout: LONG }, () => {
	it("the turns around it in the order they were said, itself marked, the rest counted", async () => {
		const t = await d.client.thread("STM/trip 2.md", 1, 1);
		expect(t.conversation).toBe("trip");
		expect(t.turns.map((x) => [x.path, x.text, x.this])).toEqual([
			["STM/trip 1.md", TURNS[1], false],
			["STM/trip 2.md", TURNS[2], true],
			["STM/trip 3.md", TURNS[3], false],
		]);
		expect([t.earlier, t.later]).toEqual([1, 1]);
		expect(t.turns[0].said_at).toBe("2023-05-08T10:01:00Z");
	});

	it("a note said in no conversation is a 409 wrong_state; an unknown one a 404", async () => {
		await expect(d.client.thread("STM/plain.md")).rejects.toMatchObject({ status: 409, code: "wrong_state" });
		await expect(d.client.thread("STM/none.md")).rejects.toMatchObject({ status: 404, code: "not_found" });
	});
});
