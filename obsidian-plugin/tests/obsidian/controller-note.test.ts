// @vitest-environment happy-dom
/** The open note: the daemon told which note is being edited; a superseded note's banner and status. */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { EDITING_HEARTBEAT_MS } from "../../src/core/editing";
import type { Timers } from "../../src/core/timers";
import { nodeTimers } from "../../src/platform/node-env";
import { setup } from "../helpers/controller-setup";
import { error } from "../helpers/fake-daemon";
import { makeNote } from "../helpers/fixtures";
import { MarkdownView, Modal, TFile, WorkspaceLeaf } from "../mocks/obsidian";
import { waitFor } from "../helpers/wait";

/** Real timers with a clock the test can move forward. */
function skewedTimers(): { timers: Timers; skip: (ms: number) => void } {
	const base = nodeTimers();
	let skew = 0;
	return { timers: { ...base, now: () => base.now() + skew }, skip: (ms) => (skew += ms) };
}

describe("the daemon is told which note is open", () => {
	it("on every change of the open note, null for none, a throttled heartbeat while typing, null on unload", async () => {
		const { timers, skip } = skewedTimers();
		const { controller, daemon, app, notices } = await setup({}, undefined, timers);
		daemon.routes.set("POST /api/editing", (req) => ({ body: { ...(req.body as object), hold_seconds: 60 } }));
		const sent = () => daemon.requests.filter((r) => r.path === "/api/editing").map((r) => (r.body as { path: unknown }).path);
		const open = (path: string | null) => {
			app.workspace.activeFile = path ? new TFile(path) : null;
			app.workspace.trigger("file-open", app.workspace.activeFile);
		};
		const type = (path: string) => app.workspace.trigger("editor-change", {}, { file: new TFile(path) });
		controller.start();
		await waitFor(() => sent().length === 1, 3000, "the open note at start");
		expect(sent()).toEqual(["STM/jwt-rotation.md"]);
		for (let i = 0; i < 10; i++) type("STM/jwt-rotation.md"); // within the heartbeat: nothing more
		await sleep(50);
		expect(sent()).toHaveLength(1);
		skip(EDITING_HEARTBEAT_MS);
		type("STM/jwt-rotation.md");
		type("STM/jwt-rotation.md");
		await waitFor(() => sent().length === 2, 3000, "heartbeat");
		open("Projects/plan.md");
		open("images/cat.png"); // not a Markdown note: none is being edited
		await waitFor(() => sent().length === 4, 3000, "changes");
		open(null);
		await sleep(50);
		expect(sent()).toEqual(["STM/jwt-rotation.md", "STM/jwt-rotation.md", "Projects/plan.md", null]);
		open("STM/jwt-rotation.md");
		await waitFor(() => sent().length === 5, 3000, "reopened");
		controller.stop();
		await waitFor(() => sent().length === 6, 3000, "unload");
		expect(sent().at(-1)).toBeNull();
		expect(notices).toEqual([]);
	});

	it("failures are silent: a daemon without the endpoint, or none at all, never makes a notice", async () => {
		const { controller, daemon, app, notices } = await setup();
		daemon.routes.set("POST /api/editing", () => error(404, "not_found", "no route /api/editing"));
		controller.start();
		await waitFor(() => daemon.requests.some((r) => r.path === "/api/editing"), 3000, "first call");
		app.workspace.activeFile = new TFile("Projects/plan.md");
		app.workspace.trigger("file-open", app.workspace.activeFile);
		await waitFor(() => daemon.requests.filter((r) => r.path === "/api/editing").length === 2, 3000, "second call");
		await sleep(50);
		expect(notices).toEqual([]);
	});
});

describe("a superseded note", () => {
	it("the status bar says superseded, a banner links to the successor, a click opens it; gone on another note", async () => {
		const { controller, daemon, app, bar } = await setup();
		const old = makeNote({ status: "superseded", superseded_by: "STM/Prefers Go.md", score: 0.8, state: "fresh" });
		daemon.routes.set("GET /api/note", (req) =>
			req.query.get("path") === old.path ? { body: old } : { body: makeNote({ path: req.query.get("path")!, title: "Prefers Go" }) },
		);
		const view = new MarkdownView(new WorkspaceLeaf(), new TFile(old.path));
		const other = new MarkdownView(new WorkspaceLeaf(), new TFile("STM/Prefers Go.md"));
		app.workspace.leaves.push(view.leaf, other.leaf);
		controller.start();
		await waitFor(() => bar().textContent === "Memory superseded", 3000, "status bar");
		expect(bar().getAttribute("aria-label")).toMatch(/^Superseded by STM\/Prefers Go.md\./);
		const banner = () => view.contentEl.querySelector(".mnemovault-superseded-banner");
		expect(banner()).not.toBeNull();
		expect(view.contentEl.firstElementChild).toBe(banner()); // at the top of the note
		expect(other.contentEl.querySelector(".mnemovault-superseded-banner")).toBeNull();
		expect(banner()!.textContent).toBe("Superseded This memory no longer holds; see Prefers Go.");
		// a live score does not hide that the note no longer holds
		daemon.send("score_changed", { path: old.path, id: old.id, score: 0.5, state: "fading" });
		await sleep(50);
		expect(bar().textContent).toBe("Memory superseded");
		banner()!.querySelector<HTMLElement>("a.mnemovault-superseded-link")!.click();
		expect(app.workspace.opened.at(-1)).toBe("STM/Prefers Go.md");
		app.workspace.activeFile = new TFile("STM/Prefers Go.md");
		app.workspace.trigger("file-open", app.workspace.activeFile);
		await waitFor(() => bar().textContent === "Memory 1.00 · fresh", 3000, "successor's score");
		expect(banner()).toBeNull();
		expect(document.querySelectorAll(".mnemovault-superseded-banner")).toHaveLength(0);
	});

	it("the plugin unloads: the banner leaves the open note, and an open review flow closes", async () => {
		const { controller, daemon, app, bar } = await setup();
		const old = makeNote({ status: "superseded", superseded_by: "STM/Prefers Go.md", score: 0.8, state: "fresh" });
		daemon.routes.set("GET /api/note", () => ({ body: old }));
		const view = new MarkdownView(new WorkspaceLeaf(), new TFile(old.path));
		app.workspace.leaves.push(view.leaf);
		controller.start();
		await waitFor(() => bar().textContent === "Memory superseded", 3000, "status bar");
		expect(view.contentEl.querySelector(".mnemovault-superseded-banner")).not.toBeNull();
		controller.reviewFlow();
		const modal = Modal.opened.at(-1)!;
		expect(modal.isOpen).toBe(true);
		controller.stop();
		expect(view.contentEl.querySelector(".mnemovault-superseded-banner")).toBeNull();
		expect(modal.isOpen).toBe(false);
		expect(document.querySelectorAll("[class^=mnemovault], [class*=' mnemovault']")).toHaveLength(0);
	});

	it("reinforce-on-open leaves a superseded note alone", async () => {
		const { controller, daemon, bar } = await setup({ autoReinforceOnOpen: true });
		daemon.routes.set("GET /api/note", () => ({ body: makeNote({ status: "superseded", superseded_by: null }) }));
		controller.start();
		await waitFor(() => bar().textContent === "Memory superseded", 3000, "status bar");
		await sleep(50);
		expect(daemon.requests.some((r) => r.path === "/api/touch")).toBe(false);
	});
});
