import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import fs from 'node:fs';
import { openDb, type Db } from '../../src/store/db.js';
import { RejectedEditBuffer } from '../../src/trainer/optimizer/buffer.js';
import { recordRejectedEdit, listRejectedEdits, banLine, rejectedEditVerdicts } from '../../src/store/repos/rejected-edits.js';
import { editHash } from '../../src/skilldoc/edit-key.js';
import type { Edit } from '../../src/core/records.js';
import { makeTempDir } from '../helpers/sandbox.js';

const edit = (content: string, anchor?: string): Edit => ({ op: anchor ? 'replace' : 'add', content, rationale: 'why', evidence: ['t1'], ...(anchor ? { anchor } : {}) });

describe('rejected-edit buffer', () => {
  let dir = '';
  let db: Db | undefined;
  afterEach(() => {
    db?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const open = () => {
    dir ||= makeTempDir();
    db = openDb(path.join(dir, 'sleep.db'));
    return db;
  };

  it('persists rejected edits with their score drop and survives a reopen (resume)', () => {
    const b = new RejectedEditBuffer(open(), '/skills/a/SKILL.md');
    b.add([edit('- shout'), edit('- whisper', 'speak')], 0.1, 'gate: 0.6 → 0.5');
    b.add([edit('- shout')], 0.3, 'gate: 0.6 → 0.3'); // a repeat keeps the larger drop
    db!.close();
    const again = new RejectedEditBuffer(open(), '/skills/a/SKILL.md');
    expect(again.size()).toBe(2);
    const d = again.digest();
    expect(d[0]).toMatchObject({ op: 'add', content: '- shout', scoreDrop: 0.3, source: 'gate' });
    expect(d[1]).toMatchObject({ op: 'replace', anchor: 'speak', scoreDrop: 0.1 });
    expect(listRejectedEdits(db!, '/skills/a/SKILL.md')).toHaveLength(2);
    // other skills do not see them
    expect(new RejectedEditBuffer(db!, '/skills/b/SKILL.md').size()).toBe(0);
  });

  it('shows user rejections first, bounds the digest, clips long content', () => {
    const d0 = open();
    recordRejectedEdit(d0, { skillKey: 'k', editHash: 'u1', op: 'add', anchor: null, content: '- user said no', reason: 'review', scoreDrop: null, source: 'user' });
    const b = new RejectedEditBuffer(d0, 'k', true, 3);
    b.add([edit('x'.repeat(1000))], 0.05, 'gate');
    b.add([edit('- big drop')], 0.5, 'gate');
    b.add([edit('- small drop')], 0.01, 'gate');
    const d = b.digest();
    expect(d).toHaveLength(3);
    expect(d[0].source).toBe('user');
    expect(d[1].content).toBe('- big drop');
    expect(d[2].content.length).toBeLessThan(400);
  });

  it('filters proposals identical (modulo case/whitespace) to a rejected edit', () => {
    const b = new RejectedEditBuffer(open(), 'k');
    b.add([edit('- Always shout')], 0.2, 'gate');
    const { kept, blocked } = b.filter([
      { edit: edit('-  always SHOUT '), source: 'failure', support: 1, level: 0 },
      { edit: edit('- be kind'), source: 'failure', support: 1, level: 0 },
    ]);
    expect(blocked.map((p) => p.edit.content)).toEqual(['-  always SHOUT ']);
    expect(kept.map((p) => p.edit.content)).toEqual(['- be kind']);
  });

  it('disabled (ablation): remembers nothing, shows nothing, blocks nothing, writes nothing', () => {
    const d0 = open();
    const b = new RejectedEditBuffer(d0, 'k', false);
    b.add([edit('- shout')], 0.2, 'gate');
    expect(b.digest()).toEqual([]);
    expect(b.filter([{ edit: edit('- shout'), source: 'failure', support: 1, level: 0 }]).kept).toHaveLength(1);
    expect(listRejectedEdits(d0, 'k')).toHaveLength(0);
  });

  it('forgives noise: one noisy drop only demotes; a second one, a real drop or the user bans, with the reason kept', () => {
    const b = new RejectedEditBuffer(open(), '/skills/n/SKILL.md');
    const good = edit('- cite the PR number');
    b.add([good], 0.05, 'gate: val 0.60 → 0.55, CI [-0.12, 0.03] (run1 step 2)', 'noise');
    expect(b.has(good)).toBe(false); // still allowed
    expect(b.digest()).toEqual([]); // not shown as "do not propose"
    expect(b.banReason(good)).toBeNull();
    const row = rejectedEditVerdicts(db!, ['/skills/n/SKILL.md'], editHash(good))[0];
    expect(row.source).toBe('demoted');
    expect(banLine(row)).toMatch(/^demoted, not banned: one drop that could be noise \(val drop 0\.050\)/);
    b.add([good], 0.04, 'gate: val 0.61 → 0.57 (run1 step 5)', 'noise');
    expect(b.has(good)).toBe(true);
    expect(b.banReason(good)).toMatch(/banned after a second drop \(first: gate: val 0\.60/);
    const bad = edit('- never write tests');
    b.add([bad], 0.2, 'gate: val 0.60 → 0.40, CI [-0.30, -0.10] (run1 step 3)', 'real');
    expect(b.has(bad)).toBe(true);
    const banned = rejectedEditVerdicts(db!, ['/skills/n/SKILL.md'], editHash(bad))[0];
    expect(banLine(banned)).toBe('banned: gate: val 0.60 → 0.40, CI [-0.30, -0.10] (run1 step 3) (val drop 0.200)');
    expect(banLine({ source: 'user', reason: 'too chatty', scoreDrop: null })).toBe('banned: rejected by the user — too chatty');
    // a reopen (resume, next night) keeps the demotion, so the second strike still bans
    db!.close();
    const again = new RejectedEditBuffer(open(), '/skills/n/SKILL.md');
    const other = edit('- keep the summary short');
    again.add([other], 0.01, 'noisy', 'noise');
    db!.close();
    const third = new RejectedEditBuffer(open(), '/skills/n/SKILL.md');
    expect(third.has(other)).toBe(false);
    third.add([other], 0.02, 'noisy again', 'noise');
    expect(third.has(other)).toBe(true);
  });
});
