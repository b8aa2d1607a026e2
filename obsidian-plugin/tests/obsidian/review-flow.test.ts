// @vitest-environment happy-dom
/**
 * The review flow in the controller, over real HTTP: keys through the modal's scope with the
 * focus anywhere, the focus on the next card after every action, only confirmed actions
 * counted, exact Undo, and an honest offline / refused-token state.
 */
import { describe, expect, it } from "vitest";
import type { Note } from "../../src/core/types";
import { setup } from "../helpers/controller-setup";
import { error, startFakeDaemon, type FakeDaemon } from "../helpers/fake-daemon";
import { makeMove, makeNote, makeStatus } from "../helpers/fixtures";
import { waitFor } from "../helpers/wait";
import { Modal } from "../mocks/obsidian";

const PRIOR = { last_used: "2026-11-01T10:00:00Z", decay_score: 0.23, review_priority: 0.9, review_on: null, archive_on: "2026-12-20" };
const AFTER = { ...PRIOR, last_used: "2026-11-20T09:00:00Z", decay_score: 0.5, review_priority: 0 };

function note(name: string, priority: number): Note {
	return makeNote({ path: `STM/${name}.md`, title: name, score: 0.25, state: "danger", review_priority: priority });
}

/** Routes of a daemon that holds `queue` and answers grade/archive/restore/undo as the real one does. */
function serve(daemon: FakeDaemon, vault: string, state: { queue: Note[]; archived: Map<string, Note> }) {
	daemon.routes.set("GET /api/status", () => ({ body: makeStatus(vault) }));
	daemon.routes.set("GET /api/review", () => ({ body: { items: state.queue } }));
	daemon.routes.set("POST /api/grade", (req) => {
		const { ref, grade } = req.body as { ref: string; grade: string };
		const n = state.queue.find((q) => q.path === ref)!;
		state.queue = state.queue.filter((q) => q.path !== ref);
		return { body: { note: n, grade, old_score: 0.25, new_score: grade === "remember" ? 0.5 : 0.1485, prior: PRIOR, after: AFTER } };
	});
	daemon.routes.set("POST /api/archive", (req) => {
		const ref = (req.body as { ref: string }).ref;
		const n = state.queue.find((q) => q.path === ref)!;
		state.queue = state.queue.filter((q) => q.path !== ref);
		const to = ref.replace("STM/", "Archive/");
		state.archived.set(to, n);
		return { body: { archived: [{ ...makeMove({ from: ref, to, title: n.title }), prior: { ...PRIOR, status: "active" } }] } };
	});
	daemon.routes.set("POST /api/restore", (req) => {
		const ref = (req.body as { ref: string }).ref;
		const n = state.archived.get(ref)!;
		state.queue = [n, ...state.queue];
		return { body: { restored: [makeMove({ from: ref, to: n.path, title: n.title })] } };
	});
}

async function openFlow(names: string[]) {
	const t = await setup();
	const state = { queue: names.map((n, i) => note(n, 1 - i / 10)), archived: new Map<string, Note>() };
	serve(t.daemon, t.vault, state);
	for (const n of names) t.app.vault.contents.set(`STM/${n}.md`, `${n} text.\n`);
	t.controller.start();
	t.controller.reviewFlow();
	const modal = Modal.opened.at(-1)!;
	const card = modal.contentEl;
	const title = () => card.querySelector(".mnemovault-card-title")?.textContent ?? null;
	// keys arrive wherever the focus is (the app's keymap gives them to the modal's scope)
	const key = (k: string) => document.body.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
	const focused = () => document.activeElement as HTMLElement | null;
	await waitFor(() => title() === names[0], 3000, "first card");
	return { ...t, state, modal, card, title, key, focused };
}

