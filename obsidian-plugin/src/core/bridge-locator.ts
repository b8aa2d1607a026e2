/**
 * Finds the daemon's bridge (port and token) the way docs/bridge-api.md says:
 * `<config dir>/bridges/<key>.json`, key = first 16 hex digits of sha256(realpath(vault)),
 * with `MNEMOVAULT_CONFIG_DIR` overriding `<user config dir>/mnemovault`.
 * Every file system and process access goes through `LocatorEnv`, so tests use a temp dir.
 */

export interface LocatorEnv {
	/** Environment variables (process.env on desktop). */
	env: Record<string, string | undefined>;
	/** "linux", "darwin", "win32", ... */
	platform: string;
	homedir: string;
	/** Joins path segments with the platform's separator. */
	join(...parts: string[]): string;
	readFile(path: string): Promise<string>;
	/** File names (not paths) in a folder; rejects when the folder is missing. */
	readdir(path: string): Promise<string[]>;
	/** Symlink-resolved absolute path. */
	realpath(path: string): Promise<string>;
	sha256Hex(text: string): string;
	/** False only when the process certainly does not exist. */
	pidAlive(pid: number): boolean;
}

export interface BridgeEndpoint {
	host: string;
	port: number;
	token: string;
}

export interface BridgeOverride {
	host: string;
	/** 0 = not overridden */
	port: number;
	/** "" = not overridden */
	token: string;
}

export interface BridgeFile {
	port: number;
	token: string;
	pid: number | null;
	vault: string | null;
	version: number | null;
	started: string | null;
}

export type LocateResult =
	| { found: true; endpoint: BridgeEndpoint; source: "override" | "file"; file: string | null; pid: number | null }
	| { found: false; reason: "no_file" | "stale" | "invalid" | "too_new"; detail: string };

export const DEFAULT_HOST = "127.0.0.1";
/** The bridge file `version` this plugin speaks; any other means "daemon too new". */
export const BRIDGE_VERSION = 1;

/** The folders that may hold `bridges/`, best first. */
export function configDirCandidates(env: LocatorEnv): string[] {
	const override = env.env.MNEMOVAULT_CONFIG_DIR;
	if (override) return [override];
	const home = env.homedir;
	switch (env.platform) {
		case "darwin":
			return [env.join(home, "Library", "Application Support", "mnemovault")];
		case "win32": {
			// platformdirs' user_config_dir("mnemovault", appauthor=False): %LOCALAPPDATA%\mnemovault
			const local = env.env.LOCALAPPDATA ?? env.join(home, "AppData", "Local");
			return [env.join(local, "mnemovault")];
		}
		default: {
			const xdg = env.env.XDG_CONFIG_HOME;
			return [env.join(xdg && xdg.length > 0 ? xdg : env.join(home, ".config"), "mnemovault")];
		}
	}
}

export function vaultKey(resolvedVaultPath: string, env: Pick<LocatorEnv, "sha256Hex">): string {
	return env.sha256Hex(resolvedVaultPath).slice(0, 16);
}

export function parseBridgeFile(text: string): BridgeFile | null {
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch {
		return null;
	}
	if (typeof raw !== "object" || raw === null) return null;
	const o = raw as Record<string, unknown>;
	const port = o.port;
	const token = o.token;
	if (typeof port !== "number" || !Number.isInteger(port) || port <= 0 || port > 65535) return null;
	if (typeof token !== "string" || token.length === 0) return null;
	return {
		port,
		token,
		pid: typeof o.pid === "number" ? o.pid : null,
		vault: typeof o.vault === "string" ? o.vault : null,
		version: typeof o.version === "number" ? o.version : null,
		started: typeof o.started === "string" ? o.started : null,
	};
}

export function isLoopbackHost(host: string): boolean {
	return host === "127.0.0.1" || host === "localhost";
}

async function tryRead(env: LocatorEnv, path: string): Promise<string | null> {
	try {
		return await env.readFile(path);
	} catch {
		return null;
	}
}

/**
 * Locates the bridge of `vaultPath`. An override with both port and token wins;
 * an override with only a host or only one of the two fills in what the file lacks.
 */
export async function locateBridge(
	vaultPath: string,
	env: LocatorEnv,
	override: BridgeOverride | null = null,
): Promise<LocateResult> {
	const host = override && isLoopbackHost(override.host) ? override.host : DEFAULT_HOST;
	if (override && override.port > 0 && override.token) {
		return {
			found: true,
			endpoint: { host, port: override.port, token: override.token },
			source: "override",
			file: null,
			pid: null,
		};
	}
	let resolved = vaultPath;
	try {
		resolved = await env.realpath(vaultPath);
	} catch {
		// keep the path as given
	}
	const key = vaultKey(resolved, env);
	const accepted = new Set([vaultPath, resolved]);
	let invalid: string | null = null;
	let stale: string | null = null;
	let tooNew: number | null = null;
	for (const dir of configDirCandidates(env)) {
		const bridges = env.join(dir, "bridges");
		const files: string[] = [env.join(bridges, `${key}.json`)];
		try {
			for (const name of (await env.readdir(bridges)).sort()) {
				const path = env.join(bridges, name);
				if (name.endsWith(".json") && !files.includes(path)) files.push(path);
			}
		} catch {
			// no bridges folder here
		}
		for (const [i, path] of files.entries()) {
			const text = await tryRead(env, path);
			if (text === null) continue;
			const file = parseBridgeFile(text);
			if (!file) {
				if (i === 0) invalid = path;
				continue;
			}
			// The keyed file is ours by name; any other one must name our vault.
			if (i > 0 && (file.vault === null || !accepted.has(file.vault))) continue;
			if (file.pid !== null && !env.pidAlive(file.pid)) {
				stale = path;
				continue;
			}
			if (file.version !== null && file.version !== BRIDGE_VERSION) {
				tooNew = file.version;
				continue;
			}
			return {
				found: true,
				endpoint: {
					host,
					port: override && override.port > 0 ? override.port : file.port,
					token: override && override.token ? override.token : file.token,
				},
				source: "file",
				file: path,
				pid: file.pid,
			};
		}
	}
	if (tooNew !== null) {
		return {
			found: false,
			reason: "too_new",
			detail: `the daemon speaks bridge version ${tooNew}; this plugin knows version ${BRIDGE_VERSION}`,
		};
	}
	if (stale) return { found: false, reason: "stale", detail: `the daemon that wrote ${stale} is gone` };
	if (invalid) return { found: false, reason: "invalid", detail: `${invalid} is not a valid bridge file` };
	return { found: false, reason: "no_file", detail: `no bridge file for ${resolved}` };
}
