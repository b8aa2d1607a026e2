import { describe, expect, it } from "vitest";
import { captureText, parseTags, savedMessage } from "../../src/core/capture";
import { makeNote } from "../helpers/fixtures";

describe("capture", () => {
	it("takes the selection, else the first paragraph after frontmatter and headings", () => {
		expect(captureText("  picked text ", "ignored")).toBe("picked text");
		expect(captureText("", "---\nid: 1\n---\n# Title\n\nThe first one.\nStill it.\n\nThe second.")).toBe("The first one.\nStill it.");
		expect(captureText(" ", "## Only a heading")).toBe("");
	});

	it("parses tags from spaces, commas and #", () => {
		expect(parseTags(" #Work, project/atlas  ops,ops ")).toEqual(["work", "project/atlas", "ops"]);
		expect(parseTags("")).toEqual([]);
	});

	it("says saved, reinforced twin, and may supersede", () => {
		const note = makeNote({ title: "T", path: "STM/T.md" });
		expect(savedMessage({ saved: true, reinforced: false, note })).toBe('Saved as a memory: "T" in STM/T.md.');
		expect(savedMessage({ saved: false, reinforced: true, note, duplicate_of: "STM/T.md" })).toBe(
			'Already a memory: reinforced "T" (STM/T.md) instead of copying it.',
		);
	});
});
