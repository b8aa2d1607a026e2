// @vitest-environment happy-dom
import { App } from "../mocks/obsidian";
import { describe, expect, it, vi } from "vitest";
import { BridgeOfflineError } from "../../src/core/bridge-client";
import type { SearchResponse } from "../../src/core/types";
import { MemorySearchModal } from "../../src/obsidian/search-modal";
import { nodeTimers } from "../../src/platform/node-env";

const result = {
	path: "STM/jwt.md",
	id: "1",
	title: "JWT rotation",
	kind: "stm" as const,
	snippet: "rotates keys every 90 days",
	score: 0.7,
	parts: { fts: 1, semantic: null, decay: 0.8 },
	review: false,
};

describe("search modal", () => {
	it("debounces typing into one request and opens the chosen note", async () => {
		const search = vi.fn(async (): Promise<SearchResponse> => ({ results: [result], semantic: false, notice: null }));
		const open = vi.fn();
		const modal = new MemorySearchModal(new App() as never, { client: { search }, timers: nodeTimers(), offlineText: () => "offline", open, debounceMs: 20 });
		const answers = await Promise.all([modal.getSuggestions("j"), modal.getSuggestions("jw"), modal.getSuggestions("jwt")]);
		expect(search).toHaveBeenCalledTimes(1);
		expect(search).toHaveBeenCalledWith("jwt", 20, "all", false);
		expect(answers[0]).toEqual([result]);
		const el = createDiv();
		modal.renderSuggestion(result, el);
		expect(el.querySelector(".mnemovault-search-snippet")!.textContent).toBe("rotates keys every 90 days");
		modal.onChooseSuggestion(result);
		expect(open).toHaveBeenCalledWith("STM/jwt.md");
	});

	it("snippets are plain text: the daemon's **match** markers become highlights, never shown raw", () => {
		const modal = new MemorySearchModal(new App() as never, { client: { search: vi.fn() }, timers: nodeTimers(), offlineText: () => "", open: vi.fn() });
		const el = createDiv();
		modal.renderSuggestion({ ...result, snippet: "…the **JWT** signing keys **rotate** every 90 days; a stray ** here…" }, el);
		const snippet = el.querySelector(".mnemovault-search-snippet")!;
		expect(snippet.textContent).toBe("…the JWT signing keys rotate every 90 days; a stray  here…");
		expect(snippet.textContent).not.toContain("*");
		expect(Array.from(snippet.querySelectorAll("mark")).map((m) => m.textContent)).toEqual(["JWT", "rotate"]);
		expect(snippet.innerHTML).not.toContain("<b>");
	});

	it("Alt+A (or the toggle) includes the archive: archived hits carry a badge and their dates", async () => {
		const search = vi.fn(async (): Promise<SearchResponse> => ({ results: [result], semantic: false, notice: null }));
		const modal = new MemorySearchModal(new App() as never, { client: { search }, timers: nodeTimers(), offlineText: () => "", open: vi.fn(), debounceMs: 5 });
		modal.open();
		const toggle = modal.modalEl.querySelector<HTMLInputElement>(".mnemovault-search-archive input")!;
		expect(toggle.checked).toBe(false);
		document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "a", altKey: true, bubbles: true }));
		expect(modal.includeArchived).toBe(true);
		expect(toggle.checked).toBe(true);
		await modal.getSuggestions("jwt");
		expect(search).toHaveBeenLastCalledWith("jwt", 20, "all", true);
		const el = createDiv();
		modal.renderSuggestion({ ...result, status: "archived", created: "2026-10-01T08:00:00Z", last_used: "2026-11-17T09:30:00Z", tags: ["auth"] }, el);
		expect(el.querySelector(".mnemovault-search-kind")!.textContent).toBe("archived");
		expect(el.querySelector(".mnemovault-search-path")!.textContent).toBe("STM/jwt.md · created 2026-10-01 · last used 2026-11-17");
		toggle.checked = false;
		toggle.dispatchEvent(new Event("change"));
		expect(modal.includeArchived).toBe(false);
		modal.close();
	});

	it("snippets never show Markdown syntax", () => {
		const modal = new MemorySearchModal(new App() as never, { client: { search: vi.fn() }, timers: nodeTimers(), offlineText: () => "", open: vi.fn() });
		const el = createDiv();
		modal.renderSuggestion({ ...result, snippet: "## Keys\n- see [[Auth/JWT rotation|rotation]] and [the doc](https://x) for `rs256` __now__ **keys**" }, el);
		expect(el.querySelector(".mnemovault-search-snippet")!.textContent).toBe("Keys\nsee rotation and the doc for rs256 now keys");
	});

	it("explains an offline daemon in the empty state", async () => {
		const search = vi.fn(async (): Promise<SearchResponse> => {
			throw new BridgeOfflineError("refused", "x");
		});
		const modal = new MemorySearchModal(new App() as never, { client: { search }, timers: nodeTimers(), offlineText: () => "The daemon is not running.", open: vi.fn(), debounceMs: 5 });
		expect(await modal.getSuggestions("jwt")).toEqual([]);
		expect(modal.emptyStateText).toBe("The daemon is not running.");
		expect(await modal.getSuggestions("  ")).toEqual([]);
	});
});
