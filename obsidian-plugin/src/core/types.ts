/**
 * JSON shapes of the daemon's HTTP bridge (docs/bridge-api.md in the main repo).
 * Plain data only: no behaviour, no Obsidian imports.
 */

export type DecayModel = "power_law" | "exponential" | "two_component";

export interface Scoring {
	decay_model: DecayModel;
	half_life_days: number;
	pl_alpha: number;
	tc_weight_fast: number;
	tc_fast_half_life_hours: number;
	tc_slow_half_life_days: number;
	beta: number;
	forget_threshold: number;
	promote_threshold: number;
	promote_min_uses: number;
	danger_zone_min: number;
	danger_zone_max: number;
}

export type NoteKind = "stm" | "ltm" | "archive" | "note";

export type NoteState =
	| "fresh"
	| "fading"
	| "danger"
	| "forget"
	| "promote_candidate"
	/** Pinned by the person: keeps its score, never reviewed or archived on its own. */
	| "pinned"
	| "promoted"
	| "archived"
	| "note";

export interface Note {
	path: string;
	id: string | null;
	kind: NoteKind;
	title: string;
	status: string;
	tags: string[];
	use_count: number;
	strength: number;
	last_used: string | null;
	created: string | null;
	decay_score: number | null;
	score: number | null;
	review_priority: number;
	state: NoteState;
	problems: string[];
	/** `pinned: true` in the note (absent on older daemons). */
	pinned?: boolean;
	/** The memory's project (its `project` key); null: shared by every project; absent on older daemons. */
	project?: string | null;
	/** The newest note that supersedes this one (GET /api/note), or null; absent on older daemons. */
	superseded_by?: string | null;
}

export interface Move {
	id: string;
	title: string;
	from: string;
	to: string;
	reason: string;
}

export interface Candidate {
	id: string;
	title: string;
	path: string;
	score: number;
	reason: string;
}

export interface SearchResult {
	path: string;
	id: string | null;
	title: string;
	kind: NoteKind;
	snippet: string;
	score: number;
	parts: { fts: number | null; semantic: number | null; decay: number | null };
	review: boolean;
	/** From daemons that send them (with `include_archived`): the memory's status and dates. */
	status?: string | null;
	created?: string | null;
	last_used?: string | null;
	tags?: string[];
}

export interface StatusResponse {
	vault: string;
	counts: { stm: number; ltm: number; archive: number; note: number };
	by_status: Record<string, number>;
	problems: { path: string; cause: string }[];
	conflicts: unknown[];
	dangling_links: number;
	last_sync: string | null;
	embeddings: { enabled: boolean; done: number; total: number };
	scoring: Scoring;
	daemon: { pid: number; started: string; version?: string; api?: number };
	/** Files the daemon set aside (unreadable, hostile); absent on older daemons. */
	quarantined?: { file: string; cause: string; action: string }[];
	/** The daemon's background sweep; absent on older daemons. */
	background?: { last_run: string | null; last_error: BackgroundError | null };
}

export type JobKind = "gc" | "promote" | "sync" | "consolidate";

export interface Job {
	id: string;
	kind: JobKind;
	state: "running" | "done" | "failed";
	done: number;
	total: number | null;
	result: unknown;
	error: { code: string; message: string } | null;
}

/** A consolidate job's result (the new note; the originals archived, linked to it). */
export interface ConsolidateResult {
	applied: boolean;
	note: Note | null;
	archived: Move[];
	errors: { path: string; error: string }[];
}

/** One cluster of STM memories close in meaning (rpc `cluster`). */
export interface Cluster {
	id: string;
	cohesion: number;
	action: string;
	members: { path: string; id: string | null; title: string }[];
}

/** The answer of POST /api/editing: the note the daemon holds background writes for. */
export interface EditingResponse {
	path: string | null;
	hold_seconds: number;
}

export interface BackgroundError {
	at: string;
	task: string;
	message: string;
}

export interface TouchResponse {
	note: Note;
	old_score: number | null;
	new_score: number | null;
}

/** POST /api/pin and /api/unpin. */
export interface PinResponse {
	note: Note;
	pinned: boolean;
	/** False: it already was (nothing written). */
	changed: boolean;
	/** Pin only: the values it replaced; /api/unpin with them is its exact undo (null: nothing changed). */
	prior?: ReviewValues | null;
}

export interface PromoteResponse {
	promoted: Move[];
	dry_run: boolean;
	/** With dry_run: what would be promoted. */
	candidates?: Candidate[];
}

