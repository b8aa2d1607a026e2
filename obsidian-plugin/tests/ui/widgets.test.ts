// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { renderGcPreview } from "../../src/ui/gc-preview";
import { renderSearchItem } from "../../src/ui/search-item";
import { StatusBarRenderer } from "../../src/ui/status-bar";

describe("status bar", () => {
	it("shows score and state, offline, or nothing", () => {
		const el = createDiv();
		const bar = new StatusBarRenderer(el);
		bar.showScore(0.4321, "promote_candidate");
		expect(el.textContent).toBe("Memory 0.43 · promote candidate");
		expect(el.classList.contains("is-promote_candidate")).toBe(true);
		bar.showOffline("Start it with: mnemovault daemon --vault /v");
		expect(el.textContent).toBe("Mnemovault daemon offline");
		expect(el.getAttribute("aria-label")).toContain("mnemovault daemon --vault /v");
		expect(el.classList.contains("is-promote_candidate")).toBe(false);
		bar.clear();
		expect(el.classList.contains("mnemovault-hidden")).toBe(true);
	});
});

describe("search item", () => {
	it("renders title, kind, score and snippet as text", () => {
		const el = createDiv();
		renderSearchItem(el, {
			path: "STM/jwt.md",
			id: "1",
			title: "JWT <b>rotation</b>",
			kind: "stm",
			snippet: "signs JWTs with <script>RS256</script>",
			score: 0.8123,
			parts: { fts: 1, semantic: null, decay: 0.9 },
			review: true,
		});
		expect(el.querySelector(".mnemovault-search-title")!.textContent).toBe("JWT <b>rotation</b>");
		expect(el.querySelector("script")).toBeNull();
		expect(el.querySelector(".mnemovault-search-kind")!.textContent).toBe("short-term");
		expect(el.querySelector(".mnemovault-search-score")!.textContent).toBe("relevance 0.81");
		expect(el.querySelector(".mnemovault-search-review")).not.toBeNull();
	});

	it("shows the daemon's **match** marks as highlights, never as raw asterisks", () => {
		const el = createDiv();
		renderSearchItem(el, {
			path: "STM/jwt.md",
			id: "1",
			title: "JWT",
			kind: "stm",
			snippet: "…we **rotate** the **JWT** keys every <b>90</b> days",
			score: 0.8,
			parts: { fts: 1, semantic: null, decay: 0.9 },
			review: false,
		});
		const snip = el.querySelector(".mnemovault-search-snippet")!;
		expect(snip.textContent).toBe("…we rotate the JWT keys every <b>90</b> days");
		expect(Array.from(snip.querySelectorAll("mark")).map((m) => m.textContent)).toEqual(["rotate", "JWT"]);
		expect(snip.querySelector("b")).toBeNull();
	});
});

describe("GC preview", () => {
	it("lists candidates and confirms", () => {
		const el = createDiv();
		const confirm = vi.fn();
		const cancel = vi.fn();
		renderGcPreview(el, [{ id: "1", title: "Old", path: "STM/old.md", score: 0.01, reason: "below forget threshold" }], { confirm, cancel });
		expect(el.querySelectorAll(".mnemovault-gc-item")).toHaveLength(1);
		const buttons = el.querySelectorAll("button");
		(buttons[1] as HTMLElement).click();
		expect(confirm).toHaveBeenCalled();
		(buttons[0] as HTMLElement).click();
		expect(cancel).toHaveBeenCalled();
	});

	it("says when there is nothing to archive", () => {
		const el = createDiv();
		renderGcPreview(el, [], { confirm: vi.fn(), cancel: vi.fn() });
		expect(el.textContent).toContain("Nothing to archive");
	});
});
