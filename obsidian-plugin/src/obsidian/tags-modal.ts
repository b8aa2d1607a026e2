/** Asks for the tags of a memory being saved; Enter or the button saves, Esc cancels. */
import { Modal, Setting, type App } from "obsidian";
import { parseTags } from "../core/capture";

export class TagsModal extends Modal {
	private value = "";

	constructor(
		app: App,
		private readonly preview: string,
		private readonly done: (tags: string[]) => void,
	) {
		super(app);
	}

	override onOpen(): void {
		this.titleEl.setText("Save as memory");
		this.contentEl.createDiv({ cls: "mnemovault-capture-preview", text: this.preview });
		new Setting(this.contentEl)
			.setName("Tags")
			.setDesc("Separated by spaces or commas; optional.")
			.addText((t) => {
				t.setPlaceholder("Ops, staging").onChange((v) => (this.value = v));
				t.inputEl.addEventListener("keydown", (evt) => {
					if (evt.key === "Enter") {
						evt.preventDefault();
						this.submit();
					}
				});
			});
		const save = this.contentEl.createEl("button", { cls: "mod-cta", text: "Save memory" });
		save.addEventListener("click", () => this.submit());
	}

	submit(): void {
		this.close();
		this.done(parseTags(this.value));
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}
