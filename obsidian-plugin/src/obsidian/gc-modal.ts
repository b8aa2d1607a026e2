/** "Run garbage collection": previews the candidates (dry run), archives on confirm. */
import { Modal, type App } from "obsidian";
import type { BridgeClient } from "../core/bridge-client";
import { errorMessage } from "../core/messages";
import { renderGcError, renderGcLoading, renderGcPreview } from "../ui/gc-preview";

export interface GcModalDeps {
	client: Pick<BridgeClient, "gc">;
	/** Starts the GC job; says so itself, and null when it could not start (already told). */
	startJob: () => Promise<unknown>;
	offlineText: () => string;
}

export class GcModal extends Modal {
	constructor(
		app: App,
		private readonly deps: GcModalDeps,
	) {
		super(app);
	}

	override onOpen(): void {
		void this.load();
	}

	private async load(): Promise<void> {
		this.titleEl.setText("Archive forgotten memories");
		renderGcLoading(this.contentEl);
		try {
			const preview = await this.deps.client.gc(true);
			renderGcPreview(this.contentEl, preview.candidates, {
				cancel: () => this.close(),
				confirm: () => void this.run(),
			});
		} catch (error) {
			renderGcError(this.contentEl, errorMessage(error, this.deps.offlineText()));
		}
	}

	private async run(): Promise<void> {
		// a job: the daemon archives in the background, the status bar shows progress,
		// and a notice tells the result (jobs-ui.ts, on the `job` events)
		await this.deps.startJob();
		this.close();
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}
