import { describe, expect, it } from "vitest";
import { ConnectionMonitor, offlineLabel, offlineMessage, startHint } from "../../src/core/connection";

describe("ConnectionMonitor", () => {
	it("notifies once per transition to offline, not once per failure", () => {
		const notes: string[] = [];
		const m = new ConnectionMonitor("/home/me/Notes", (t) => notes.push(t));
		for (let i = 0; i < 20; i++) m.report({ online: false, reason: "refused", detail: "ECONNREFUSED" });
		expect(notes).toEqual(["The mnemovault daemon is not running. Start it with: mnemovault daemon --vault /home/me/Notes"]);
		m.report({ online: false, reason: "no_daemon", detail: "gone" });
		expect(notes).toHaveLength(1);
		m.report({ online: true });
		m.report({ online: true });
		expect(notes).toEqual([expect.any(String), "Connected to the mnemovault daemon."]);
		m.report({ online: false, reason: "unauthorized", detail: "401" });
		expect(notes).toHaveLength(3);
	});

	it("stays quiet when the first state is online", () => {
		const notes: string[] = [];
		const m = new ConnectionMonitor("/v", (t) => notes.push(t));
		m.report({ online: true });
		expect(notes).toEqual([]);
		expect(m.online).toBe(true);
	});

	it("tells listeners about changes only", () => {
		const m = new ConnectionMonitor("/v", () => undefined);
		const seen: string[] = [];
		m.onChange((s) => seen.push(s.status === "offline" ? `offline:${s.reason}` : s.status));
		m.report({ online: true });
		m.report({ online: true });
		m.report({ online: false, reason: "refused", detail: "" });
		m.report({ online: false, reason: "refused", detail: "" });
		m.report({ online: false, reason: "unauthorized", detail: "" });
		expect(seen).toEqual(["online", "offline:refused", "offline:unauthorized"]);
		expect(m.message()).toMatch(/refused the token/);
	});

	it("asks for a plugin update when the daemon is too new", () => {
		const text = offlineMessage({ status: "offline", reason: "too_new", detail: "bridge version 2" }, "/v");
		expect(text).toMatch(/newer than this plugin.*Update the plugin/);
	});

	it("has a distinct message and status bar label per cause", () => {
		const at = (reason: "refused" | "unauthorized" | "incompatible") =>
			({ status: "offline", reason, detail: "the daemon 0.0.9 speaks bridge API 0" }) as const;
		expect(offlineMessage(at("refused"), "/v")).toMatch(/not running/);
		expect(offlineMessage(at("unauthorized"), "/v")).toMatch(/running but refused the token/);
		expect(offlineMessage(at("unauthorized"), "/v")).not.toMatch(/not running|Start it/);
		expect(offlineMessage(at("incompatible"), "/v")).toMatch(/running but incompatible: the daemon 0.0.9/);
		expect([at("refused"), at("unauthorized"), at("incompatible")].map(offlineLabel)).toEqual([
			"Mnemovault daemon offline",
			"Mnemovault daemon: token refused",
			"Mnemovault daemon: incompatible version",
		]);
	});

	it("quotes vault paths a shell would split", () => {
		expect(startHint("/home/me/My Notes")).toBe('mnemovault daemon --vault "/home/me/My Notes"');
		expect(startHint("/plain")).toBe("mnemovault daemon --vault /plain");
	});
});
