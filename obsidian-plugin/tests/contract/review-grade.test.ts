/**
 * The review rule as the plugin meets it: graded reviews on the real daemon, checked
 * against the rule computed here with the plugin's own decay model (a review keeps a
 * memory alive, never past the point where it becomes a promotion candidate), and Undo.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scoreAt } from "../../src/core/decay";
import type { ReviewGrade, Scoring } from "../../src/core/types";
import { runPython, startRealDaemon, type RealDaemon } from "./real-daemon";

const LONG = 90_000;
// (uses, strength, days since last use): in the zone, a weak one, a strong one, one below it
const CASES: [number, number, number][] = [
	[3, 1.0, 20],
	[1, 0.4, 1],
	[8, 2.0, 60],
	[1, 1.0, 40],
];
const PREPARE = `
import sys
from datetime import timedelta
from pathlib import Path
from vault_sync.dates import utc_now
from vault_sync.service import MemoryService
from vault_sync.settings import load_settings
vault = Path(sys.argv[1]); (vault / "STM").mkdir(parents=True)
svc = MemoryService(load_settings(vault=vault, index_path=vault.parent / "prepare.sqlite3", embeddings=False))
now = utc_now()
for i, case in enumerate(sys.argv[2:]):
    uses, strength, days = case.split(",")
    svc.create_memory(f"Graded memory number {i}.", title=f"Graded {i}", use_count=int(uses), strength=float(strength),
                      created=now - timedelta(days=90), last_used=now - timedelta(days=float(days)))
svc.close()
# spelled as another tool writes them: an undo must give these bytes back, not ours
def respell(line):
    if line.startswith("last_used: ") and line.endswith("Z"):
        return line[:-1] + "+00:00"
    return "review_priority: 0.000" if line == "review_priority: 0.0" else line
for note in (vault / "STM").glob("*.md"):
    note.write_text("".join(respell(line) + chr(10) for line in note.read_text().splitlines()))
`;
let d: RealDaemon;
let scoring: Scoring;

beforeAll(async () => {
	d = await startRealDaemon({ prepare: (python, vault) => void runPython(python, PREPARE, [vault, ...CASES.map((c) => c.join(","))]) });
	scoring = (await d.client.status()).scoring;
}, LONG);

afterAll(async () => {
	await d?.stop();
}, LONG);

/** The rule (README, "A review is not a use"), from the scores alone. */
function expected(grade: ReviewGrade, before: number, peak: number): number {
	if (grade === "remember") {
		const target = (scoring.danger_zone_max + scoring.promote_threshold) / 2;
		return Math.max(before, Math.min(peak, target));
	}
	return Math.min(before, scoring.danger_zone_min * 0.99);
}

describe("graded review on the real daemon", { timeout: LONG }, () => {
	for (const grade of ["remember", "fade"] as const) {
		it(`${grade}: the score the rule gives, no use counted, no promotion candidate, Undo exact`, async () => {
			for (let i = 0; i < CASES.length; i++) {
				const [uses, strength] = CASES[i];
				const path = `STM/Graded ${i}.md`;
				const file = join(d.vault, path);
				const bytes = await readFile(file, "utf8");
				expect(bytes).toMatch(/^last_used: .*\+00:00$/m);
				const r = await d.client.grade(path, grade);
				const peak = scoreAt(0, { useCount: uses, strength }, scoring);
				expect(r.new_score).toBeCloseTo(expected(grade, r.old_score, peak), 3);
				expect(r.new_score).toBeLessThan(Math.max(r.old_score, scoring.promote_threshold));
				expect(r.note.use_count).toBe(uses);
				expect(r.note.strength).toBe(strength);
				await d.client.undoGrade(path, r.prior, r.after);
				expect(await readFile(file, "utf8")).toBe(bytes);
			}
			expect((await d.client.promoteAuto(true)).candidates).toEqual([]);
		});
	}
});
