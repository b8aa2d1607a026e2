// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import type { ThreadResponse, ThreadTurn } from "../../src/core/types";
import { NO_CONVERSATION, ThreadModal } from "../../src/obsidian/thread-modal";
import { cutLabel, saidAtLabel } from "../../src/ui/thread-list";
import { setup } from "../helpers/controller-setup";
import { error } from "../helpers/fake-daemon";
import { waitFor } from "../helpers/wait";
import { Modal, TFile } from "../mocks/obsidian";

function turn(n: number, overrides: Partial<ThreadTurn> = {}): ThreadTurn {
	return {
		path: `STM/turn-${n}.md`,
		id: `id-${n}`,
		title: `Turn ${n}`,
		kind: "stm",
		status: "active",
		said_at: `2023-05-08T13:0${n}:00+00:00`,
		text: `said ${n}`,
		this: false,
		...overrides,
	};
}

/** The thread of STM/jwt-rotation.md (the controller's active note) as the daemon answers it. */
function threadOf(ref: string): ThreadResponse {
	return {
		conversation: "conv-7",
		path: ref,
		turns: [
			turn(1),
			turn(2, { kind: "archive", status: "archived", path: "Archive/turn-2.md" }),
			turn(3, { path: ref, this: true, text: "the **JWT** keys rotate <b>every</b> 90 days\nsecond line" }),
			turn(4, { said_at: null }),
		],
		earlier: 4,
		later: 1,
	};
}

const lastThreadModal = () => {
	const modal = Modal.opened.at(-1);
	return modal instanceof ThreadModal ? modal : null;
};

