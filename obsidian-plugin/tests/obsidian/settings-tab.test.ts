// @vitest-environment happy-dom
import { App, Plugin, Setting } from "../mocks/obsidian";
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, type MnemovaultSettings } from "../../src/core/settings";
import { MnemovaultSettingTab } from "../../src/obsidian/settings-tab";

function setup() {
	const host = {
		settings: { ...DEFAULT_SETTINGS },
		saved: 0,
		async updateSettings(next: MnemovaultSettings) {
			this.settings = next;
			this.saved++;
		},
	};
	const app = new App();
	const tab = new MnemovaultSettingTab(app as never, new Plugin(app) as never, host);
	return { tab, host };
}

/** The display() fallback for Obsidian < 1.13 (deprecated in the 1.13 typings, still what older apps call). */
function showFallback(tab: { display(): void }): void {
	tab.display();
}

beforeEach(() => {
	Setting.all = [];
});

describe("settings tab", () => {
	it("puts general settings first without a heading, then one heading for the bridge override", () => {
		const { tab } = setup();
		showFallback(tab);
		const names = Setting.all.map((s) => (s.heading ? `# ${s.name}` : s.name));
		expect(names).toEqual(["Reinforce memories when opened", "Curve horizon", "# Bridge override", "Host", "Port", "Token"]);
		expect(tab.containerEl.querySelector("h1, h2, h3")).toBeNull();
	});

	it("saves valid changes and ignores invalid ones", async () => {
		const { tab, host } = setup();
		showFallback(tab);
		const toggle = Setting.all[0].components[0] as unknown as { toggle(): void };
		toggle.toggle();
		await Promise.resolve();
		expect(host.settings.autoReinforceOnOpen).toBe(true);
		const horizon = Setting.all[1].components[0] as unknown as { type(v: string): void; inputEl: HTMLInputElement };
		horizon.type("0");
		expect(horizon.inputEl.classList.contains("mnemovault-invalid")).toBe(true);
		expect(host.settings.curveHorizonDays).toBe(30);
		horizon.type("14");
		await Promise.resolve();
		expect(host.settings.curveHorizonDays).toBe(14);
	});

	it("offers the same rows to Obsidian 1.13's declarative settings", async () => {
		const { tab, host } = setup();
		const defs = tab.getSettingDefinitions() as { name?: string; heading?: string; items?: unknown[] }[];
		expect(defs.map((d) => d.name ?? d.heading)).toEqual(["Reinforce memories when opened", "Curve horizon", "Bridge override"]);
		expect(defs[2].items).toHaveLength(3);
		await tab.setControlValue("bridgePort", 5123);
		expect(tab.getControlValue("bridgePort")).toBe(5123);
		expect(host.saved).toBe(1);
	});
});