describe("review flow", () => {
	it("keyboard alone: every action moves on with the focus on the next card; Undo is exact", async () => {
		const f = await openFlow(["Alpha", "Beta", "Gamma"]);
		expect(f.focused()!.dataset.action).toBe("remember");
		expect(f.card.contains(f.focused())).toBe(true);
		f.key("r");
		await waitFor(() => f.title() === "Beta", 3000, "Beta");
		expect(f.daemon.requests.find((r) => r.path === "/api/grade")!.body).toEqual({ ref: "STM/Alpha.md", grade: "remember" });
		expect(f.focused()!.dataset.action).toBe("remember");
		expect(f.card.dataset.path).toBe("STM/Beta.md");
		f.key("s");
		await waitFor(() => f.title() === "Gamma", 3000, "Gamma");
		expect(f.focused()!.dataset.action).toBe("remember");
		f.key("a");
		await waitFor(() => f.card.querySelector(".mnemovault-card-done") !== null, 3000, "done");
		expect(f.card.querySelector(".mnemovault-card-done")!.textContent).toBe("Nothing left in this pass; 1 skipped memory is still due.");
		expect(f.card.querySelector(".mnemovault-card-summary")!.textContent).toBe("This pass: 1 remembered, 1 archived, 1 skipped.");
		expect(f.focused()!.dataset.action).toBe("again");
		f.key("u"); // undo the archive: a restore with the values before, not a use
		await waitFor(() => f.title() === "Gamma", 3000, "Gamma back");
		expect(f.daemon.requests.find((r) => r.path === "/api/restore")!.body).toEqual({
			ref: "Archive/Gamma.md",
			prior: { ...PRIOR, status: "active" },
		});
		expect(f.card.querySelector(".mnemovault-card-notice")!.textContent).toBe('Undone: "Gamma" is back as it was.');
		expect(f.card.querySelector(".mnemovault-card-summary")!.textContent).toBe("This pass: 1 remembered, 1 skipped.");
		f.key("f");
		await waitFor(() => f.card.querySelector(".mnemovault-card-done") !== null, 3000, "done again");
		f.key("Enter"); // the skipped one again
		await waitFor(() => f.title() === "Beta", 3000, "Beta again");
		expect(f.focused()!.dataset.action).toBe("remember");
		f.key("Escape");
		expect(f.modal.isOpen).toBe(false);
	});

	it("k pins the memory (out of the queue, counted as pinned); Undo unpins it with pin's prior: exactly as it was", async () => {
		const f = await openFlow(["Alpha", "Beta"]);
		const pinned = new Map<string, Note>();
		f.daemon.routes.set("POST /api/pin", (req) => {
			const ref = (req.body as { ref: string }).ref;
			const n = f.state.queue.find((q) => q.path === ref)!;
			f.state.queue = f.state.queue.filter((q) => q.path !== ref);
			pinned.set(ref, n);
			return { body: { note: { ...n, pinned: true, state: "pinned", score: 1 }, pinned: true, changed: true, prior: PRIOR } };
		});
		f.daemon.routes.set("POST /api/unpin", (req) => {
			const ref = (req.body as { ref: string }).ref;
			const n = pinned.get(ref)!;
			f.state.queue = [n, ...f.state.queue];
			return { body: { note: n, pinned: false, changed: true } };
		});
		const pin = f.card.querySelector<HTMLButtonElement>("[data-action=pin]")!;
		expect(pin.textContent).toBe("Pink");
		f.key("k");
		await waitFor(() => f.title() === "Beta", 3000, "Beta");
		expect(f.daemon.requests.find((r) => r.path === "/api/pin")!.body).toEqual({ ref: "STM/Alpha.md" });
		expect(f.card.querySelector(".mnemovault-card-summary")!.textContent).toBe("This pass: 1 pinned.");
		expect(f.focused()!.dataset.action).toBe("remember");
		f.key("u");
		await waitFor(() => f.title() === "Alpha", 3000, "Alpha back");
		expect(f.daemon.requests.find((r) => r.path === "/api/unpin")!.body).toEqual({ ref: "STM/Alpha.md", prior: PRIOR });
		expect(f.card.querySelector(".mnemovault-card-notice")!.textContent).toBe('Undone: "Alpha" is back as it was.');
		expect(f.card.querySelector(".mnemovault-card-summary")!.textContent).toBe("This pass: nothing yet.");
	});

	it("offline midway: no actionable card, nothing counted, the one command; back when the daemon is", async () => {
		const f = await openFlow(["Alpha", "Beta"]);
		const port = f.daemon.port;
		await f.daemon.close();
		f.key("r");
		await waitFor(() => f.card.querySelector(".mnemovault-card-offline") !== null, 5000, "offline card");
		expect(f.card.querySelector("[data-action=remember]")).toBeNull();
		expect(f.card.textContent).toContain("not running");
		expect(f.card.textContent.split("mnemovault daemon --vault").length).toBe(2); // the command once
		expect(f.card.textContent).toContain("This pass: nothing yet.");
		expect(f.focused()!.dataset.action).toBe("retry");
		f.key("r"); // no card to act on: nothing happens
		f.key("a");
		const back = await startFakeDaemon("secret-token", port);
		serve(back, f.vault, f.state);
		f.key("Enter"); // Try again
		await waitFor(() => f.title() === "Alpha", 5000, "card back");
		expect(back.requests.filter((r) => r.method === "POST")).toEqual([]);
		expect(f.focused()!.dataset.action).toBe("remember");
		f.key("r");
		await waitFor(() => f.title() === "Beta", 3000, "Beta");
		expect(f.card.querySelector(".mnemovault-card-summary")!.textContent).toBe("This pass: 1 remembered.");
		await back.close();
	});

	it("a promotion asks first and leaves no Undo; a failed action names its memory and keeps its card", async () => {
		const f = await openFlow(["Alpha", "Beta", "Gamma"]);
		f.daemon.routes.set("POST /api/promote", (req) => {
			const ref = (req.body as { ref: string }).ref;
			f.state.queue = f.state.queue.filter((q) => q.path !== ref);
			return { body: { promoted: [makeMove({ from: ref, to: ref.replace("STM/", "LTM/") })] } };
		});
		f.key("p");
		await waitFor(() => f.card.querySelector(".mnemovault-card-confirm") !== null, 3000, "asked");
		expect(f.focused()!.dataset.action).toBe("confirm");
		expect(f.daemon.requests.some((r) => r.path === "/api/promote")).toBe(false);
		f.key("n");
		await waitFor(() => f.card.querySelector(".mnemovault-card-confirm") === null, 3000, "cancelled");
		expect(f.title()).toBe("Alpha");
		f.key("p");
		await waitFor(() => f.focused()?.dataset.action === "confirm", 3000, "asked again");
		f.key("Enter"); // presses the focused Promote
		await waitFor(() => f.title() === "Beta", 3000, "Beta");
		expect(f.modal.isOpen).toBe(true);
		expect(f.card.querySelector("[data-action=undo]")).toBeNull(); // nothing Undo could do
		// Beta's grade fails, and the daemon drops it from the queue meanwhile
		f.daemon.routes.set("POST /api/grade", () => {
			f.state.queue = f.state.queue.filter((q) => q.path !== "STM/Beta.md");
			return error(409, "wrong_state", "the note changed on disk");
		});
		f.key("r");
		await waitFor(() => f.card.querySelector(".mnemovault-card-error") !== null, 3000, "error");
		expect(f.card.querySelector(".mnemovault-card-error")!.textContent).toMatch(/^Could not remember "Beta": /);
		await waitFor(() => f.daemon.requests.filter((r) => r.path === "/api/review").length >= 4, 3000, "refreshed");
		expect(f.title()).toBe("Beta"); // still its card, not Gamma's
		f.key("s");
		await waitFor(() => f.title() === "Gamma", 3000, "Gamma");
		expect(f.card.querySelector(".mnemovault-card-error")).toBeNull();
	});

	it("a refused token says so and never says to start the daemon", async () => {
		const f = await openFlow(["Alpha"]);
		const port = f.daemon.port;
		await f.daemon.close();
		const other = await startFakeDaemon("another-token", port); // restarted with a new token: ours is refused
		serve(other, f.vault, f.state);
		f.key("r");
		await waitFor(() => f.card.textContent.includes("refused the token"), 5000, "refused card");
		expect(f.card.textContent).not.toMatch(/not running/);
		expect(f.card.querySelector("[data-action=remember]")).toBeNull();
		expect(other.requests.filter((r) => r.method === "POST")).toEqual([]);
		await other.close();
	});
});
