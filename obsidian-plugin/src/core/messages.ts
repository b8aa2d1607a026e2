/** Texts of the notices that answer a command. */
import { BridgeApiError, BridgeOfflineError } from "./bridge-client";
import { formatScore } from "./format";
import type {
	ArchiveResponse,
	ConsolidateResult,
	GcResponse,
	GradeResponse,
	Job,
	PinResponse,
	PromoteResponse,
	RestoreResponse,
	SyncResponse,
	TouchResponse,
} from "./types";

export function reinforcedMessage(r: TouchResponse): string {
	return `Reinforced "${r.note.title}": score ${formatScore(r.old_score)} → ${formatScore(r.new_score)}.`;
}

export function pinnedMessage(r: PinResponse): string {
	const title = r.note.title || r.note.path;
	if (!r.changed) return `"${title}" was already ${r.pinned ? "pinned" : "not pinned"}.`;
	if (r.pinned) return `Pinned "${title}": it keeps its score ${formatScore(r.note.score)} and never comes back for review.`;
	return `Unpinned "${title}": score ${formatScore(r.note.score)}, ageing from its last use again.`;
}

export function gradedMessage(r: GradeResponse): string {
	const what = r.grade === "remember" ? "Remembered" : "Letting fade";
	return `${what} "${r.note.title}": score ${formatScore(r.old_score)} → ${formatScore(r.new_score)} (a review, not a use).`;
}

export function promotedMessage(r: PromoteResponse): string {
	if (r.promoted.length === 0) return "Nothing was promoted.";
	const m = r.promoted[0];
	return r.promoted.length === 1 ? `Promoted "${m.title}" to ${m.to}.` : `Promoted ${r.promoted.length} memories.`;
}

export function archivedMessage(r: ArchiveResponse): string {
	if (r.archived.length === 0) return "Nothing was archived.";
	const m = r.archived[0];
	return r.archived.length === 1 ? `Archived "${m.title}" to ${m.to}.` : `Archived ${r.archived.length} memories.`;
}

export function restoredMessage(r: RestoreResponse): string {
	if (r.restored.length === 0) return "Nothing was restored.";
	const m = r.restored[0];
	return r.restored.length === 1 ? `Restored "${m.title}" to ${m.to}.` : `Restored ${r.restored.length} memories.`;
}

export function gcDoneMessage(r: GcResponse): string {
	const n = r.archived.length;
	if (n === 0) return "Nothing was archived.";
	return `Archived ${n} ${n === 1 ? "memory" : "memories"}. Each can be restored from the archive.`;
}

export function syncedMessage(r: SyncResponse): string {
	const problems = Array.isArray(r.problems) ? r.problems.length : r.problems;
	const parts = [`${r.added} added`, `${r.updated} updated`, `${r.removed} removed`, `${r.moved} moved`];
	const tail = problems ? `, ${problems} with problems` : "";
	return `Index synced: ${parts.join(", ")}${tail}.`;
}

export function consolidatedMessage(r: ConsolidateResult): string {
	if (!r.note) return "Nothing was consolidated.";
	const n = r.archived.length;
	const failed = r.errors.length ? ` ${r.errors.length} could not be archived: ${r.errors.map((e) => e.path).join(", ")}.` : "";
	return `Consolidated ${n} ${n === 1 ? "memory" : "memories"} into "${r.note.title}" (${r.note.path}). The originals are in the archive, linked to it.${failed}`;
}

/** A person-readable text for a failed request. */
export function errorMessage(error: unknown, offlineText: string): string {
	if (error instanceof BridgeOfflineError) return offlineText;
	if (error instanceof BridgeApiError) {
		if (error.code === "not_found") return "This note is not in the memory index.";
		if (error.code === "refused") return `Not saved: ${error.message}`;
		return error.message;
	}
	return error instanceof Error ? error.message : String(error);
}

/** The notice when a job starts: it runs on in the daemon, the status bar shows how far. */
export function jobStartedMessage(kind: Job["kind"]): string {
	const what = {
		gc: "Archiving forgotten memories",
		promote: "Promoting strong memories",
		sync: "Syncing the index",
		consolidate: "Consolidating memories",
	}[kind];
	return `${what} in the background…`;
}

/** Status bar text of a running job: "Archiving forgotten memories 40/120", "Syncing…". */
export function jobProgress(job: Job): string {
	const name = { gc: "Archiving forgotten memories", promote: "Promoting", sync: "Syncing", consolidate: "Consolidating" }[job.kind];
	return job.total ? `${name} ${job.done}/${job.total}` : `${name}…`;
}

/** The notice at a job's end. */
export function jobDoneMessage(job: Job): string {
	if (job.state === "failed") return `mnemovault ${job.kind} failed: ${job.error?.message ?? "unknown error"}`;
	if (job.kind === "gc") return gcDoneMessage(job.result as GcResponse);
	if (job.kind === "promote") return promotedMessage(job.result as PromoteResponse);
	if (job.kind === "consolidate") return consolidatedMessage(job.result as ConsolidateResult);
	return syncedMessage(job.result as SyncResponse);
}
