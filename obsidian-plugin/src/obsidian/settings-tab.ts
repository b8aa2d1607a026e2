/**
 * Settings tab. One list of rows (core/settings) drives both Obsidian 1.13's
 * declarative settings (getSettingDefinitions, searchable) and the display()
 * fallback for older versions. General settings first, no top-level heading.
 */
import {
	PluginSettingTab,
	Setting,
	type App,
	type Plugin,
	type SettingDefinition,
	type SettingDefinitionItem,
} from "obsidian";
import {
	BRIDGE_HEADING,
	SETTING_ROWS,
	withSetting,
	type MnemovaultSettings,
	type SettingKey,
	type SettingRow,
} from "../core/settings";
import type { Timers } from "../core/timers";
import { windowTimers } from "./adapters";

export interface SettingsHost {
	readonly settings: MnemovaultSettings;
	updateSettings(next: MnemovaultSettings): Promise<void>;
}

/** Settings typed into are saved this long after the typing stops: one save, one reconnect. */
export const SAVE_DELAY_MS = 800;

/** The token is a secret: its field is masked. */
const MASKED: SettingKey[] = ["bridgeToken"];

export class MnemovaultSettingTab extends PluginSettingTab {
	private pending: Partial<Record<SettingKey, unknown>> = {};
	private timer: unknown = null;

	constructor(
		app: App,
		plugin: Plugin,
		private readonly host: SettingsHost,
		private readonly timers: Timers = windowTimers(),
		private readonly delayMs = SAVE_DELAY_MS,
	) {
		super(app, plugin);
	}

	/**
	 * The 1.13 declarative shape of one row. A masked field, and one with a rule to explain
	 * when broken, is drawn by hand: the declarative control has no mask and no inline message.
	 */
	private definition(row: SettingRow): SettingDefinition {
		const c = row.control;
		if (MASKED.includes(c.key) || (c.type !== "toggle" && c.validate)) return { name: row.name, desc: row.desc, render: (setting) => this.fill(setting, row) };
		return { name: row.name, desc: row.desc, control: { ...row.control } };
	}

	override getSettingDefinitions(): SettingDefinitionItem[] {
		const general = SETTING_ROWS.filter((r) => r.group === "general").map((r) => this.definition(r));
		const bridge = SETTING_ROWS.filter((r) => r.group === "bridge").map((r) => this.definition(r));
		return [...general, { type: "group", heading: BRIDGE_HEADING, items: bridge }];
	}

	override getControlValue(key: string): unknown {
		const k = key as SettingKey;
		return k in this.pending ? this.pending[k] : this.host.settings[k];
	}

	/** A toggle is saved at once; typed values once the typing stops (or the tab closes). */
	override async setControlValue(key: string, value: unknown): Promise<void> {
		this.pending = { ...this.pending, [key]: value };
		if (this.timer !== null) this.timers.clearTimeout(this.timer);
		this.timer = null;
		const row = SETTING_ROWS.find((r) => r.control.key === key);
		if (row?.control.type === "toggle") return this.flush();
		this.timer = this.timers.setTimeout(() => void this.flush(), this.delayMs);
	}

	/** Saves what is pending, in one update (one save, one reconnect). */
	async flush(): Promise<void> {
		if (this.timer !== null) this.timers.clearTimeout(this.timer);
		this.timer = null;
		const pending = this.pending;
		this.pending = {};
		const keys = Object.keys(pending) as SettingKey[];
		if (!keys.length) return;
		let next = this.host.settings;
		for (const key of keys) next = withSetting(next, key, pending[key]);
		await this.host.updateSettings(next);
	}

	override hide(): void {
		void this.flush();
	}

	private addRow(containerEl: HTMLElement, row: SettingRow): void {
		this.fill(new Setting(containerEl).setName(row.name).setDesc(row.desc), row);
	}

	private fill(setting: Setting, row: SettingRow): void {
		const c = row.control;
		const current = this.getControlValue(c.key);
		if (c.type === "toggle") {
			setting.addToggle((t) =>
				t.setValue(current === true).onChange((v) => void this.setControlValue(c.key, v)),
			);
			return;
		}
		setting.addText((t) => {
			const shown = typeof current === "string" || typeof current === "number" ? current : c.defaultValue;
			t.setPlaceholder(c.placeholder).setValue(String(shown));
			if (c.type === "number") t.inputEl.type = "number";
			if (MASKED.includes(c.key)) {
				t.inputEl.type = "password";
				t.inputEl.autocomplete = "off";
			}
			// what is wrong, said under the setting itself (not only in a tooltip), while it is wrong
			const message = setting.descEl.createDiv({ cls: "mnemovault-setting-error mnemovault-hidden", attr: { role: "alert" } });
			t.onChange((raw) => {
				const value = c.type === "number" ? (raw.trim() === "" ? Number.NaN : Number(raw)) : raw;
				const problem = c.type === "number" ? c.validate?.(value as number) : c.validate?.(value as string);
				t.inputEl.toggleClass("mnemovault-invalid", Boolean(problem));
				t.inputEl.setAttr("aria-invalid", problem ? "true" : "false");
				message.setText(problem || "");
				message.toggleClass("mnemovault-hidden", !problem);
				if (problem) t.inputEl.setAttr("title", problem);
				else {
					t.inputEl.removeAttribute("title");
					void this.setControlValue(c.key, value);
				}
			});
		});
	}

	/** Fallback for Obsidian before 1.13, which has no declarative settings. */
	override display(): void {
		const { containerEl } = this;
		containerEl.empty();
		for (const row of SETTING_ROWS.filter((r) => r.group === "general")) this.addRow(containerEl, row);
		new Setting(containerEl).setName(BRIDGE_HEADING).setHeading();
		containerEl.createDiv({
			cls: "setting-item-description mnemovault-settings-note",
			text: "The plugin finds the daemon by itself, through the file the daemon writes when it starts. Fill these in only to connect somewhere else on this computer.",
		});
		for (const row of SETTING_ROWS.filter((r) => r.group === "bridge")) this.addRow(containerEl, row);
	}
}
