import { installObsidianDom } from "./mocks/obsidian-dom";

// Time zone is pinned in vitest.config.ts (TZ=UTC); DOM tests run under happy-dom.
if (typeof document !== "undefined") installObsidianDom(document);
