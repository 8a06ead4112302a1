/**
 * `forget`: lifts the ban on a rejected edit so the optimizer may propose it again. A rejected
 * edit is named the way the user sees it: its hash (or a unique prefix of it) or its id in
 * `proposals show`, bare (`e2`, when only one rejected proposal has it) or as `PROPOSAL:EDIT`.
 */
import type { Db } from '../store/db.js';
import { SleepError } from '../core/errors.js';
import { listProposals, requireProposal } from '../store/repos/proposals.js';
import { deleteRejectedEdit, findRejectedEditsByHashPrefix, listRejectedEdits, type RejectedEditRow } from '../store/repos/rejected-edits.js';
import { editHash } from '../skilldoc/edit-key.js';
import { appendDecision } from './decision-log.js';

export interface ForgetOutcome {
  editHash: string;
  skillPath: string;
  op: RejectedEditRow['op'];
  content: string;
  /** who had banned it: the user in review, and/or the gate that measured it as harmful */
  sources: Array<RejectedEditRow['source']>;
}

interface Candidate {
  skillKey: string;
  editHash: string;
  label: string;
}

function byHash(db: Db, ref: string): Candidate[] {
  if (!/^[0-9a-f]{4,}$/i.test(ref)) return [];
  return findRejectedEditsByHashPrefix(db, ref).map((r) => ({ skillKey: r.skillKey, editHash: r.editHash, label: `${r.editHash} (${r.skillKey})` }));
}

function byEditId(db: Db, ref: string): Candidate[] {
  const [pRef, eId] = ref.includes(':') ? (ref.split(':', 2) as [string, string]) : [null, ref];
  const proposals = pRef ? [requireProposal(db, pRef)] : listProposals(db);
  const out: Candidate[] = [];
  for (const p of proposals) {
    const banned = new Set(listRejectedEdits(db, p.skillTarget.path).map((r) => r.editHash));
    for (const e of p.edits) {
      if (e.id !== eId) continue;
      const h = editHash(e);
      if (banned.has(h)) out.push({ skillKey: p.skillTarget.path, editHash: h, label: `${p.id}:${e.id} = ${h}` });
    }
  }
  return out;
}

export function forgetRejectedEdit(db: Db, ref: string): ForgetOutcome {
  const wanted = ref.trim();
  if (!wanted) throw new SleepError('INVALID_INPUT', 'no edit given', { hint: 'pass an edit hash, or PROPOSAL:EDIT as shown by `skillopt-sleep proposals show ID`' });
  const found = [...byHash(db, wanted), ...byEditId(db, wanted)];
  const unique = [...new Map(found.map((c) => [`${c.skillKey}\0${c.editHash}`, c])).values()];
  if (unique.length === 0) {
    throw new SleepError('NOT_FOUND', `no rejected edit matches "${wanted}"`, {
      hint: 'see the edits of a rejected proposal with `skillopt-sleep proposals show ID` (each shows its id and #hash); `proposals list --status rejected` lists them',
    });
  }
  if (unique.length > 1) {
    throw new SleepError('INVALID_INPUT', `"${wanted}" matches ${unique.length} rejected edits: ${unique.map((c) => c.label).join('; ')}`, {
      hint: 'pass a longer hash prefix, or PROPOSAL:EDIT',
    });
  }
  const c = unique[0]!;
  const out = db.transaction(() => {
    const rows = listRejectedEdits(db, c.skillKey).filter((r) => r.editHash === c.editHash);
    deleteRejectedEdit(db, c.skillKey, c.editHash);
    const first = rows[0]!;
    return { editHash: c.editHash, skillPath: c.skillKey, op: first.op, content: first.content, sources: rows.map((r) => r.source) };
  }).immediate();
  // on disk too, in every proposal folder that holds the edit: a repair replays it after the rejects
  const ts = Date.now();
  for (const p of listProposals(db)) {
    if (p.skillTarget.path !== c.skillKey || !p.edits.some((e) => editHash(e) === c.editHash)) continue;
    appendDecision(p.dir, { action: 'forget', ts, status: p.status, receipt: null, forgotten: { skillKey: c.skillKey, editHash: c.editHash } });
  }
  return out;
}
