/**
 * Daemon jobs the person started or sees: progress and the end of each, told once. The
 * `job` events of the stream drive it; while the stream is down, the jobs this plugin
 * started are polled instead, so a long job is never mistaken for a dead daemon and its
 * result is never lost.
 */
import type { BridgeClient } from "./bridge-client";
import type { Timers } from "./timers";
import type { Job, JobKind } from "./types";

export interface JobTrackerDeps {
	client: Pick<BridgeClient, "startJob" | "jobs">;
	timers: Timers;
	/** Whether the event stream is open (then events carry the progress). */
	streamOpen: () => boolean;
	onProgress: (job: Job) => void;
	onEnd: (job: Job) => void;
	pollMs?: number;
}

export class JobTracker {
	private readonly running = new Map<string, Job>();
	private readonly ended = new Set<string>();
	/** Jobs this plugin started, polled while the stream is down. */
	private readonly mine = new Set<string>();
	private poll: unknown = null;

	constructor(private readonly deps: JobTrackerDeps) {}

	/** Starts a job; resolves with it as the daemon started it (throws what the request threw). */
	async start(kind: JobKind, ids?: string[]): Promise<Job> {
		const job = await this.deps.client.startJob(kind, ids);
		this.mine.add(job.id);
		this.handle(job);
		this.schedulePoll();
		return job;
	}

	/** Whether any job is running, as far as this plugin knows. */
	anyRunning(): boolean {
		return this.running.size > 0;
	}

	/** Whether a job of this kind is running, as far as this plugin knows. */
	isRunning(kind: JobKind): boolean {
		for (const job of this.running.values()) if (job.kind === kind) return true;
		return false;
	}

	/** A job's state, from an event or a poll. */
	handle(job: Job): void {
		if (this.ended.has(job.id)) return;
		if (job.state === "running") {
			this.running.set(job.id, job);
			this.deps.onProgress(job);
			return;
		}
		this.running.delete(job.id);
		this.mine.delete(job.id);
		this.ended.add(job.id);
		this.deps.onEnd(job);
	}

	/**
	 * The stream (re)connected, or dropped events: what this tracker knew may be stale (a
	 * restarted daemon numbers its jobs from 1 again, and forgets the running ones). Re-read
	 * the daemon's list: running jobs are shown again, jobs it started that ended are told.
	 */
	async resync(): Promise<void> {
		let jobs: Job[];
		try {
			jobs = (await this.deps.client.jobs()).jobs;
		} catch {
			return; // offline or an older daemon: keep what is known, events will tell
		}
		this.running.clear();
		this.ended.clear();
		const listed = new Set(jobs.map((j) => j.id));
		for (const id of [...this.mine]) if (!listed.has(id)) this.mine.delete(id); // lost with a restart
		for (const job of jobs) {
			if (job.state === "running" || this.mine.has(job.id)) this.handle(job);
			else this.ended.add(job.id); // ended before: never told twice
		}
	}

	stop(): void {
		if (this.poll !== null) this.deps.timers.clearTimeout(this.poll);
		this.poll = null;
	}

	private schedulePoll(): void {
		if (this.poll !== null || this.mine.size === 0) return;
		this.poll = this.deps.timers.setTimeout(() => {
			this.poll = null;
			void this.pollOnce().finally(() => this.schedulePoll());
		}, this.deps.pollMs ?? 1000);
	}

	private async pollOnce(): Promise<void> {
		if (this.deps.streamOpen()) return; // the events tell it
		try {
			const { jobs } = await this.deps.client.jobs();
			for (const job of jobs) if (this.mine.has(job.id)) this.handle(job);
		} catch {
			// offline or busy: the connection monitor tells the person; try again later
		}
	}
}
