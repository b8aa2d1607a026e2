import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
	resolve: {
		alias: {
			obsidian: fileURLToPath(new URL("./tests/mocks/obsidian.ts", import.meta.url)),
		},
	},
	test: {
		include: ["tests/**/*.test.ts"],
		// The daemon contract suite needs the Python venv: `npm run test:contract`.
		exclude: ["tests/contract/**", "node_modules/**"],
		environment: "node",
		setupFiles: ["tests/setup.ts"],
		testTimeout: 60000, // waits are on conditions (tests/helpers/wait.ts); this only bounds a hang
		env: { TZ: "UTC" },
	},
});
