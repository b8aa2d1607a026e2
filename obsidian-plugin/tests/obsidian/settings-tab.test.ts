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
	// a clock the test moves: the save comes when typing stops, never on a wall-clock wait
	const due = new Map<number, () => void>();
	let next = 0;
	const timers = {
		now: () => 0,
		setTimeout: (fn: () => void) => (due.set(++next, fn), next),
		clearTimeout: (h: unknown) => void due.delete(h as number),
	};
	const typingStops = async () => {
		for (const [h, fn] of [...due]) {
			due.delete(h);
			fn();
		}
		await Promise.resolve();
	};
	const app = new App();
	const tab = new MnemovaultSettingTab(app as never, new Plugin(app) as never, host, timers);
	return { tab, host, typingStops, pending: () => due.size };
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
		expect(names).toEqual(["Reinforce memories when opened", "Curve horizon", "Related memories: minimum similarity", "Related memories: leave out folders", "# Bridge override", "Host", "Port", "Token"]);
		expect(tab.containerEl.querySelector("h1, h2, h3")).toBeNull();
	});

	it("saves valid changes and ignores invalid ones", async () => {
		const { tab, host, typingStops } = setup();
		showFallback(tab);
		const toggle = Setting.all[0].components[0] as unknown as { toggle(): void };
		toggle.toggle();
		await Promise.resolve();
		expect(host.settings.autoReinforceOnOpen).toBe(true);
		const horizon = Setting.all[1].components[0] as unknown as { type(v: string): void; inputEl: HTMLInputElement };
		horizon.type("0");
		expect(horizon.inputEl.classList.contains("mnemovault-invalid")).toBe(true);
		expect(host.settings.curveHorizonDays).toBe(30);
		// said under the setting, not only in a tooltip; gone once the value is right
		const message = () => Setting.all[1].settingEl.querySelector<HTMLElement>(".mnemovault-setting-error")!;
		expect(message().textContent).toBe("Enter a number of days from 1 to 365.");
		expect(message().classList.contains("mnemovault-hidden")).toBe(false);
		horizon.type("14");
		await typingStops();
		expect(host.settings.curveHorizonDays).toBe(14);
		expect(message().classList.contains("mnemovault-hidden")).toBe(true);
	});

	it("offers the same rows to Obsidian 1.13's declarative settings", async () => {
		const { tab, host, typingStops } = setup();
		const defs = tab.getSettingDefinitions() as { name?: string; heading?: string; items?: unknown[] }[];
		expect(defs.map((d) => d.name ?? d.heading)).toEqual(["Reinforce memories when opened", "Curve horizon", "Related memories: minimum similarity", "Related memories: leave out folders", "Bridge override"]);
		expect(defs[4].items).toHaveLength(3);
		await tab.setControlValue("bridgePort", 5123);
		expect(tab.getControlValue("bridgePort")).toBe(5123);
		await typingStops();
		expect(host.saved).toBe(1);
	});

	it("a 17-character token typed key by key: one save after the typing stops, and the field is masked", async () => {
		const { tab, host, typingStops, pending } = setup();
		showFallback(tab);
		const token = Setting.all.find((s) => s.name === "Token")!.components[0] as unknown as {
			type(v: string): void;
			inputEl: HTMLInputElement;
		};
		expect(token.inputEl.type).toBe("password");
		const value = "abcdefghijklmnopq";
		for (let i = 1; i <= value.length; i++) token.type(value.slice(0, i));
		expect(host.saved).toBe(0);
		expect(pending()).toBe(1); // one timer, restarted by every key
		await typingStops();
		expect(host.saved).toBe(1);
		expect(host.settings.bridgeToken).toBe(value);
	});

	it("closing the settings saves what was typed at once", async () => {
		const { tab, host } = setup();
		showFallback(tab);
		const port = Setting.all.find((s) => s.name === "Port")!.components[0] as unknown as { type(v: string): void };
		port.type("5123");
		tab.hide();
		await Promise.resolve();
		expect(host.saved).toBe(1);
		expect(host.settings.bridgePort).toBe(5123);
	});

	it("the 1.13 definitions draw the token masked too", () => {
		const { tab } = setup();
		const defs = tab.getSettingDefinitions() as { heading?: string; items?: { name: string; render?: (s: Setting) => void; control?: unknown }[] }[];
		const token = defs[4].items!.find((i) => i.name === "Token")!;
		expect(token.control).toBeUndefined();
		const el = createDiv();
		const setting = new Setting(el);
		token.render!(setting);
		expect((setting.components[0] as unknown as { inputEl: HTMLInputElement }).inputEl.type).toBe("password");
	});
});
