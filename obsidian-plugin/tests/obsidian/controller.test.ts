// @vitest-environment happy-dom
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { REVIEW_VIEW_TYPE, type ReviewView } from "../../src/obsidian/review-view";
import { RELATED_VIEW_TYPE, type RelatedView } from "../../src/obsidian/related-view";
import { makeRelated, setup } from "../helpers/controller-setup";
import { error } from "../helpers/fake-daemon";
import { makeMove, makeNote, makeStatus } from "../helpers/fixtures";
import { Menu, TFile, WorkspaceLeaf } from "../mocks/obsidian";
import { waitFor } from "../helpers/wait";

describe("MnemovaultController with a real HTTP daemon", () => {
	it("shows the active note's score and follows score_changed events live", async () => {
		const { controller, daemon, bar } = await setup();
		controller.start();
		await waitFor(() => bar().textContent === "Memory 1.00 · fresh", 3000, "first score");
		await waitFor(() => daemon.streams() === 1, 3000, "event stream");
		// the stream's hello makes the controller re-read the note once; let that land first
		await waitFor(() => daemon.requests.filter((r) => r.path === "/api/note").length >= 2, 3000, "re-read after hello");
		// the daemon's note now holds what the event says; the re-read's answer may still be on
		// its way and land after the event, so the (idempotent) event is sent again until it shows
		daemon.routes.set("GET /api/note", () => ({ body: makeNote({ path: "STM/jwt-rotation.md", score: 0.3, state: "danger" }) }));
		let sentAt = 0;
		await waitFor(() => {
			if (bar().textContent === "Memory 0.30 · danger zone") return true;
			if (Date.now() - sentAt > 200) {
				daemon.send("score_changed", { path: "STM/jwt-rotation.md", id: "x", score: 0.3, state: "danger" });
				sentAt = Date.now();
			}
			return false;
		}, 3000, "live update");
		daemon.send("score_changed", { path: "STM/other.md", id: "y", score: 0.1, state: "danger" });
		await sleep(30);
		expect(bar().textContent).toBe("Memory 0.30 · danger zone");
	});

	it("registers the commands without hotkeys; note commands need a Markdown note", async () => {
		const { controller, app, plugin, command } = await setup();
		controller.start();
		expect(plugin.commands.map((c) => c.id).sort()).toEqual(
			[
				"archive-note",
				"consolidate-note",
				"open-related",
				"open-review-queue",
				"pin-note",
				"promote-all",
				"promote-note",
				"reinforce-note",
				"restore-note",
				"review-memories",
				"run-gc",
				"save-selection",
				"search-memories",
				"show-thread",
				"sync-now",
				"unpin-note",
			].sort(),
		);
		expect(plugin.commands.every((c) => c.hotkeys === undefined)).toBe(true);
		expect(command("reinforce-note").checkCallback!(true)).toBe(true);
		app.workspace.activeFile = new TFile("images/cat.png");
		expect(command("reinforce-note").checkCallback!(true)).toBe(false);
	});

	it("reinforces the active note on command and says how the score moved", async () => {
		const { controller, daemon, notices, command, bar } = await setup();
		controller.start();
		command("reinforce-note").checkCallback!(false);
		await waitFor(() => notices.length === 1, 3000, "notice");
		expect(notices[0]).toBe('Reinforced "JWT key rotation": score 1.00 → 1.52.');
		expect(daemon.requests.find((r) => r.path === "/api/touch")!.body).toEqual({ ref: "STM/jwt-rotation.md", boost: false });
		await waitFor(() => bar().textContent === "Memory 1.52 · fresh", 3000, "new score");
	});

	it("pins and unpins the active note on command; the pin's notice has an Undo that unpins with its prior", async () => {
		const { controller, daemon, notices, actions, command, bar } = await setup();
		const prior = { last_used: "2026-11-01T10:00:00Z", decay_score: 0.23, review_priority: 0.9, review_on: null, archive_on: "2026-12-20" };
		const pinnedNote = makeNote({ path: "STM/jwt-rotation.md", score: 1, state: "pinned", pinned: true });
		daemon.routes.set("POST /api/pin", () => {
			daemon.routes.set("GET /api/note", () => ({ body: pinnedNote })); // what a re-read finds from now on
			return { body: { note: pinnedNote, pinned: true, changed: true, prior } };
		});
		daemon.routes.set("POST /api/unpin", (req) => ({
			body: { note: makeNote({ path: "STM/jwt-rotation.md", score: 0.3, state: "danger" }), pinned: false, changed: !(req.body as { prior?: unknown }).prior },
		}));
		controller.start();
		expect(command("pin-note").checkCallback!(true)).toBe(true);
		command("pin-note").checkCallback!(false);
		await waitFor(() => actions.length === 1, 3000, "pin notice");
		expect(actions[0]).toMatchObject({ message: 'Pinned "JWT key rotation": it keeps its score 1.00 and never comes back for review.', label: "Undo" });
		expect(daemon.requests.find((r) => r.path === "/api/pin")!.body).toEqual({ ref: "STM/jwt-rotation.md" });
		await waitFor(() => bar().textContent === "Memory 1.00 · pinned", 3000, "pinned in the status bar");
		actions[0].run();
		await waitFor(() => daemon.requests.some((r) => r.path === "/api/unpin"), 3000, "undo");
		expect(daemon.requests.find((r) => r.path === "/api/unpin")!.body).toEqual({ ref: "STM/jwt-rotation.md", prior });
		command("unpin-note").checkCallback!(false);
		await waitFor(() => notices.some((n) => n.startsWith("Unpinned")), 3000, "unpin notice");
		expect(daemon.requests.filter((r) => r.path === "/api/unpin").at(-1)!.body).toEqual({ ref: "STM/jwt-rotation.md" });
	});

	it("reinforces on open when the option is on, once per cooldown", async () => {
		const { controller, app, daemon } = await setup({ autoReinforceOnOpen: true });
		controller.start();
		await waitFor(() => daemon.requests.some((r) => r.path === "/api/touch"), 3000, "touch on open");
		app.workspace.trigger("file-open", app.workspace.activeFile);
		await waitFor(() => daemon.requests.filter((r) => r.path === "/api/note").length >= 2, 3000, "second open");
		await sleep(30);
		expect(daemon.requests.filter((r) => r.path === "/api/touch")).toHaveLength(1);
	});

	it("goes offline with one notice and a hint, however many requests fail", async () => {
		const { controller, daemon, notices, bar } = await setup();
		controller.start();
		await waitFor(() => daemon.streams() === 1, 3000, "stream");
		await daemon.close();
		await waitFor(() => bar().textContent === "Mnemovault daemon offline", 3000, "offline status bar");
		await sleep(100);
		const offline = () => notices.filter((n) => n.includes("not running"));
		expect(offline()).toHaveLength(1);
		expect(offline()[0]).toMatch(/mnemovault daemon --vault /);
		// a command run while offline answers the person who ran it, once per command
		for (let i = 0; i < 3; i++) await controller.sync();
		expect(offline()).toHaveLength(4);
		expect(controller.monitor.state.status).toBe("offline");
	});

	it("renders the review view from the daemon's queue", async () => {
		const { controller, plugin } = await setup();
		controller.start();
		const view = plugin.views.get(REVIEW_VIEW_TYPE)!(new WorkspaceLeaf()) as ReviewView;
		await view.onOpen();
		await waitFor(() => view.contentEl.querySelectorAll(".mnemovault-review-row").length === 1, 3000, "rows");
		expect(view.contentEl.querySelector(".mnemovault-review-title")!.textContent).toBe("Fading fact");
		expect(view.contentEl.querySelector("svg.mnemovault-curve")).not.toBeNull();
		expect(view.getDisplayText()).toBe("Memory review");
		await view.onClose();
		view.unload();
	});

	it("review view: `r` on the focused row (the view's scope) is a graded review whose notice has an exact Undo", async () => {
		const { controller, plugin, daemon, actions } = await setup();
		const note = makeNote({ title: "Fading fact", score: 0.25, review_priority: 1, state: "danger" });
		const prior = { last_used: "2026-11-01T10:00:00Z", decay_score: 0.25, review_priority: 1, review_on: null, archive_on: "2026-12-20" };
		const after = { ...prior, last_used: "2026-11-20T09:00:00Z", decay_score: 0.5, review_priority: 0 };
		daemon.routes.set("POST /api/grade", () => ({ body: { note, grade: "remember", old_score: 0.25, new_score: 0.5, prior, after } }));
		daemon.routes.set("POST /api/ungrade", () => ({ body: { note, undone: true } }));
		controller.start();
		const view = plugin.views.get(REVIEW_VIEW_TYPE)!(new WorkspaceLeaf()) as ReviewView;
		document.body.appendChild(view.containerEl);
		await view.onOpen();
		await waitFor(() => view.contentEl.querySelectorAll(".mnemovault-review-row").length === 1, 3000, "rows");
		view.contentEl.querySelector<HTMLElement>(".mnemovault-review-row")!.focus();
		document.activeElement!.dispatchEvent(new KeyboardEvent("keydown", { key: "r", bubbles: true }));
		await waitFor(() => actions.length === 1, 3000, "notice with Undo");
		expect(daemon.requests.find((r) => r.path === "/api/grade")!.body).toEqual({ ref: note.path, grade: "remember" });
		expect(actions[0].message).toBe('Remembered "Fading fact": score 0.25 → 0.50 (a review, not a use).');
		expect(actions[0].label).toBe("Undo");
		actions[0].run();
		await waitFor(() => daemon.requests.some((r) => r.path === "/api/ungrade"), 3000, "undo sent");
		expect(daemon.requests.find((r) => r.path === "/api/ungrade")!.body).toEqual({ ref: note.path, prior, after });
		await view.onClose();
		view.unload();
		view.containerEl.remove();
	});

	it("a slow GC is waited for; a slow quick request says busy; neither goes offline", async () => {
		const { controller, daemon, notices, bar } = await setup({}, 150);
		daemon.routes.set("POST /api/gc", async () => {
			await sleep(500);
			return { body: { candidates: [], archived: [makeMove()], dry_run: false } };
		});
		controller.start();
		await waitFor(() => bar().textContent === "Memory 1.00 · fresh", 3000, "first score");
		expect((await controller.client.gc(false)).archived).toHaveLength(1);
		daemon.routes.set("POST /api/touch", () => "hang");
		await controller.reinforce("STM/jwt-rotation.md");
		expect(notices.at(-1)).toMatch(/busy: no answer within 150 ms/);
		expect(notices.some((n) => n.includes("not running"))).toBe(false);
		expect(controller.monitor.state.status).toBe("online");
		expect(bar().textContent).toBe("Memory 1.00 · fresh");
	});

	it("a wrong token says so, and never asks to start a daemon that runs", async () => {
		const { controller, notices, bar } = await setup({ bridgeToken: "wrong" });
		controller.start();
		await waitFor(() => bar().textContent === "Mnemovault daemon: token refused", 3000, "token label");
		expect(notices).toHaveLength(1);
		expect(notices[0]).toMatch(/running but refused the token/);
		expect(notices[0]).not.toMatch(/not running|Start it/);
	});

	it("an old daemon without the bridge API number is reported incompatible", async () => {
		const { controller, daemon, notices, bar, vault } = await setup();
		daemon.routes.set("GET /api/status", () => ({ body: { ...makeStatus(vault), daemon: { pid: 1, started: "x" } } }));
		controller.start();
		await waitFor(() => bar().textContent === "Mnemovault daemon: incompatible version", 3000, "incompatible label");
		expect(notices.at(-1)).toMatch(/running but incompatible: the daemon speaks bridge API 0, this plugin needs 1/);
		// other requests are not sent to it, and nothing flips the state back to online
		const sent = daemon.requests.length;
		await controller.reinforce("STM/jwt-rotation.md");
		await sleep(100);
		expect(daemon.requests.slice(sent).filter((r) => r.path !== "/api/status")).toEqual([]);
		expect(controller.monitor.state).toMatchObject({ status: "offline", reason: "incompatible" });
		expect(notices.some((n) => n.startsWith("Connected"))).toBe(false);
	});

	it("shows background errors and quarantined files once; resync re-reads everything", async () => {
		const { controller, daemon, notices, bar, vault } = await setup();
		const status = {
			...makeStatus(vault),
			quarantined: [{ file: "STM/huge.md", cause: "larger than 1 MB", action: "left in place, not indexed" }],
			background: { last_run: null, last_error: null },
		};
		daemon.routes.set("GET /api/status", () => ({ body: status }));
		controller.start();
		await waitFor(() => notices.some((n) => n.includes("STM/huge.md")), 3000, "quarantine notice");
		expect(notices).toContain("mnemovault set aside STM/huge.md: larger than 1 MB (left in place, not indexed).");
		const reviews = () => daemon.requests.filter((r) => r.path === "/api/review").length;
		const before = reviews();
		daemon.send("resync", { dropped: 12 });
		await waitFor(() => reviews() > before, 3000, "refresh after resync");
		expect(notices.filter((n) => n.includes("STM/huge.md"))).toHaveLength(1);
		daemon.send("background_error", { at: "2026-11-22T12:00:00Z", task: "sweep", message: "disk full" });
		await waitFor(() => bar().textContent === "Mnemovault daemon: background error", 3000, "warning");
		expect(notices.at(-1)).toBe("mnemovault background sweep failed: disk full");
	});

	it("offers each note command only where it applies, from the daemon's answer or the path", async () => {
		const { controller, app, command, bar, daemon } = await setup();
		controller.start();
		await waitFor(() => bar().textContent === "Memory 1.00 · fresh", 3000, "first score");
		const offered = () =>
			["reinforce-note", "promote-note", "archive-note", "restore-note"].filter((id) => command(id).checkCallback!(true));
		expect(offered()).toEqual(["reinforce-note", "promote-note", "archive-note"]);
		// a person's note, as the daemon says
		daemon.routes.set("GET /api/note", () => ({ body: makeNote({ path: "Projects/plan.md", kind: "note", state: "note" }) }));
		app.workspace.activeFile = new TFile("Projects/plan.md");
		app.workspace.trigger("file-open", app.workspace.activeFile);
		expect(offered()).toEqual([]);
		app.workspace.activeFile = new TFile("LTM/kept.md");
		expect(offered()).toEqual(["reinforce-note"]);
		app.workspace.activeFile = new TFile("Archive/old.md");
		expect(offered()).toEqual(["restore-note"]);
	});

	it("archive: the open note reopens at its new path; Undo on the notice restores it, and it follows back", async () => {
		const { controller, app, command, actions, daemon, notices, bar } = await setup();
		const move = makeMove({ from: "STM/jwt-rotation.md", to: "Archive/jwt-rotation.md" });
		daemon.routes.set("POST /api/archive", () => ({ body: { archived: [move] } }));
		daemon.routes.set("POST /api/restore", () => ({ body: { restored: [{ ...move, from: move.to, to: move.from }] } }));
		controller.start();
		await waitFor(() => bar().textContent === "Memory 1.00 · fresh", 3000, "first score");
		command("archive-note").checkCallback!(false);
		await waitFor(() => actions.length === 1, 3000, "archive notice");
		expect(actions[0]).toMatchObject({ message: 'Archived "JWT key rotation" to Archive/jwt-rotation.md.', label: "Undo" });
		// Obsidian sees the moved file a moment later; only then is it opened (never created)
		await sleep(250);
		expect(app.workspace.opened).toEqual([]);
		app.vault.files.add("Archive/jwt-rotation.md");
		await waitFor(() => app.workspace.opened.length === 1, 3000, "reopen");
		expect(app.workspace.opened).toEqual(["Archive/jwt-rotation.md"]);
		app.workspace.activeFile = new TFile("Archive/jwt-rotation.md");
		app.workspace.trigger("file-open", app.workspace.activeFile);
		actions[0].run();
		await waitFor(() => notices.includes('Restored "JWT key rotation" to STM/jwt-rotation.md.'), 3000, "restore notice");
		expect(daemon.requests.find((r) => r.path === "/api/restore")!.body).toEqual({ ref: "Archive/jwt-rotation.md" });
		app.vault.files.add("STM/jwt-rotation.md");
		await waitFor(() => app.workspace.opened.length === 2, 3000, "reopen after restore");
		expect(app.workspace.opened[1]).toBe("STM/jwt-rotation.md");
	});

	it("related panel: follows the open note, cached per note, click opens", async () => {
		const { controller, app, plugin, daemon, command } = await setup();
		daemon.routes.set("GET /api/related", (req) => ({
			body: {
				items: [makeRelated(`STM/near ${req.query.get("path")}.md`)],
				method: "semantic",
				notice: null,
			},
		}));
		controller.start();
		// the stream's hello drops the cache (events may have been missed before it); let it land
		// before the lists are cached, or a late hello reloads the list this test expects cached
		// (the hello makes the controller re-read the open note: the second /api/note marks it)
		await waitFor(() => daemon.requests.filter((r) => r.path === "/api/note").length >= 2, 3000, "hello handled");
		command("open-related").callback!();
		await waitFor(() => app.workspace.getLeavesOfType(RELATED_VIEW_TYPE).length === 1, 3000, "leaf");
		const view = plugin.views.get(RELATED_VIEW_TYPE)!(new WorkspaceLeaf()) as RelatedView;
		await view.onOpen();
		const title = () => view.contentEl.querySelector(".mnemovault-related-title")?.textContent;
		await waitFor(() => title() === "near STM/jwt-rotation.md", 3000, "first list");
		const open = (path: string) => {
			app.workspace.activeFile = new TFile(path);
			app.workspace.trigger("file-open", app.workspace.activeFile);
		};
		open("Projects/plan.md");
		await waitFor(() => title() === "near Projects/plan.md", 3000, "second list");
		open("STM/jwt-rotation.md");
		expect(title()).toBe("near STM/jwt-rotation.md"); // from the cache, at once
		expect(daemon.requests.filter((r) => r.path === "/api/related").map((r) => r.query.get("limit"))).toEqual(["15", "15"]);
		view.contentEl.querySelector<HTMLElement>(".mnemovault-related-row")!.click();
		expect(app.workspace.opened.at(-1)).toBe("STM/near STM/jwt-rotation.md.md");
		await view.onClose();
	});

	it("related panel: names its note, leaves out what is not similar enough, previews, opens in a new tab, copies, hides", async () => {
		const { controller, app, plugin, daemon, command, notices } = await setup({ relatedMinSimilarity: 30 });
		const item = (title: string, similarity: number) => ({ ...makeRelated(`STM/${title}.md`), similarity });
		daemon.routes.set("GET /api/related", () => ({
			body: { items: [item("VPN split tunnel", 0.62), item("VPN on the train", 0.41), item("Sourdough", 0.08), item("Coffee grinder", 0.03)], method: "semantic", notice: null },
		}));
		const copied: string[] = [];
		Object.defineProperty(navigator, "clipboard", { value: { writeText: async (t: string) => void copied.push(t) }, configurable: true });
		controller.start();
		expect(plugin.hoverSources.has(RELATED_VIEW_TYPE)).toBe(true);
		command("open-related").callback!();
		const leaf = new WorkspaceLeaf();
		leaf.app = app;
		const view = plugin.views.get(RELATED_VIEW_TYPE)!(leaf) as RelatedView;
		await view.onOpen();
		const titles = () => Array.from(view.contentEl.querySelectorAll(".mnemovault-related-title")).map((e) => e.textContent);
		await waitFor(() => titles().length === 2, 3000, "list");
		expect(titles()).toEqual(["VPN split tunnel", "VPN on the train"]);
		expect(view.contentEl.querySelector(".mnemovault-related-heading")!.textContent).toBe("Related to jwt-rotation");
		expect(view.contentEl.querySelector(".mnemovault-related-left")!.textContent).toBe("2 less than 30% similar not shown.");
		const row = () => view.contentEl.querySelector<HTMLElement>(".mnemovault-related-row")!;
		const hovers: unknown[] = [];
		app.workspace.on("hover-link", (info) => hovers.push(info));
		row().dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
		expect(hovers).toMatchObject([{ source: RELATED_VIEW_TYPE, linktext: "STM/VPN split tunnel.md" }]);
		row().dispatchEvent(new MouseEvent("click", { bubbles: true, ctrlKey: true }));
		expect(app.workspace.openedInNewTab).toEqual(["STM/VPN split tunnel.md"]);
		row().dispatchEvent(new MouseEvent("contextmenu", { bubbles: true, cancelable: true }));
		expect(Menu.shown!.items.map((i) => i.title)).toEqual(["Open in new tab", "Copy link", "Hide from this list"]);
		Menu.shown!.items[1].run!();
		await waitFor(() => notices.includes("Link copied."), 3000, "copied");
		expect(copied).toEqual(["[[STM/VPN split tunnel]]"]);
		Menu.shown!.items[2].run!();
		expect(titles()).toEqual(["VPN on the train"]);
		expect(view.contentEl.querySelector(".mnemovault-related-left")!.textContent).toBe("2 less than 30% similar not shown · 1 hidden. Show hidden");
		view.contentEl.querySelector<HTMLElement>(".mnemovault-related-left a")!.click();
		expect(titles()).toEqual(["VPN split tunnel", "VPN on the train"]);
		await view.onClose();
	});

	it("capture: the selection, or the first paragraph, is saved with the tags asked for; the notice tells the result", async () => {
		const { controller, daemon, notices, asked, command } = await setup();
		const saved = makeNote({ path: "STM/Staging restores.md", title: "Staging restores" });
		daemon.routes.set("POST /api/save", (req) => {
			const args = req.body as { text: string };
			if (args.text.includes("AKIA")) return error(422, "refused", "refused: the text contains a secret (aws key; line 1); secrets are never stored");
			return { body: { saved: true, reinforced: false, note: saved, near_duplicates: [{ path: "STM/Old.md", title: "Old", similarity: 0.97 }] } };
		});
		controller.start();
		const editor = (selection: string, value: string) => ({ getSelection: () => selection, getValue: () => value });
		command("save-selection").editorCallback!(editor("", "---\ntags: [x]\n---\n# Heading\n\nFirst paragraph\nof the note.\n\nSecond."));
		expect(asked[0].preview).toBe("First paragraph\nof the note.");
		asked[0].done(["ops", "staging"]);
		await waitFor(() => notices.length > 0, 3000, "notice");
		expect(daemon.requests.find((r) => r.path === "/api/save")!.body).toEqual({
			text: "First paragraph\nof the note.",
			tags: ["ops", "staging"],
		});
		expect(notices.at(-1)).toBe('Saved as a memory: "Staging restores" in STM/Staging restores.md. It may supersede "Old" (STM/Old.md).');
		command("save-selection").editorCallback!(editor("  key AKIAIOSFODNN7EXAMPLE  ", "whatever"));
		asked[1].done([]);
		await waitFor(() => notices.length === 2, 3000, "refusal");
		expect(notices[1]).toBe("Not saved: refused: the text contains a secret (aws key; line 1); secrets are never stored");
	});

	it("jobs: progress shows in the status bar, the end as one notice", async () => {
		const { controller, daemon, notices, plugin } = await setup();
		controller.start();
		await waitFor(() => daemon.streams() === 1, 3000, "stream");
		const jobItem = plugin.statusBarItems[2];
		const job = { id: "7", kind: "gc", state: "running", done: 40, total: 120, result: null, error: null };
		daemon.send("job", job);
		await waitFor(() => jobItem.textContent === "Archiving forgotten memories 40/120", 3000, "progress");
		expect(controller.monitor.state.status).toBe("online");
		const result = { candidates: [], archived: [makeMove(), makeMove()], dry_run: false };
		daemon.send("job", { ...job, state: "done", done: 120, result });
		daemon.send("job", { ...job, state: "done", done: 120, result });
		await waitFor(() => notices.some((n) => n.startsWith("Archived 2 memories")), 3000, "done notice");
		await sleep(50);
		expect(notices.filter((n) => n.startsWith("Archived 2"))).toHaveLength(1);
		expect(jobItem.textContent).toBe("");
		daemon.send("job", { ...job, id: "8", kind: "sync", state: "failed", error: { code: "error", message: "disk full" } });
		await waitFor(() => notices.includes("mnemovault sync failed: disk full"), 3000, "failure notice");
	});
});
