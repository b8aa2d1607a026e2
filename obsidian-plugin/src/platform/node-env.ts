/**
 * The desktop runtime's side of the bridge locator: Node's fs, os, path and crypto,
 * which desktop Obsidian provides. Tests call it with a temp dir as MNEMOVAULT_CONFIG_DIR.
 */
import { createHash } from "crypto";
import { promises as fs } from "fs";
import { homedir } from "os";
import { join } from "path";
import { clearTimeout as clearNodeTimeout, setTimeout as setNodeTimeout } from "timers";
import type { LocatorEnv } from "../core/bridge-locator";
import type { Timers } from "../core/timers";

export function nodeLocatorEnv(overrides: Partial<LocatorEnv> = {}): LocatorEnv {
	return {
		env: process.env,
		platform: process.platform,
		homedir: homedir(),
		join,
		readFile: (path) => fs.readFile(path, "utf8"),
		readdir: (path) => fs.readdir(path),
		realpath: (path) => fs.realpath(path),
		sha256Hex: (text) => createHash("sha256").update(text, "utf8").digest("hex"),
		pidAlive: (pid) => {
			try {
				process.kill(pid, 0);
				return true;
			} catch (error) {
				return (error as NodeJS.ErrnoException).code === "EPERM";
			}
		},
		...overrides,
	};
}

/** Node's own timers (the app passes window timers instead). */
export function nodeTimers(): Timers {
	return {
		now: () => Date.now(),
		setTimeout: (fn, ms) => setNodeTimeout(fn, ms),
		clearTimeout: (handle) => clearNodeTimeout(handle as ReturnType<typeof setNodeTimeout>),
	};
}