describe("Show conversation thread", () => {
	it("is offered for any Markdown note, not for other files", async () => {
		const { controller, app, command } = await setup();
		controller.start();
		expect(command("show-thread").name).toBe("Show conversation thread");
		expect(command("show-thread").checkCallback!(true)).toBe(true);
		app.workspace.activeFile = new TFile("Projects/plain note.md");
		expect(command("show-thread").checkCallback!(true)).toBe(true);
		app.workspace.activeFile = new TFile("images/cat.png");
		expect(command("show-thread").checkCallback!(true)).toBe(false);
		app.workspace.activeFile = null;
		expect(command("show-thread").checkCallback!(true)).toBe(false);
	});

	it("lists the turns in order, marks the open memory, says what was cut, and opens a clicked turn", async () => {
		const { controller, daemon, app, command } = await setup();
		daemon.routes.set("GET /api/thread", (r) => ({ body: threadOf(r.query.get("ref")!) }));
		controller.start();
		const before = Modal.opened.length;
		command("show-thread").checkCallback!(false);
		await waitFor(() => Modal.opened.length > before && lastThreadModal() !== null, 3000, "thread modal");
		const asked = daemon.requests.filter((r) => r.path === "/api/thread");
		expect(asked.map((r) => [...r.query.entries()])).toEqual([
			[["ref", "STM/jwt-rotation.md"], ["before", "10"], ["after", "10"]],
		]);
		const modal = lastThreadModal()!;
		expect(modal.isOpen).toBe(true);
		expect(modal.titleEl.textContent).toBe("Conversation thread");
		const el = modal.contentEl;
		const rows = Array.from(el.querySelectorAll<HTMLElement>(".mnemovault-thread-turn"));
		expect(rows.map((r) => r.dataset.path)).toEqual(["STM/turn-1.md", "Archive/turn-2.md", "STM/jwt-rotation.md", "STM/turn-4.md"]);
		expect(rows.map((r) => r.querySelector(".mnemovault-thread-time")!.textContent)).toEqual([
			"2023-05-08 13:01",
			"2023-05-08 13:02",
			"2023-05-08 13:03",
			"(no time)",
		]);
		// only the open memory is highlighted
		expect(rows.map((r) => r.classList.contains("is-this"))).toEqual([false, false, true, false]);
		expect(rows[2].getAttribute("aria-current")).toBe("true");
		expect(rows[2].querySelector(".mnemovault-thread-here")!.textContent).toBe("this memory");
		expect(rows[1].querySelector(".mnemovault-thread-flag")!.textContent).toBe("archived");
		// the text is plain: markers and tags are shown as written, never rendered
		const text = rows[2].querySelector(".mnemovault-thread-text")!;
		expect(text.textContent).toBe("the **JWT** keys rotate <b>every</b> 90 days\nsecond line");
		expect(text.querySelector("b")).toBeNull();
		expect(rows[0].querySelector(".mnemovault-thread-text")!.textContent).toBe("said 1");
		// what was left out each side, before the first and after the last turn
		const cuts = Array.from(el.querySelectorAll(".mnemovault-thread-cut")).map((c) => c.textContent);
		expect(cuts).toEqual(["4 earlier turns not shown", "1 later turn not shown"]);
		const children = Array.from(el.children).map((c) => c.className);
		expect(children.indexOf("mnemovault-thread-cut is-earlier")).toBeLessThan(children.indexOf("mnemovault-thread-list"));
		expect(children.indexOf("mnemovault-thread-cut is-later")).toBeGreaterThan(children.indexOf("mnemovault-thread-list"));
		expect(el.querySelector(".mnemovault-thread-conversation")!.textContent).toBe("Conversation conv-7");
		// a click opens that turn's note and closes the modal
		rows[1].click();
		expect(app.workspace.opened).toEqual(["Archive/turn-2.md"]);
		expect(modal.isOpen).toBe(false);
	});

	it("says nothing was cut when the whole conversation fits; Enter opens a turn", async () => {
		const { controller, daemon, app, command } = await setup();
		daemon.routes.set("GET /api/thread", (r) => ({ body: { ...threadOf(r.query.get("ref")!), earlier: 0, later: 0 } }));
		controller.start();
		const before = Modal.opened.length;
		command("show-thread").checkCallback!(false);
		await waitFor(() => Modal.opened.length > before && lastThreadModal() !== null, 3000, "thread modal");
		expect(lastThreadModal()!.contentEl.querySelectorAll(".mnemovault-thread-cut")).toHaveLength(0);
		expect(lastThreadModal()!.contentEl.querySelectorAll(".mnemovault-thread-turn")).toHaveLength(4);
		// the keyboard reaches a turn too: Enter on a focused turn opens it
		const first = lastThreadModal()!.contentEl.querySelector<HTMLElement>(".mnemovault-thread-turn")!;
		expect(first.getAttribute("tabindex")).toBe("0");
		first.dispatchEvent(new KeyboardEvent("keydown", { key: "x" }));
		expect(app.workspace.opened).toEqual([]);
		first.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
		expect(app.workspace.opened).toEqual(["STM/turn-1.md"]);
		expect(lastThreadModal()!.isOpen).toBe(false);
	});

	it("a note said in no conversation gets a clear notice and no modal", async () => {
		const { controller, daemon, notices } = await setup();
		daemon.routes.set("GET /api/thread", (r) =>
			error(409, "wrong_state", `${r.query.get("ref")} was not said in a conversation (it has no \`conversation\` key)`),
		);
		controller.start();
		const before = Modal.opened.length;
		await controller.showThread("STM/jwt-rotation.md");
		expect(notices).toEqual([NO_CONVERSATION]);
		expect(NO_CONVERSATION).toBe("This note was not said in a conversation.");
		expect(Modal.opened.length).toBe(before);
	});

	it("a note the index does not hold, and an offline daemon, get the plugin's usual messages", async () => {
		const { controller, daemon, notices } = await setup();
		daemon.routes.set("GET /api/thread", (r) => error(404, "not_found", `no memory ${r.query.get("ref")}`));
		const before = Modal.opened.length;
		await controller.showThread("Projects/plain.md");
		expect(notices).toEqual(["This note is not in the memory index."]);
		await daemon.close();
		// going offline tells it once (the monitor's notice); each later try answers again
		await controller.showThread("STM/jwt-rotation.md");
		await controller.showThread("STM/jwt-rotation.md");
		expect(notices).toHaveLength(3);
		expect(notices.slice(1)).toEqual([controller.monitor.message(), controller.monitor.message()]);
		expect(notices[2]).toMatch(/not running/);
		expect(Modal.opened.length).toBe(before);
	});
});

describe("thread labels", () => {
	it("keeps the conversation's own clock and counts turns in words", () => {
		expect(saidAtLabel("2023-05-08T23:56:10-07:00")).toBe("2023-05-08 23:56");
		expect(saidAtLabel("2023-05-08")).toBe("2023-05-08");
		expect(saidAtLabel(null)).toBe("");
		expect(saidAtLabel("yesterday")).toBe("yesterday");
		expect(cutLabel(1, "earlier")).toBe("1 earlier turn not shown");
		expect(cutLabel(12, "later")).toBe("12 later turns not shown");
	});
});
