/** Entry point: reads settings and wires the controller. No logic lives here. */
import { Plugin } from "obsidian";
import { normalizeSettings, type MnemovaultSettings } from "./core/settings";
import { requestUrlRequester, vaultBasePath, windowTimers } from "./obsidian/adapters";
import { MnemovaultController } from "./obsidian/controller";
import { MnemovaultSettingTab } from "./obsidian/settings-tab";
import { nodeLocatorEnv } from "./platform/node-env";
import { nodeSseTransport } from "./platform/node-http";

export default class MnemovaultPlugin extends Plugin {
	override settings: MnemovaultSettings = normalizeSettings({});
	private controller: MnemovaultController | null = null;

	override async onload(): Promise<void> {
		this.settings = normalizeSettings(await this.loadData());
		this.controller = new MnemovaultController({
			plugin: this,
			settings: () => this.settings,
			vaultPath: vaultBasePath(this.app),
			http: requestUrlRequester(),
			sse: nodeSseTransport,
			locatorEnv: nodeLocatorEnv(),
			timers: windowTimers(),
		});
		this.controller.start();
		this.addSettingTab(new MnemovaultSettingTab(this.app, this, this));
	}

	override onunload(): void {
		this.controller?.stop();
	}

	async updateSettings(next: MnemovaultSettings): Promise<void> {
		this.settings = next;
		await this.saveData(next);
		this.controller?.settingsChanged();
	}
}
