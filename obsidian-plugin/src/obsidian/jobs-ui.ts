/**
 * Long operations as daemon jobs (sync, promote-all, consolidate, GC): started with one
 * quick request, their progress in a status bar item, their end as one notice. A slow
 * job is never a slow request, so it is never mistaken for a dead daemon.
 */
import { BridgeOfflineError, type BridgeClient } from "../core/bridge-client";
import { JobTracker } from "../core/jobs";
import { errorMessage, jobDoneMessage, jobProgress, jobStartedMessage } from "../core/messages";
import type { Timers } from "../core/timers";
import type { Job, JobKind } from "../core/types";

export interface JobsUiDeps {
	client: BridgeClient;
	timers: Timers;
	streamOpen: () => boolean;
	notify: (message: string) => void;
	/** A notice with one button (asks before a consolidation). */
	notifyAction: (message: string, label: string, run: () => void) => void;
	offlineText: () => string;
	/** Whether the daemon was known to be offline (going offline tells the person itself). */
	offline: () => boolean;
	/** A job ended: lists and the open note may have changed. */
	ended: (job: Job) => void;
}

export class JobsUi {
	readonly tracker: JobTracker;
	private item: HTMLElement | null = null;

	constructor(private readonly deps: JobsUiDeps) {
		this.tracker = new JobTracker({
			client: deps.client,
			timers: deps.timers,
			streamOpen: deps.streamOpen,
			onProgress: (job) => this.progress(job),
			onEnd: (job) => this.end(job),
		});
	}

	/** The status bar item that shows a running job. */
	attach(item: HTMLElement): void {
		this.item = item;
		item.addClass("mnemovault-job", "mnemovault-hidden");
	}

	stop(): void {
		this.tracker.stop();
	}

	/** The stream (re)connected: show the jobs as the daemon has them now. */
	async resync(): Promise<void> {
		await this.tracker.resync();
		if (this.tracker.anyRunning()) return;
		this.item?.setText("");
		this.item?.toggleClass("mnemovault-hidden", true);
	}

	/** Starts a job and says so; a refusal (already running, offline) is told at once. */
	async run(kind: JobKind, ids?: string[]): Promise<Job | null> {
		const wasOffline = this.deps.offline();
		try {
			const job = await this.tracker.start(kind, ids);
			if (job.state === "running") this.deps.notify(jobStartedMessage(kind));
			return job;
		} catch (error) {
			if (!(error instanceof BridgeOfflineError && !wasOffline)) this.deps.notify(errorMessage(error, this.deps.offlineText()));
			return null;
		}
	}

	/**
	 * Consolidates the memory at `path` with the cluster it belongs to, after the person
	 * confirms on the notice; says so when nothing is close enough in meaning.
	 */
	async consolidate(path: string, title: string): Promise<void> {
		let clusters;
		try {
			clusters = await this.deps.client.clusters();
		} catch (error) {
			return this.deps.notify(errorMessage(error, this.deps.offlineText()));
		}
		const cluster = clusters.find((c) => c.members.some((m) => m.path === path));
		if (!cluster) {
			return this.deps.notify(
				`No other memory is close enough in meaning to "${title}" to merge (this needs embeddings on in the daemon).`,
			);
		}
		const others = cluster.members.filter((m) => m.path !== path).map((m) => `"${m.title}"`);
		this.deps.notifyAction(
			`Merge "${title}" with ${others.join(", ")} into one memory? The originals go to the archive, linked to it.`,
			`Merge ${cluster.members.length}`,
			() => void this.run("consolidate", [cluster.id]),
		);
	}

	private progress(job: Job): void {
		this.item?.setText(jobProgress(job));
		this.item?.toggleClass("mnemovault-hidden", false);
	}

	private end(job: Job): void {
		this.item?.setText("");
		this.item?.toggleClass("mnemovault-hidden", true);
		this.deps.ended(job);
		this.deps.notify(jobDoneMessage(job));
	}
}
