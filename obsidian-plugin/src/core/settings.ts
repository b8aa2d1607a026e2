/** Plugin settings: shape, defaults, validation, and one description of the settings UI. */
import { DEFAULT_HOST, isLoopbackHost, type BridgeOverride } from "./bridge-locator";

export interface MnemovaultSettings {
	bridgeHost: string;
	/** 0: read the port from the daemon's bridge file */
	bridgePort: number;
	/** "": read the token from the daemon's bridge file */
	bridgeToken: string;
	autoReinforceOnOpen: boolean;
	curveHorizonDays: number;
	/** Related memories less similar than this (percent) are left out. */
	relatedMinSimilarity: number;
	/** Folders whose notes are never listed as related (comma-separated vault paths). */
	relatedExcludedFolders: string;
}

export const DEFAULT_SETTINGS: MnemovaultSettings = {
	bridgeHost: DEFAULT_HOST,
	bridgePort: 0,
	bridgeToken: "",
	autoReinforceOnOpen: false,
	curveHorizonDays: 30,
	relatedMinSimilarity: 30,
	relatedExcludedFolders: "",
};

/** The folders of a comma-separated setting, trimmed, without empty ones or slashes at the ends. */
export function folderList(value: string): string[] {
	return value
		.split(",")
		.map((f) => f.trim().replace(/^\/+|\/+$/g, ""))
		.filter((f) => f !== "");
}

/** Why a folder list is not one ("" when it is). */
export function folderListProblem(value: string): string | void {
	const bad = folderList(value).find((f) => f.split("/").some((part) => part === "." || part === ".."));
	if (bad) return `"${bad}" is not a folder of the vault: write paths such as Projects/Old, separated by commas.`;
}

export const MIN_HORIZON_DAYS = 1;
export const MAX_HORIZON_DAYS = 365;

/** Settings from whatever `loadData()` returned (old, partial, hand-edited). */
export function normalizeSettings(raw: unknown): MnemovaultSettings {
	const o = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
	const s: MnemovaultSettings = { ...DEFAULT_SETTINGS };
	if (typeof o.bridgeHost === "string" && isLoopbackHost(o.bridgeHost.trim())) s.bridgeHost = o.bridgeHost.trim();
	const port = Number(o.bridgePort);
	if (Number.isInteger(port) && port > 0 && port <= 65535) s.bridgePort = port;
	if (typeof o.bridgeToken === "string") s.bridgeToken = o.bridgeToken.trim();
	if (typeof o.autoReinforceOnOpen === "boolean") s.autoReinforceOnOpen = o.autoReinforceOnOpen;
	const days = Number(o.curveHorizonDays);
	if (Number.isFinite(days)) {
		s.curveHorizonDays = Math.round(Math.min(MAX_HORIZON_DAYS, Math.max(MIN_HORIZON_DAYS, days)));
	}
	const floor = Number(o.relatedMinSimilarity);
	if (Number.isFinite(floor)) s.relatedMinSimilarity = Math.round(Math.min(100, Math.max(0, floor)));
	if (typeof o.relatedExcludedFolders === "string" && !folderListProblem(o.relatedExcludedFolders)) {
		s.relatedExcludedFolders = folderList(o.relatedExcludedFolders).join(", ");
	}
	return s;
}

export function bridgeOverride(s: MnemovaultSettings): BridgeOverride {
	return { host: s.bridgeHost, port: s.bridgePort, token: s.bridgeToken };
}

export type SettingKey = keyof MnemovaultSettings;

/**
 * One settings row. The shape follows Obsidian 1.13's declarative settings
 * (`SettingDefinitionControl`), so the same list feeds `getSettingDefinitions()`
 * and the `display()` fallback for older versions.
 */
export interface SettingRow {
	name: string;
	desc: string;
	group: "general" | "bridge";
	control:
		| { type: "toggle"; key: SettingKey; defaultValue: boolean }
		| { type: "text"; key: SettingKey; defaultValue: string; placeholder: string; validate?: (v: string) => string | void }
		| {
				type: "number";
				key: SettingKey;
				defaultValue: number;
				placeholder: string;
				min: number;
				max: number;
				step: number;
				validate?: (v: number) => string | void;
		  };
}

export const BRIDGE_HEADING = "Bridge override";

export const SETTING_ROWS: SettingRow[] = [
	{
		name: "Reinforce memories when opened",
		desc: "Opening a short-term memory counts as using it: its use count goes up and its decay restarts. At most once per note every ten minutes.",
		group: "general",
		control: { type: "toggle", key: "autoReinforceOnOpen", defaultValue: false },
	},
	{
		name: "Curve horizon",
		desc: "How many days ahead the review queue projects each memory's score.",
		group: "general",
		control: {
			type: "number",
			key: "curveHorizonDays",
			defaultValue: 30,
			placeholder: "30",
			min: MIN_HORIZON_DAYS,
			max: MAX_HORIZON_DAYS,
			step: 1,
			validate: (v) =>
				Number.isFinite(v) && v >= MIN_HORIZON_DAYS && v <= MAX_HORIZON_DAYS
					? undefined
					: `Enter a number of days from ${MIN_HORIZON_DAYS} to ${MAX_HORIZON_DAYS}.`,
		},
	},
	{
		name: "Related memories: minimum similarity",
		desc: "In percent. Memories less similar than this to the open note are not listed (the panel says how many were left out).",
		group: "general",
		control: {
			type: "number",
			key: "relatedMinSimilarity",
			defaultValue: 30,
			placeholder: "30",
			min: 0,
			max: 100,
			step: 5,
			validate: (v) => (Number.isFinite(v) && v >= 0 && v <= 100 ? undefined : "Enter a percentage from 0 to 100."),
		},
	},
	{
		name: "Related memories: leave out folders",
		desc: "Notes in these folders are never listed as related (comma-separated, e.g. Journal, Projects/Old). The LTM index note never is.",
		group: "general",
		control: { type: "text", key: "relatedExcludedFolders", defaultValue: "", placeholder: "Journal, Projects/Old", validate: folderListProblem },
	},
	{
		name: "Host",
		desc: "Loopback address of the daemon: 127.0.0.1 or localhost.",
		group: "bridge",
		control: {
			type: "text",
			key: "bridgeHost",
			defaultValue: DEFAULT_HOST,
			placeholder: DEFAULT_HOST,
			validate: (v) => (isLoopbackHost(v.trim()) ? undefined : "Only 127.0.0.1 and localhost are allowed."),
		},
	},
	{
		name: "Port",
		desc: "Leave at 0 to read the port from the file the daemon writes when it starts.",
		group: "bridge",
		control: {
			type: "number",
			key: "bridgePort",
			defaultValue: 0,
			placeholder: "0",
			min: 0,
			max: 65535,
			step: 1,
			validate: (v) => (Number.isInteger(v) && v >= 0 && v <= 65535 ? undefined : "Enter a port from 1 to 65535, or 0."),
		},
	},
	{
		name: "Token",
		desc: "Leave empty to read the token from the daemon's file. Only needed when the daemon runs with a bridge file this device cannot read.",
		group: "bridge",
		control: { type: "text", key: "bridgeToken", defaultValue: "", placeholder: "Read from the bridge file" },
	},
];

/** A copy of `settings` with one value changed, normalized. */
export function withSetting(settings: MnemovaultSettings, key: SettingKey, value: unknown): MnemovaultSettings {
	return normalizeSettings({ ...settings, [key]: value });
}
