/**
 * `npm run release [-- --out DIR]`: checks the versions agree, builds main.js, and writes
 * the release assets (package.json "files": main.js, manifest.json, styles.css) and
 * `<id>-<version>.zip` holding them into DIR (default: release/). The GitHub workflow
 * uploads exactly these; `mnemovault plugin install` copies the same three files.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { zipFiles } from "./zip.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const readJson = (name) => JSON.parse(readFileSync(join(ROOT, name), "utf8"));

function fail(message) {
	console.error(`release: ${message}`);
	process.exit(1);
}

const args = process.argv.slice(2);
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
