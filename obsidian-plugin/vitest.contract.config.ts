/** The daemon contract suite alone (needs the repository's Python venv): `npm run test:contract`. */
import { defineConfig } from "vitest/config";
import base from "./vitest.config";

export default defineConfig({
	...base,
	test: { ...base.test, include: ["tests/contract/**/*.test.ts"], exclude: ["node_modules/**"] },
});
