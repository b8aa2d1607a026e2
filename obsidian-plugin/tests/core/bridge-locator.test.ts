import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configDirCandidates, locateBridge, parseBridgeFile, vaultKey } from "../../src/core/bridge-locator";
import { nodeLocatorEnv } from "../../src/platform/node-env";
import { keyOf, tempDir, writeBridgeFile } from "../helpers/fixtures";

async function setup() {
	const root = await tempDir();
	const configDir = join(root, "config");
	const vault = join(root, "My Vault");
	await mkdir(vault, { recursive: true });
	const env = nodeLocatorEnv({ env: { MNEMOVAULT_CONFIG_DIR: configDir } });
	return { root, configDir, vault, env };
}

describe("configDirCandidates", () => {
	const base = nodeLocatorEnv();
	it("MNEMOVAULT_CONFIG_DIR overrides everything", () => {
		expect(configDirCandidates({ ...base, env: { MNEMOVAULT_CONFIG_DIR: "/x/y" } })).toEqual(["/x/y"]);
	});
	it("Linux: $XDG_CONFIG_HOME or ~/.config", () => {
		const linux = { ...base, platform: "linux", homedir: "/home/me" };
		expect(configDirCandidates({ ...linux, env: {} })).toEqual(["/home/me/.config/mnemovault"]);
		expect(configDirCandidates({ ...linux, env: { XDG_CONFIG_HOME: "/cfg" } })).toEqual(["/cfg/mnemovault"]);
	});
	it("macOS: ~/Library/Application Support", () => {
		expect(configDirCandidates({ ...base, platform: "darwin", homedir: "/Users/me", env: {} })).toEqual([
			"/Users/me/Library/Application Support/mnemovault",
		]);
	});
	it("Windows: platformdirs' %LOCALAPPDATA%\\mnemovault", () => {
		const dirs = configDirCandidates({
			...base,
			platform: "win32",
			homedir: "C:/Users/me",
			env: { APPDATA: "C:/Users/me/AppData/Roaming", LOCALAPPDATA: "C:/Users/me/AppData/Local" },
		});
		expect(dirs).toEqual(["C:/Users/me/AppData/Local/mnemovault"]);
	});
});

describe("vaultKey", () => {
	it("is the first 16 hex digits of sha256 of the path", () => {
		const key = vaultKey("/home/me/Notes", nodeLocatorEnv());
		expect(key).toBe(keyOf("/home/me/Notes"));
		expect(key).toMatch(/^[0-9a-f]{16}$/);
	});
});

describe("parseBridgeFile", () => {
	it("reads the daemon's file and refuses broken ones", () => {
		expect(parseBridgeFile('{"port": 53123, "token": "t", "pid": 1, "vault": "/v", "version": 1}')).toMatchObject({
			port: 53123,
			token: "t",
			pid: 1,
		});
		expect(parseBridgeFile("{")).toBeNull();
		expect(parseBridgeFile('{"port": "x", "token": "t"}')).toBeNull();
		expect(parseBridgeFile('{"port": 70000, "token": "t"}')).toBeNull();
		expect(parseBridgeFile('{"port": 1, "token": ""}')).toBeNull();
	});
});

describe("locateBridge", () => {
	it("finds the keyed file of the vault", async () => {
		const { configDir, vault, env } = await setup();
		await writeBridgeFile(configDir, vault, { port: 4242, token: "tok" });
		const found = await locateBridge(vault, env);
		expect(found).toMatchObject({ found: true, source: "file", endpoint: { host: "127.0.0.1", port: 4242, token: "tok" } });
	});

	it("treats a bridge file version other than 1 as a daemon too new", async () => {
		const { configDir, vault, env } = await setup();
		const file = await writeBridgeFile(configDir, vault, { port: 4244, token: "tok" });
		await writeFile(file, JSON.stringify({ port: 4244, token: "tok", pid: process.pid, vault, version: 2 }));
		expect(await locateBridge(vault, env)).toMatchObject({ found: false, reason: "too_new" });
	});

	it("hashes the symlink-resolved path", async () => {
		const { root, configDir, vault, env } = await setup();
		const link = join(root, "link-to-vault");
		await symlink(vault, link);
		await writeBridgeFile(configDir, vault, { port: 4243, token: "tok" });
		expect(await locateBridge(link, env)).toMatchObject({ found: true, endpoint: { port: 4243 } });
	});

	it("falls back to any bridge file naming the vault", async () => {
		const { configDir, vault, env } = await setup();
		await writeBridgeFile(configDir, "/some/other/vault", { port: 1111, token: "other" }, "aaaa.json");
		await writeBridgeFile(configDir, vault, { port: 2222, token: "mine" }, "zzzz.json");
		expect(await locateBridge(vault, env)).toMatchObject({ found: true, endpoint: { port: 2222, token: "mine" } });
	});

	it("says no_file when the daemon never ran", async () => {
		const { vault, env } = await setup();
		expect(await locateBridge(vault, env)).toMatchObject({ found: false, reason: "no_file" });
	});

	it("treats a file whose pid is gone as stale", async () => {
		const { configDir, vault } = await setup();
		await writeBridgeFile(configDir, vault, { port: 4242, token: "tok", pid: 999999 });
		const env = nodeLocatorEnv({ env: { MNEMOVAULT_CONFIG_DIR: configDir }, pidAlive: (pid) => pid !== 999999 });
		expect(await locateBridge(vault, env)).toMatchObject({ found: false, reason: "stale" });
	});

	it("reports a broken keyed file as invalid", async () => {
		const { configDir, vault, env } = await setup();
		await mkdir(join(configDir, "bridges"), { recursive: true });
		await writeFile(join(configDir, "bridges", `${keyOf(vault)}.json`), "{not json");
		expect(await locateBridge(vault, env)).toMatchObject({ found: false, reason: "invalid" });
	});

	it("uses a full override without reading any file", async () => {
		const { vault, env } = await setup();
		const found = await locateBridge(vault, env, { host: "localhost", port: 9999, token: "manual" });
		expect(found).toMatchObject({ found: true, source: "override", endpoint: { host: "localhost", port: 9999, token: "manual" } });
	});

	it("lets a partial override fill in the file's values, and never leaves loopback", async () => {
		const { configDir, vault, env } = await setup();
		await writeBridgeFile(configDir, vault, { port: 4242, token: "tok" });
		const found = await locateBridge(vault, env, { host: "example.com", port: 5000, token: "" });
		expect(found).toMatchObject({ found: true, endpoint: { host: "127.0.0.1", port: 5000, token: "tok" } });
	});
});
