import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, SETTING_ROWS, bridgeOverride, normalizeSettings, withSetting } from "../../src/core/settings";

describe("settings", () => {
	it("defaults on nothing or garbage", () => {
		expect(normalizeSettings(null)).toEqual(DEFAULT_SETTINGS);
		expect(normalizeSettings({ bridgePort: "lots", curveHorizonDays: "x", autoReinforceOnOpen: "yes" })).toEqual(DEFAULT_SETTINGS);
	});

	it("keeps valid values and clamps the horizon", () => {
		const s = normalizeSettings({ bridgeHost: "localhost", bridgePort: "5000", bridgeToken: " t ", autoReinforceOnOpen: true, curveHorizonDays: 9999, relatedMinSimilarity: 140, relatedExcludedFolders: " /Journal/ ,, Projects/Old" });
		expect(s).toEqual({ bridgeHost: "localhost", bridgePort: 5000, bridgeToken: "t", autoReinforceOnOpen: true, curveHorizonDays: 365, relatedMinSimilarity: 100, relatedExcludedFolders: "Journal, Projects/Old" });
		expect(normalizeSettings({ relatedExcludedFolders: "../elsewhere" }).relatedExcludedFolders).toBe("");
		expect(normalizeSettings({}).relatedMinSimilarity).toBe(30);
		expect(normalizeSettings({ curveHorizonDays: 0 }).curveHorizonDays).toBe(1);
	});

	it("refuses a non-loopback host", () => {
		expect(normalizeSettings({ bridgeHost: "192.168.1.5" }).bridgeHost).toBe("127.0.0.1");
		expect(bridgeOverride(withSetting(DEFAULT_SETTINGS, "bridgePort", 7000))).toEqual({ host: "127.0.0.1", port: 7000, token: "" });
	});

	it("describes every setting once, in sentence case", () => {
		const keys = SETTING_ROWS.map((r) => r.control.key);
		expect(new Set(keys).size).toBe(keys.length);
		expect(keys.sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort());
		for (const row of SETTING_ROWS) {
			expect(row.name[0]).toBe(row.name[0].toUpperCase());
			expect(row.name.slice(1)).toBe(row.name.slice(1).toLowerCase());
		}
	});

	it("validates the horizon and port rows", () => {
		const horizon = SETTING_ROWS.find((r) => r.control.key === "curveHorizonDays")!.control;
		const port = SETTING_ROWS.find((r) => r.control.key === "bridgePort")!.control;
		if (horizon.type !== "number" || port.type !== "number") throw new Error("number rows expected");
		expect(horizon.validate?.(30)).toBeUndefined();
		expect(horizon.validate?.(0)).toMatch(/days/);
		expect(port.validate?.(0)).toBeUndefined();
		expect(port.validate?.(70000)).toMatch(/port/);
	});
});
