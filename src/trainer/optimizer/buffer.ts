/**
 * The rejected-edit buffer. Upstream kept it in memory for one epoch only (lost on resume and at
 * each epoch boundary, unbounded text). Here it is persisted per skill in `rejected_edits`, so it
 * survives a resume and carries across epochs and nights, includes edits the user rejected in
 * review, and is rendered bounded (most informative entries first, content clipped).
 *
 * It forgives noise: an edit is banned (blocked and shown as "do not propose") only after a drop
 * the gate's confidence interval calls real, after the user rejects it, or after a second noisy
 * drop. A single drop the interval cannot tell from noise only demotes it (stored with its
 * reason, not blocked): on 3–10 val tasks one unlucky sample must not ban a good rule forever.
 */
import type { Db } from '../../store/db.js';
import type { Edit } from '../../core/records.js';
import type { RejectedEditDigest } from '../../core/protocol.js';
import { listRejectedEdits, recordRejectedEdit } from '../../store/repos/rejected-edits.js';
import { editHash } from '../../skilldoc/edit-key.js';
import type { ProposedEdit } from './reflect.js';
import { clip } from './prompts.js';

export interface BufferEntry {
  edit: Edit;
  scoreDrop: number | null;
  /** gate = banned by a real drop; user = rejected in review; demoted = one noisy drop (not banned) */
  source: 'gate' | 'user' | 'demoted';
  reason: string;
}

/** Whether a measured drop is real (the CI excludes 0) or could be noise. */
export type DropVerdict = 'real' | 'noise';

/** Measured drops below this are ties (float noise), not harm. */
const HARM_EPSILON = 1e-9;

function isHarmful(e: BufferEntry): boolean {
  if (e.source === 'demoted') return false;
  return e.source === 'user' || (e.scoreDrop !== null && e.scoreDrop > HARM_EPSILON);
}

export class RejectedEditBuffer {
  private readonly entries = new Map<string, BufferEntry>();

  constructor(
    private readonly db: Db | null,
    readonly skillKey: string,
    readonly enabled = true,
    private readonly maxShown = 12,
  ) {
    if (enabled && db) this.load();
  }

  private load(): void {
    if (!this.db) return;
    for (const r of listRejectedEdits(this.db, this.skillKey)) {
      const edit: Edit = { op: r.op, ...(r.anchor ? { anchor: r.anchor } : {}), content: r.content, rationale: '', evidence: [] };
      this.entries.set(`${r.source}:${r.editHash}`, { edit, scoreDrop: r.scoreDrop, source: r.source, reason: r.reason ?? '' });
    }
  }

  /**
   * Records edits the gate rejected, all with the candidate's measured drop. A `noise` verdict
   * demotes the edit; a second noisy drop of the same edit (or a `real` one) bans it.
   */
  add(edits: Edit[], scoreDrop: number | null, reason: string, verdict: DropVerdict = 'real'): void {
    if (!this.enabled) return;
    for (const edit of edits) {
      const hash = editHash(edit);
      const demoted = this.entries.get(`demoted:${hash}`);
      const prev = this.entries.get(`gate:${hash}`);
      const ban = verdict === 'real' || demoted !== undefined;
      const why = verdict === 'noise' && demoted ? `${reason}; banned after a second drop (first: ${demoted.reason})` : reason;
      const source: BufferEntry['source'] = ban ? 'gate' : 'demoted';
      const before = ban ? prev : demoted;
      const drop = before?.scoreDrop != null && scoreDrop != null ? Math.max(before.scoreDrop, scoreDrop) : (scoreDrop ?? before?.scoreDrop ?? null);
      this.entries.set(`${source}:${hash}`, { edit, scoreDrop: drop, source, reason: why });
      if (this.db) {
        recordRejectedEdit(this.db, {
          skillKey: this.skillKey,
          editHash: hash,
          op: edit.op,
          anchor: edit.anchor ?? null,
          content: edit.content ?? '',
          reason: why,
          scoreDrop,
          source,
        });
      }
    }
  }

  /** Why an edit is banned (null when it is not): the user's rejection or the measured drop. */
  banReason(edit: Edit): string | null {
    if (!this.enabled) return null;
    const h = editHash(edit);
    const user = this.entries.get(`user:${h}`);
    if (user) return `rejected by the user${user.reason ? `: ${user.reason}` : ''}`;
    const gate = this.entries.get(`gate:${h}`);
    return gate && isHarmful(gate) ? gate.reason : null;
  }

  size(): number {
    return this.enabled ? this.entries.size : 0;
  }

  list(): BufferEntry[] {
    return this.enabled ? [...this.entries.values()] : [];
  }

  /**
   * What the analysts see: user rejections first, then the largest measured drops; bounded. Edits
   * rejected on a tie are kept in the store but not shown: they were not measured as harmful, and
   * telling the optimizer to avoid them would block rules that only the held-out tasks need.
   */
  digest(): RejectedEditDigest[] {
    return this.list()
      .filter(isHarmful)
      .sort((a, b) => (a.source === b.source ? (b.scoreDrop ?? 0) - (a.scoreDrop ?? 0) : a.source === 'user' ? -1 : 1))
      .slice(0, this.maxShown)
      .map((e) => ({
        op: e.edit.op,
        ...(e.edit.anchor ? { anchor: clip(e.edit.anchor, 200) } : {}),
        content: clip(e.edit.content ?? '', 300),
        scoreDrop: e.scoreDrop,
        source: e.source === 'user' ? ('user' as const) : ('gate' as const),
      }));
  }

  /** True for an edit the user rejected or the gate measured as harmful. */
  has(edit: Edit): boolean {
    if (!this.enabled) return false;
    const h = editHash(edit);
    const gate = this.entries.get(`gate:${h}`);
    return this.entries.has(`user:${h}`) || (gate !== undefined && isHarmful(gate));
  }

  /** Drops proposals identical to a rejected edit: a model that ignores the prompt cannot retry them. */
  filter(edits: ProposedEdit[]): { kept: ProposedEdit[]; blocked: ProposedEdit[] } {
    const kept: ProposedEdit[] = [];
    const blocked: ProposedEdit[] = [];
    for (const p of edits) (this.has(p.edit) ? blocked : kept).push(p);
    return { kept, blocked };
  }
}
