// @vitest-environment happy-dom
/**
 * "Include archive" in the search modal, against the real daemon: `include_archived=true`
 * (and `scope=archive`) return archived memories with their `status`, `created`,
 * `last_used` and `tags`, which the modal shows as a badge and dates. This is the daemon's
 * side of the contract; it passes once the daemon's search has `include_archived`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderSearchItem } from "../../src/ui/search-item";
import { startRealDaemon, type RealDaemon } from "./real-daemon";

const LONG = 90_000;
let d: RealDaemon;

beforeAll(async () => {
	d = await startRealDaemon({
		prepare: (_python, vault) => {
			mkdirSync(join(vault, "STM"), { recursive: true });
			const fm = "id: {id}\ncreated: 2026-10-01T08:00:00Z\nlast_used: 2026-11-17T09:30:00Z\nuse_count: 1\nstrength: 1.0\nstatus: active\ntags: [network]";
			writeFileSync(join(vault, "STM", "Lighthouse VPN gateway.md"), `---\n${fm.replace("{id}", "a1")}\n---\nThe lighthouse VPN gateway listens on port 1194.\n`);
			writeFileSync(join(vault, "STM", "Lighthouse wifi.md"), `---\n${fm.replace("{id}", "b2")}\n---\nThe lighthouse wifi is for guests.\n`);
		},
	});
	await d.client.archive("STM/Lighthouse VPN gateway.md");
}, LONG);

afterAll(async () => {
	await d?.stop();
}, LONG);

describe("search with the archive, from the real daemon", { timeout: LONG }, () => {
	it("without include_archived, archived memories are not found", async () => {
		const r = await d.client.search("lighthouse", 10, "all");
		expect(r.results.map((x) => x.path)).toEqual(["STM/Lighthouse wifi.md"]);
	});

	it("with include_archived, the archived memory comes with its status, dates and tags", async () => {
		const r = await d.client.search("lighthouse", 10, "all", true);
		const hit = r.results.find((x) => x.path === "Archive/Lighthouse VPN gateway.md");
		expect(hit).toBeDefined();
		expect(hit!.status).toBe("archived");
		expect(Date.parse(hit!.created!)).toBe(Date.parse("2026-10-01T08:00:00Z"));
		expect(Date.parse(hit!.last_used!)).toBe(Date.parse("2026-11-17T09:30:00Z"));
		expect(hit!.tags).toEqual(["network"]);
		const el = createDiv();
		renderSearchItem(el, hit!);
		expect(el.querySelector(".mnemovault-search-kind")!.textContent).toBe("archived");
		expect(el.querySelector(".mnemovault-search-path")!.textContent).toContain("created 2026-10-01 · last used 2026-11-17");
	});

	it("scope=archive finds only archived memories", async () => {
		const r = await d.client.search("lighthouse", 10, "archive", true);
		expect(r.results.map((x) => [x.path, x.status])).toEqual([["Archive/Lighthouse VPN gateway.md", "archived"]]);
	});
});
