/** The banner over a superseded note: it no longer holds; a link opens the note that does. */

export const BANNER_CLASS = "mnemovault-superseded-banner";

/** The successor's name as a person reads it: the file name without folder and `.md`. */
export function noteName(path: string): string {
	return (path.split("/").pop() ?? path).replace(/\.md$/i, "");
}

/** Puts the banner first in `parent` (replacing an earlier one); returns it. */
export function renderSupersededBanner(parent: HTMLElement, successor: string | null, open: (path: string) => void): HTMLElement {
	removeSupersededBanner(parent);
	const banner = createDiv({ cls: BANNER_CLASS });
	banner.setAttr("role", "note");
	banner.createSpan({ cls: "mnemovault-superseded-label", text: "Superseded" });
	if (successor) {
		banner.createSpan({ text: " This memory no longer holds; see " });
		const link = banner.createEl("a", { cls: "mnemovault-superseded-link", text: noteName(successor), href: "#" });
		link.setAttr("aria-label", successor);
		link.addEventListener("click", (event) => {
			event.preventDefault();
			open(successor);
		});
		banner.createSpan({ text: "." });
	} else {
		banner.createSpan({ text: " This memory no longer holds (its successor is not in the index)." });
	}
	parent.prepend(banner);
	return banner;
}

export function removeSupersededBanner(parent: HTMLElement): void {
	for (const old of Array.from(parent.querySelectorAll(`:scope > .${BANNER_CLASS}`))) old.remove();
}
