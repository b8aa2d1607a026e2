// @vitest-environment happy-dom
/** Long operations from the plugin: each one a daemon job, against the fake daemon over HTTP. */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { Job, JobKind } from "../../src/core/types";
import { setup } from "../helpers/controller-setup";
import { error, type FakeDaemon } from "../helpers/fake-daemon";
import { makeMove, makeNote } from "../helpers/fixtures";
import { Modal, TFile } from "../mocks/obsidian";
import { waitFor } from "../helpers/wait";

/** POST /api/jobs answers with a running job (as the daemon does), numbered per start. */
function acceptJobs(daemon: FakeDaemon): Job[] {
	const started: Job[] = [];
	daemon.routes.set("POST /api/jobs", (req) => {
		const body = req.body as { kind: JobKind };
		const job: Job = { id: String(started.length + 1), kind: body.kind, state: "running", done: 0, total: null, result: null, error: null };
		started.push(job);
		return { body: job };
	});
	return started;
}

const jobBodies = (daemon: FakeDaemon) => daemon.requests.filter((r) => r.path === "/api/jobs" && r.method === "POST").map((r) => r.body);

describe("long operations run as daemon jobs", () => {
	it("sync: one quick request starts the job; progress in the status bar; the result as one notice; never a blocking /api/sync", async () => {
		const { controller, daemon, notices, plugin, command } = await setup();
		const started = acceptJobs(daemon);
		controller.start();
		await waitFor(() => daemon.streams() === 1, 3000, "stream");
		command("sync-now").checkCallback!(false);
		await waitFor(() => started.length === 1, 3000, "job started");
		expect(jobBodies(daemon)).toEqual([{ kind: "sync" }]);
		await waitFor(() => notices.includes("Syncing the index in the background…"), 3000, "start notice");
		// while it runs, the command is not offered again
		expect(command("sync-now").checkCallback!(true)).toBe(false);
		const jobItem = plugin.statusBarItems[2];
		daemon.send("job", { ...started[0], done: 200, total: 800 });
		await waitFor(() => jobItem.textContent === "Syncing 200/800", 3000, "progress");
		const result = { added: 3, updated: 1, removed: 0, moved: 0, unchanged: 796, problems: 0 };
		daemon.send("job", { ...started[0], state: "done", done: 800, total: 800, result });
		await waitFor(() => notices.includes("Index synced: 3 added, 1 updated, 0 removed, 0 moved."), 3000, "result");
		expect(jobItem.textContent).toBe("");
		expect(command("sync-now").checkCallback!(true)).toBe(true);
		expect(daemon.requests.some((r) => r.path === "/api/sync")).toBe(false);
	});

	it("promote-all: a job; the open note that was promoted reopens at its new path", async () => {
		const { controller, daemon, notices, command, app } = await setup();
		const started = acceptJobs(daemon);
		controller.start();
		await waitFor(() => daemon.streams() === 1, 3000, "stream");
		await waitFor(() => daemon.requests.filter((r) => r.path === "/api/note").length >= 2, 3000, "open note read");
		expect(command("promote-all").checkCallback!(true)).toBe(true);
		command("promote-all").checkCallback!(false);
		await waitFor(() => started.length === 1, 3000, "job started");
		expect(jobBodies(daemon)).toEqual([{ kind: "promote" }]);
		const move = makeMove({ from: "STM/jwt-rotation.md", to: "LTM/jwt-rotation.md" });
		app.vault.files.add("LTM/jwt-rotation.md");
		daemon.send("promoted", move);
		daemon.send("job", { ...started[0], state: "done", done: 1, total: 1, result: { promoted: [move], dry_run: false } });
		await waitFor(() => notices.includes('Promoted "JWT key rotation" to LTM/jwt-rotation.md.'), 3000, "result");
		await waitFor(() => app.workspace.opened.includes("LTM/jwt-rotation.md"), 3000, "reopened");
	});

	it("consolidate: offered on a short-term memory; finds its cluster, asks, merges as a job, tells the new note", async () => {
		const { controller, daemon, notices, actions, command, app } = await setup();
		const started = acceptJobs(daemon);
		const members = [
			{ path: "STM/jwt-rotation.md", id: "a", title: "JWT key rotation" },
			{ path: "STM/Rotate JWT keys.md", id: "b", title: "Rotate JWT keys" },
		];
		daemon.routes.set("POST /api/rpc", (req) => {
			expect(req.body).toEqual({ op: "cluster", args: {} });
			return { body: { result: [{ id: "c-other", cohesion: 0.9, action: "auto-merge", members: [] }, { id: "c-jwt", cohesion: 0.93, action: "auto-merge", members }] } };
		});
		controller.start();
		await waitFor(() => daemon.streams() === 1, 3000, "stream");
		await waitFor(() => daemon.requests.filter((r) => r.path === "/api/note").length >= 2, 3000, "open note read");
		expect(command("consolidate-note").checkCallback!(true)).toBe(true);
		command("consolidate-note").checkCallback!(false);
		await waitFor(() => actions.length === 1, 3000, "confirmation");
		expect(actions[0].message).toBe(
			'Merge "JWT key rotation" with "Rotate JWT keys" into one memory? The originals go to the archive, linked to it.',
		);
		expect(actions[0].label).toBe("Merge 2");
		expect(started).toEqual([]); // nothing merges before the person says so
		actions[0].run();
		await waitFor(() => started.length === 1, 3000, "job started");
		expect(jobBodies(daemon)).toEqual([{ kind: "consolidate", ids: ["c-jwt"] }]);
		const note = makeNote({ path: "STM/JWT key rotation 2.md", title: "JWT key rotation" });
		const archived = members.map((m) => makeMove({ from: m.path, to: `Archive/${m.path.slice(4)}` }));
		daemon.send("job", { ...started[0], state: "done", done: 2, total: 2, result: { applied: true, note, archived, errors: [] } });
		await waitFor(() => notices.some((n) => n.startsWith("Consolidated")), 3000, "result");
		expect(notices.at(-1)).toBe(
			'Consolidated 2 memories into "JWT key rotation" (STM/JWT key rotation 2.md). The originals are in the archive, linked to it.',
		);
		// not offered on a long-term memory or a person's note
		app.workspace.activeFile = new TFile("LTM/kept.md");
		expect(command("consolidate-note").checkCallback!(true)).toBe(false);
		app.workspace.activeFile = new TFile("Projects/plan.md");
		expect(command("consolidate-note").checkCallback!(true)).toBe(false);
	});

	it("consolidate with nothing close in meaning says so, and starts nothing", async () => {
		const { controller, daemon, notices } = await setup();
		const started = acceptJobs(daemon);
		daemon.routes.set("POST /api/rpc", () => ({ body: { result: [] } }));
		controller.start();
		await controller.consolidate("STM/jwt-rotation.md");
		expect(notices.at(-1)).toMatch(/^No other memory is close enough in meaning to ".*" to merge \(this needs embeddings on/);
		expect(started).toEqual([]);
	});

	it("a job the daemon refuses (one already running) is told as such; a slow start says busy, never offline", async () => {
		const { controller, daemon, notices, bar } = await setup({}, 150);
		daemon.routes.set("POST /api/jobs", () => error(400, "invalid", "a sync job is already running"));
		controller.start();
		await waitFor(() => bar().textContent === "Memory 1.00 · fresh", 3000, "first score");
		await controller.sync();
		expect(notices.at(-1)).toBe("a sync job is already running");
		daemon.routes.set("POST /api/jobs", () => "hang");
		await controller.promoteAll();
		expect(notices.at(-1)).toMatch(/busy: no answer within 150 ms/);
		expect(notices.some((n) => n.includes("not running"))).toBe(false);
		expect(controller.monitor.state.status).toBe("online");
	});

	it("GC from its modal starts a gc job; the end is told once even when the event repeats", async () => {
		const { controller, daemon, notices } = await setup();
		const started = acceptJobs(daemon);
		daemon.routes.set("POST /api/gc", () => ({ body: { candidates: [{ id: "x", title: "Old", path: "STM/old.md", score: 0.01, reason: "forget" }], archived: [], dry_run: true } }));
		controller.start();
		await waitFor(() => daemon.streams() === 1, 3000, "stream");
		controller.openGc();
		const modal = Modal.opened.at(-1)!;
		await waitFor(() => modal.contentEl.querySelector("button.mod-warning") !== null, 3000, "preview");
		modal.contentEl.querySelector<HTMLButtonElement>("button.mod-warning")!.click();
		await waitFor(() => started.length === 1, 3000, "gc job");
		expect(jobBodies(daemon)).toEqual([{ kind: "gc" }]);
		expect(daemon.requests.filter((r) => r.path === "/api/gc").map((r) => r.body)).toEqual([{ dry_run: true }]);
		const done = { ...started[0], state: "done", done: 1, total: 1, result: { candidates: [], archived: [makeMove()], dry_run: false } };
		daemon.send("job", done);
		daemon.send("job", done);
		await waitFor(() => notices.some((n) => n.startsWith("Archived 1 memory")), 3000, "gc result");
		await sleep(50);
		expect(notices.filter((n) => n.startsWith("Archived 1 memory"))).toHaveLength(1);
	});

	it("on connecting, the daemon's running jobs are shown (started elsewhere, or before a reload)", async () => {
		const { controller, daemon, plugin, command } = await setup();
		const running: Job = { id: "4", kind: "sync", state: "running", done: 3, total: 9, result: null, error: null };
		daemon.routes.set("GET /api/jobs", () => ({ body: { jobs: [running] } }));
		controller.start();
		await waitFor(() => plugin.statusBarItems[2].textContent === "Syncing 3/9", 3000, "running job shown");
		expect(command("sync-now").checkCallback!(true)).toBe(false);
		expect(command("promote-all").checkCallback!(true)).toBe(true);
	});
});
