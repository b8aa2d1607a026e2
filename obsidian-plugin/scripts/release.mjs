/**
 * `npm run release [-- --out DIR]`: sets the plugin's version to the project's, checks the
 * versions agree, builds main.js, and writes the release assets (package.json "files":
 * main.js, manifest.json, styles.css) and `<id>-<version>.zip` holding them into DIR
 * (default: release/). The GitHub workflow uploads exactly these; `mnemovault plugin
 * install` copies the same three files. `--versions` only sets the versions.
 *
 * The one version is `version` in ../pyproject.toml. It goes into package.json,
 * package-lock.json, manifest.json and versions.json (mapped to the manifest's
 * minAppVersion), and manifest.json and versions.json are copied to the repository's root,
 * where BRAT and Obsidian's community directory read them.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { zipFiles } from "./zip.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REPO = resolve(ROOT, "..");
const readJson = (name) => JSON.parse(readFileSync(join(ROOT, name), "utf8"));

function fail(message) {
	console.error(`release: ${message}`);
	process.exit(1);
}

/** `version = "..."` of the [project] table of a pyproject.toml's text; null if none. */
function projectVersion(text) {
	let table = "";
	for (const line of text.split(/\r?\n/)) {
		const head = line.match(/^\s*\[([^[\]]+)\]\s*(#.*)?$/);
		if (head) {
			table = head[1].trim();
			continue;
		}
		const found = table === "project" ? line.match(/^\s*version\s*=\s*"([^"]+)"/) : null;
		if (found) return found[1];
	}
	return null;
}

/** Write `data` as JSON in the indentation `path` already uses (tabs or two spaces); true if it changed. */
function writeJson(path, data) {
	const old = existsSync(path) ? readFileSync(path, "utf8") : "";
	const indent = /^\{\r?\n\t/.test(old) || old === "" ? "\t" : 2;
	const text = `${JSON.stringify(data, null, indent)}\n`;
	if (text === old) return false;
	writeFileSync(path, text);
	return true;
}

/** The project's version into the plugin's files, and manifest.json and versions.json to the repository's root. */
function syncVersions() {
	const pyproject = join(REPO, "pyproject.toml");
	if (!existsSync(pyproject)) return; // the plugin outside its repository: its own files hold the version
	const version = projectVersion(readFileSync(pyproject, "utf8"));
	if (!version) fail(`${pyproject} has no [project] version`);
	const changed = [];
	const pkg = readJson("package.json");
	if (writeJson(join(ROOT, "package.json"), { ...pkg, version })) changed.push("package.json");
	const lock = readJson("package-lock.json");
	lock.version = version;
	if (lock.packages?.[""]) lock.packages[""].version = version;
	if (writeJson(join(ROOT, "package-lock.json"), lock)) changed.push("package-lock.json");
	const manifest = { ...readJson("manifest.json"), version };
	if (writeJson(join(ROOT, "manifest.json"), manifest)) changed.push("manifest.json");
	const versions = { ...readJson("versions.json"), [version]: manifest.minAppVersion };
	if (writeJson(join(ROOT, "versions.json"), versions)) changed.push("versions.json");
	for (const name of ["manifest.json", "versions.json"]) {
		const text = readFileSync(join(ROOT, name), "utf8");
		const top = join(REPO, name);
		if (!existsSync(top) || readFileSync(top, "utf8") !== text) {
			writeFileSync(top, text);
			changed.push(`../${name}`);
		}
	}
	if (changed.length) process.stdout.write(`release: version ${version} written to ${changed.join(", ")}\n`);
}

const args = process.argv.slice(2);
syncVersions();
if (args.includes("--versions")) process.exit(0);
const outIndex = args.indexOf("--out");
const out = resolve(outIndex >= 0 ? args[outIndex + 1] : join(ROOT, "release"));

const pkg = readJson("package.json");
const manifest = readJson("manifest.json");
const versions = readJson("versions.json");
if (manifest.version !== pkg.version) fail(`manifest.json version ${manifest.version} differs from package.json ${pkg.version}`);
if (versions[manifest.version] !== manifest.minAppVersion) {
	fail(`versions.json must map ${manifest.version} to minAppVersion ${manifest.minAppVersion}`);
}
const assets = pkg.files;
if (!Array.isArray(assets) || assets.length === 0) fail('package.json has no "files" (the release assets)');

if (!args.includes("--no-build")) {
	execFileSync(process.execPath, [join(ROOT, "esbuild.config.mjs"), "production"], { cwd: ROOT, stdio: "inherit" });
}

mkdirSync(out, { recursive: true });
const entries = assets.map((name) => {
	copyFileSync(join(ROOT, name), join(out, name));
	return { name: `${manifest.id}/${name}`, data: readFileSync(join(ROOT, name)) };
});
const zipName = `${manifest.id}-${manifest.version}.zip`;
writeFileSync(join(out, zipName), zipFiles(entries));
process.stdout.write(`release: ${[...assets, zipName].map((n) => join(out, n)).join(", ")}\n`);
