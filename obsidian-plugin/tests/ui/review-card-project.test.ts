// @vitest-environment happy-dom
/** The review card names the memory's project (docs/projects.md). */
import { describe, expect, it } from "vitest";
import { DEFAULT_SCORING } from "../../src/core/decay";
import { renderReviewCard, type ReviewCardModel } from "../../src/ui/review-card";
import { makeNote, NOW } from "../helpers/fixtures";

function model(patch: Partial<ReviewCardModel>): ReviewCardModel {
	return {
		note: makeNote(),
		text: "Rotate the JWT keys every 90 days.",
		archiveOn: null,
		count: 1,
		summary: { remembered: 0, faded: 0, pinned: 0, promoted: 0, archived: 0, skipped: 0 },
		scoring: DEFAULT_SCORING,
		nowMs: NOW,
		horizonDays: 30,
		...patch,
	};
}

describe("review card project", () => {
	it("shows the project, or that the memory is shared", () => {
		const el = createDiv();
		renderReviewCard(el, model({ note: makeNote({ project: "atlas" }) }), () => {});
		expect(el.querySelector(".mnemovault-card-project")!.textContent).toBe("Project atlas");
		renderReviewCard(el, model({ note: makeNote({ project: null }) }), () => {});
		expect(el.querySelector(".mnemovault-card-project")!.textContent).toBe("Shared");
	});

	it("says nothing about projects for an older daemon", () => {
		const el = createDiv();
		renderReviewCard(el, model({}), () => {});
		expect(el.querySelector(".mnemovault-card-project")).toBeNull();
	});
});
