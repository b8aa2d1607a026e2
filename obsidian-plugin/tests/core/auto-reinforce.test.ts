import { describe, expect, it } from "vitest";
import { ReinforceOnOpenPolicy } from "../../src/core/auto-reinforce";

describe("ReinforceOnOpenPolicy", () => {
	it("reinforces short-term memories once per cooldown, follows moves", () => {
		let now = 0;
		const p = new ReinforceOnOpenPolicy({ now: () => now }, 1000);
		expect(p.take("STM/a.md", "stm")).toBe(true);
		expect(p.take("STM/a.md", "stm")).toBe(false);
		expect(p.take("LTM/b.md", "ltm")).toBe(false);
		expect(p.take("notes/c.md", "note")).toBe(false);
		p.moved("STM/a.md", "STM/renamed.md");
		expect(p.take("STM/renamed.md", "stm")).toBe(false);
		now = 1000;
		expect(p.take("STM/renamed.md", "stm")).toBe(true);
	});
});
