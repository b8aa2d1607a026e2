// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { BridgeOfflineError } from "../../src/core/bridge-client";
import { RelatedStore, type RelatedState } from "../../src/core/related-store";
import type { RelatedItem, RelatedResponse } from "../../src/core/types";
import { linkFor, renderRelated } from "../../src/ui/related-list";

const item = (path: string, patch: Partial<RelatedItem> = {}): RelatedItem => ({
	path,
	id: null,
	title: path.replace(/^.*\//, "").replace(/\.md$/, ""),
	score: 0.8,
	state: "fresh",
	similarity: 0.73,
	...patch,
});

function deferred() {
	const calls: { path: string; resolve: (r: RelatedResponse) => void; reject: (e: Error) => void }[] = [];
	const source = (path: string) =>
		new Promise<RelatedResponse>((resolve, reject) => calls.push({ path, resolve, reject }));
	return { calls, source };
}

const answer = (...items: RelatedItem[]): RelatedResponse => ({ items, method: "semantic", notice: null });

describe("RelatedStore", () => {
	it("caches per note, and a late answer for a note left behind is not shown", async () => {
		const { calls, source } = deferred();
		const store = new RelatedStore(source);
		const seen: RelatedState[] = [];
		store.subscribe((s) => seen.push(s));
		store.show("Projects/a.md");
		store.show("Projects/b.md");
		calls[1].resolve(answer(item("STM/for-b.md")));
		await Promise.resolve();
		calls[0].resolve(answer(item("STM/for-a.md")));
		await Promise.resolve();
		expect(store.state).toMatchObject({ status: "ready", path: "Projects/b.md" });
		store.show("Projects/a.md");
		expect(store.state).toMatchObject({ status: "ready", path: "Projects/a.md", answer: { items: [{ path: "STM/for-a.md" }] } });
		expect(store.fetches).toBe(2);
		expect(seen.filter((s) => s.status === "ready").map((s) => (s.status === "ready" ? s.path : ""))).toEqual([
			"Projects/b.md",
			"Projects/a.md",
		]);
	});

	it("an index change drops the cache and reloads the shown note; score events do not", async () => {
		const { calls, source } = deferred();
		const store = new RelatedStore(source);
		store.subscribe(() => undefined);
		store.show("Projects/a.md");
		calls[0].resolve(answer());
		await Promise.resolve();
		store.handleEvent({ type: "score_changed", data: { path: "STM/x.md", id: null, score: 0.1, state: "danger" } });
		expect(calls).toHaveLength(1);
		store.handleEvent({ type: "indexed", data: { path: "STM/new.md", id: null } });
		expect(calls).toHaveLength(2);
		calls[1].reject(new BridgeOfflineError("refused", "ECONNREFUSED"));
		await Promise.resolve();
		await Promise.resolve();
		expect(store.state).toMatchObject({ status: "error", offline: true });
	});
});

describe("related list", () => {
	it("shows similarity, score and state; click opens; drag carries a wikilink; notice shown", () => {
		const el = createDiv();
		const open = vi.fn<(i: RelatedItem) => void>();
		const a = item("STM/Kafka lag alert.md", { similarity: 0.912, score: 0.42, state: "fading" });
		renderRelated(
			el,
			{ status: "ready", path: "Projects/p.md", answer: { items: [a], method: "tags", notice: "Embeddings are off: tags." } },
			"offline",
			{ open },
		);
		expect(el.querySelector(".mnemovault-related-notice")!.textContent).toBe("Embeddings are off: tags.");
		const row = el.querySelector<HTMLElement>(".mnemovault-related-row")!;
		expect(row.querySelector(".mnemovault-related-sim")!.textContent).toBe("91% similar");
		expect(row.querySelector(".mnemovault-related-state")!.textContent).toBe("0.42 · fading");
		row.click();
		expect(open).toHaveBeenCalledWith(a, false);
		const data = new Map<string, string>();
		const drag = new Event("dragstart") as DragEvent;
		Object.defineProperty(drag, "dataTransfer", { value: { setData: (k: string, v: string) => data.set(k, v) } });
		row.dispatchEvent(drag);
		expect(data.get("text/plain")).toBe("[[STM/Kafka lag alert]]");
		expect(linkFor(item("LTM/x.md", { title: "Nice title" }))).toBe("[[LTM/x|Nice title]]");
	});

	it("says the daemon's offline text when it cannot load", () => {
		const el = createDiv();
		renderRelated(el, { status: "error", path: "a.md", message: "x", offline: true }, "The daemon is not running.", { open: vi.fn() });
		expect(el.textContent).toContain("The daemon is not running.");
	});
});
