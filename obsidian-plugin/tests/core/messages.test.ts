import { describe, expect, it } from "vitest";
import { BridgeApiError, BridgeOfflineError } from "../../src/core/bridge-client";
import {
	archivedMessage,
	consolidatedMessage,
	errorMessage,
	gcDoneMessage,
	jobProgress,
	jobStartedMessage,
	promotedMessage,
	reinforcedMessage,
	syncedMessage,
} from "../../src/core/messages";
import { makeNote } from "../helpers/fixtures";

const move = { id: "1", title: "JWT", from: "STM/jwt.md", to: "LTM/jwt.md", reason: "manual" };

describe("messages", () => {
	it("say what happened", () => {
		expect(reinforcedMessage({ note: makeNote({ title: "JWT" }), old_score: 0.25, new_score: 1.52 })).toBe('Reinforced "JWT": score 0.25 → 1.52.');
		expect(promotedMessage({ promoted: [move], dry_run: false })).toBe('Promoted "JWT" to LTM/jwt.md.');
		expect(promotedMessage({ promoted: [], dry_run: false })).toBe("Nothing was promoted.");
		expect(archivedMessage({ archived: [{ ...move, to: "Archive/jwt.md" }] })).toBe('Archived "JWT" to Archive/jwt.md.');
		expect(gcDoneMessage({ candidates: [], archived: [move, move], dry_run: false })).toMatch(/^Archived 2 memories/);
		expect(syncedMessage({ added: 1, updated: 2, removed: 0, moved: 1, unchanged: 9, problems: 0 })).toBe(
			"Index synced: 1 added, 2 updated, 0 removed, 1 moved.",
		);
		expect(syncedMessage({ added: 0, updated: 0, removed: 0, moved: 0, unchanged: 9, problems: [{}] })).toMatch(/1 with problems/);
	});

	it("tell a consolidation, with the originals that could not be archived", () => {
		const note = makeNote({ path: "STM/Merged.md", title: "Merged" });
		const archived = [move, { ...move, from: "STM/b.md" }];
		expect(consolidatedMessage({ applied: true, note, archived, errors: [] })).toBe(
			'Consolidated 2 memories into "Merged" (STM/Merged.md). The originals are in the archive, linked to it.',
		);
		expect(consolidatedMessage({ applied: true, note, archived: [move], errors: [{ path: "STM/c.md", error: "locked" }] })).toMatch(
			/^Consolidated 1 memory into .* 1 could not be archived: STM\/c.md\.$/,
		);
		expect(consolidatedMessage({ applied: false, note: null, archived: [], errors: [] })).toBe("Nothing was consolidated.");
		expect(jobStartedMessage("consolidate")).toBe("Consolidating memories in the background…");
		const job = { id: "1", kind: "consolidate" as const, state: "running" as const, done: 1, total: 3, result: null, error: null };
		expect(jobProgress(job)).toBe("Consolidating 1/3");
		expect(jobProgress({ ...job, kind: "promote", total: null })).toBe("Promoting…");
	});

	it("explain failures", () => {
		expect(errorMessage(new BridgeOfflineError("refused", "x"), "start it")).toBe("start it");
		expect(errorMessage(new BridgeApiError(404, "not_found", "nope"), "")).toBe("This note is not in the memory index.");
		expect(errorMessage(new BridgeApiError(409, "wrong_state", "already promoted"), "")).toBe("already promoted");
	});
});
