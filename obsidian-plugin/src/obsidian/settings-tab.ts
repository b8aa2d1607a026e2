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

export interface SettingsHost {
	readonly settings: MnemovaultSettings;
	updateSettings(next: MnemovaultSettings): Promise<void>;
}

/** The 1.13 declarative shape of one row. */
function definition(row: SettingRow): SettingDefinition {
	return { name: row.name, desc: row.desc, control: { ...row.control } };
}

export class MnemovaultSettingTab extends PluginSettingTab {
	constructor(
		app: App,
		plugin: Plugin,
		private readonly host: SettingsHost,
	) {
		super(app, plugin);
	}

	override getSettingDefinitions(): SettingDefinitionItem[] {
		const general = SETTING_ROWS.filter((r) => r.group === "general").map(definition);
		const bridge = SETTING_ROWS.filter((r) => r.group === "bridge").map(definition);
		return [...general, { type: "group", heading: BRIDGE_HEADING, items: bridge }];
	}

	override getControlValue(key: string): unknown {
		return this.host.settings[key as SettingKey];
	}

	override async setControlValue(key: string, value: unknown): Promise<void> {
		await this.host.updateSettings(withSetting(this.host.settings, key as SettingKey, value));
	}

	private addRow(containerEl: HTMLElement, row: SettingRow): void {
		const setting = new Setting(containerEl).setName(row.name).setDesc(row.desc);
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
			t.onChange((raw) => {
				const value = c.type === "number" ? Number(raw) : raw;
				const problem = c.type === "number" ? c.validate?.(value as number) : c.validate?.(value as string);
				t.inputEl.toggleClass("mnemovault-invalid", Boolean(problem));
				t.inputEl.setAttr("aria-invalid", problem ? "true" : "false");
				if (problem) t.inputEl.setAttr("title", problem);
				else void this.setControlValue(c.key, value);
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