/** The owned values a review changes, as the note held them (null: the key was absent). */
export interface ReviewValues {
	last_used: string | null;
	decay_score: number | null;
	review_priority: number | null;
	review_on: string | null;
	archive_on: string | null;
	/** How the note spelled values the daemon would write otherwise; an undo puts them back. */
	as_written?: Record<string, string>;
	/** The note's keys in order (an undo puts a removed key back on its line). */
	layout?: string[];
}

/** What an archive undo writes back: the review values, the status and the archive keys before
 * (a note taken back from the archive by hand still holds those). */
export interface ArchivedValues extends ReviewValues {
	status: string | null;
	archived_at?: string | null;
	archive_reason?: string | null;
	archived_from?: "stm" | "ltm" | null;
	merged_into?: string | null;
}

export type ReviewGrade = "remember" | "fade";

/** A graded review: bounded by the daemon (a review never makes a promotion candidate). */
export interface GradeResponse {
	note: Note;
	grade: ReviewGrade;
	old_score: number;
	new_score: number;
	prior: ReviewValues;
	after: ReviewValues;
}

export interface ArchiveResponse {
	archived: (Move & { prior?: ArchivedValues | null })[];
}

export interface RestoreResponse {
	restored: Move[];
}

export interface GcResponse {
	candidates: Candidate[];
	archived: Move[];
	dry_run: boolean;
}

export interface ReviewResponse {
	items: Note[];
	/** Every memory due for review (in the danger zone), not only this page's. */
	total?: number;
	/** When the next memory above the danger zone enters it if unused (ISO), or null. */
	next_due?: string | null;
}

export interface SearchResponse {
	results: SearchResult[];
	semantic: boolean;
	notice: string | null;
}

export interface RelatedItem {
	path: string;
	id: string | null;
	title: string;
	score: number | null;
	state: NoteState;
	/** Cosine similarity (semantic), shared-tag share (tags), or search score (text). */
	similarity: number;
}

export interface RelatedResponse {
	items: RelatedItem[];
	method: "semantic" | "tags" | "text";
	notice: string | null;
}

/** One memory said in a conversation (GET /api/thread). */
export interface ThreadTurn {
	path: string;
	id: string | null;
	title: string;
	kind: NoteKind;
	status: string | null;
	/** ISO time it was said; null in a conversation without times. */
	said_at: string | null;
	/** The note's text without frontmatter: plain text, never rendered as Markdown. */
	text: string;
	/** The memory the thread was asked for. */
	this: boolean;
}

export interface ThreadResponse {
	conversation: string;
	path: string;
	/** In the order they were said. */
	turns: ThreadTurn[];
	/** Turns of the conversation left out before / after the ones listed. */
	earlier: number;
	later: number;
}

export interface SyncResponse {
	added: number;
	updated: number;
	removed: number;
	moved: number;
	unchanged: number;
	problems: number | unknown[];
}

export type SearchScope = "stm" | "ltm" | "all" | "archive";

/** One event of `GET /api/events`. */
export type BridgeEvent =
	| { type: "hello"; data: Record<string, never> }
	| { type: "indexed"; data: { path: string; id: string | null } }
	| { type: "deleted"; data: { path: string } }
	| { type: "score_changed"; data: { path: string; id: string | null; score: number; state: NoteState } }
	| { type: "promoted"; data: Move }
	| { type: "archived"; data: Move }
	| { type: "restored"; data: Move }
	| { type: "problem"; data: { path: string; cause: string } }
	/** Events were dropped (a slow reader): everything shown may be stale. */
	| { type: "resync"; data: { dropped: number } }
	| { type: "background_error"; data: BackgroundError }
	/** A daemon job's progress or end (POST /api/jobs). */
	| { type: "job"; data: Job };

export type BridgeEventType = BridgeEvent["type"];

export const EVENT_TYPES: readonly BridgeEventType[] = [
	"hello",
	"indexed",
	"deleted",
	"score_changed",
	"promoted",
	"archived",
	"restored",
	"problem",
	"resync",
	"background_error",
	"job",
];

/** Vault paths an event is about (a move names both ends). */
export function eventPaths(event: BridgeEvent): string[] {
	switch (event.type) {
		case "hello":
		case "resync":
		case "background_error":
		case "job":
			return [];
		case "promoted":
		case "archived":
		case "restored":
			return [event.data.from, event.data.to];
		default:
			return [event.data.path];
	}
}
