/**
 * Page code for the browser test: renders the plugin's real UI modules (status bar,
 * review view, review flow card, related panel) with sample data into a page styled by
 * the real styles.css. Actions are logged on `window.mvLog` for the test to check.
 */
import { DEFAULT_SCORING, reviewPriority, scoreAt } from "../../src/core/decay";
import { dueCountText } from "../../src/core/format";
import { ReviewSession } from "../../src/core/review-session";
import { ReviewStore } from "../../src/core/review-store";
import type { Note, RelatedItem } from "../../src/core/types";
import { renderReviewCard, cardKey, type CardAction, type ReviewCardModel } from "../../src/ui/review-card";
import { ReviewPanel } from "../../src/ui/review-panel";
import { renderRelated } from "../../src/ui/related-list";
import { StatusBarRenderer } from "../../src/ui/status-bar";
import { renderSupersededBanner } from "../../src/ui/superseded-banner";
import { installObsidianDom } from "../mocks/obsidian-dom";

declare global {
	interface Window {
		mvLog: string[];
		mvPanel: ReviewPanel;
		mvStore: ReviewStore;
	}
}

installObsidianDom(document);
window.mvLog = [];
const log = (s: string) => window.mvLog.push(s);
const now = Date.parse("2026-11-22T12:00:00Z");
const day = 86400;
const samples: [string, number, number, number][] = [
	["Auth service signs JWTs with RS256", 2, 13.5, 1.0],
	["Staging DB is rebuilt every Sunday night", 3, 30, 1.1],
	["Ana prefers PR reviews before noon", 1, 8.3, 1.0],
	["Rate limit on the billing API is 50 req/s", 4, 25, 0.9],
];
const items: Note[] = samples
	.map(([title, n, daysAgo, strength], i) => {
		const score = scoreAt(daysAgo * day, { useCount: n, strength }, DEFAULT_SCORING);
		return {
			path: `STM/sample-${i}.md`,
			id: String(i),
			kind: "stm" as const,
			title,
			status: "active",
			tags: [],
			use_count: n,
			strength,
			last_used: new Date(now - daysAgo * day * 1000).toISOString(),
			created: new Date(now - 60 * day * 1000).toISOString(),
			decay_score: score,
			score,
			review_priority: reviewPriority(score, DEFAULT_SCORING),
			state: "danger" as const,
			problems: [],
		};
	})
	.sort((a, b) => b.review_priority - a.review_priority);

// Status bar: the active note's score and the queue count.
const bar = document.getElementById("statusbar")!;
new StatusBarRenderer(bar.createDiv()).showScore(0.31, "danger");
bar.createDiv({ cls: "mnemovault-status mnemovault-queue", text: dueCountText(items.length) });
new StatusBarRenderer(bar.createDiv()).showOffline("token refused", "Mnemovault daemon: token refused");

// Review view: a real ReviewStore and ReviewPanel, frames from requestAnimationFrame.
const timers = { now: () => Date.now(), setTimeout: (f: () => void, ms: number) => window.setTimeout(f, ms), clearTimeout: (h: unknown) => window.clearTimeout(h as number) };
const store = new ReviewStore(
	{ review: async () => ({ items }), status: async () => { throw new Error("not used"); } },
	timers,
	() => "offline",
);
store.setScoring(DEFAULT_SCORING);
window.mvStore = store;
const panel = new ReviewPanel(document.getElementById("review")!, {
	subscribe: (l) => store.subscribe(l),
	model: (s) => ({ ...s, nowMs: now, horizonDays: 30, command: "mnemovault daemon --vault ~/Notes" }),
	actions: {
		open: (n) => log(`open ${n.path}`),
		remember: (n) => log(`remember ${n.path}`),
		fade: (n) => log(`fade ${n.path}`),
		promote: (n) => log(`promote ${n.path}`),
		archive: (n) => log(`archive ${n.path}`),
		refresh: () => log("refresh"),
	},
	frame: (run) => window.requestAnimationFrame(run),
});
window.mvPanel = panel;
panel.start();
void store.refresh();

// Review flow: the card, one memory at a time.
const cardEl = document.getElementById("card")!;
const session = new ReviewSession(items);
const texts: Record<string, string> = {
	"Auth service signs JWTs with RS256":
		"The auth service signs JWTs with RS256; keys rotate every 90 days through the vault job.",
};
const OUTCOME = { remember: "remembered", fade: "faded", promote: "promoted", archive: "archived", skip: "skipped" } as const;
function run(action: CardAction) {
	const n = session.current();
	if (!n) return;
	if (action === "open" || action === "close") return log(`${action} ${n.path}`);
	if (!(action in OUTCOME)) return;
	const outcome = OUTCOME[action as keyof typeof OUTCOME];
	log(`${outcome} ${n.path}`);
	session.settle(n, outcome);
	drawCard();
}
function model(): ReviewCardModel {
	const note = session.current();
	return {
		note,
		text: note ? (texts[note.title] ?? `${note.title}.`) : null,
		archiveOn: note ? "2026-12-06" : null,
		count: session.remaining(),
		summary: session.summary(),
		scoring: DEFAULT_SCORING,
		nowMs: now,
		horizonDays: 30,
	};
}
function drawCard() {
	renderReviewCard(cardEl, model(), run)?.focus();
}
// Obsidian's scopes: the review view's while focus is in it, else the card's (the modal's) for the whole page.
document.addEventListener("keydown", (evt) => {
	if ((evt.target as HTMLElement).closest?.("#review")) {
		if (panel.key(evt.key)) evt.preventDefault();
		return;
	}
	if (!cardEl.isConnected) return;
	const action = cardKey(evt.key, model());
	if (action) {
		evt.preventDefault();
		run(action);
	}
});
drawCard();

// Related panel.
const related: RelatedItem[] = [
	{ path: "STM/Key rotation runs from the vault job.md", id: "a", title: "Key rotation runs from the vault job", score: 0.82, state: "fresh", similarity: 0.81 },
	{ path: "LTM/Auth tokens live 15 minutes.md", id: "b", title: "Auth tokens live 15 minutes", score: 1.4, state: "promoted", similarity: 0.74 },
	{ path: "STM/Billing API rate limit.md", id: "c", title: "Billing API rate limit", score: 0.3, state: "danger", similarity: 0.52 },
	{ path: "STM/Coffee grinder setting.md", id: "d", title: "Coffee grinder setting", score: 0.9, state: "fresh", similarity: 0.06 },
];
renderRelated(
	document.getElementById("related")!,
	{ status: "ready", path: "Projects/Auth.md", answer: { items: related, method: "semantic", notice: null } },
	"offline",
	{ open: (i, newTab) => log(`open ${i.path}${newTab ? " in a new tab" : ""}`) },
	{ minSimilarity: 0.3, hidden: new Set() },
);
// A superseded note: the banner over the note, the status bar saying so.
renderSupersededBanner(document.getElementById("note")!, "STM/Prefers Go for backend services.md", (path) => log(`open ${path}`));
new StatusBarRenderer(document.getElementById("note-status")!.createDiv()).showSuperseded("STM/Prefers Go for backend services.md");
document.body.dataset.ready = "yes";
