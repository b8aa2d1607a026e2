import { defineConfig, globalIgnores } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

export default defineConfig([
	globalIgnores(["node_modules/", "main.js", "docs/", "coverage/", "package-lock.json"]),
	...obsidianmd.configs.recommended,
	{
		// The mock implements Obsidian's DOM helpers, so it has to use the plain DOM.
		files: ["tests/mocks/**"],
		rules: { "obsidianmd/prefer-create-el": "off" },
	},
	{
		languageOptions: {
			parserOptions: {
				projectService: {
					allowDefaultProject: ["eslint.config.mjs", "esbuild.config.mjs", "scripts/*.mjs"],
				},
				tsconfigRootDir: import.meta.dirname,
			},
		},
	},
]);
