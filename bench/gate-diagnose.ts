/**
 * Diagnostic, not part of `npm run bench`: trains the persona world with the noisy optimizer and
 * prints every step's gate verdict beside its true effect on test (the noise-free referee of
 * train-experiment.ts, 8 samples), so a reader can see which candidates the gate got wrong.
 *   node dist-bench/bench/gate-diagnose.js 1-10          seeds 1..10, from empty
 *   node dist-bench/bench/gate-diagnose.js 3 draft       seed 3, from the start draft
 *   DIAG_SKILL=1 …                                 also the shipped skill, its edits and each candidate's new lines
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../src/store/db.js';
import { resolvePaths } from '../src/core/paths.js';
import { createSimBackend } from '../src/llm/sim/index.js';
import { personaWorld } from './persona.js';
import { trainSkill } from '../src/trainer/index.js';
import { DEFAULT_HARM } from '../src/llm/sim/reflect.js';
import { BASE_OPTIONS } from './train.js';
import { DEFAULT_WORLD, trueTest } from './train-experiment.js';

const [first, last = first] = (process.argv[2] ?? '1-5').split('-').map(Number);
const startDraft = process.argv[3] === 'draft';
const verbose = Boolean(process.env.DIAG_SKILL);
for (let seed = first; seed <= last; seed++) {
  const mk = (role: 'target' | 'optimizer' | 'judge') => createSimBackend({ seed, role, harmfulEditRate: DEFAULT_HARM.harmfulEditRate, irrelevantEditRate: DEFAULT_HARM.irrelevantEditRate, harm: DEFAULT_HARM, malformedJsonRate: 0.05 });
  const tasks = personaWorld(seed, DEFAULT_WORLD, { instanceChecks: 'valued' });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-diag-'));
  const paths = resolvePaths({ env: { SKILLOPT_SLEEP_HOME: home } });
  const db = openDb(paths.database);
  try {
    const result = await trainSkill({ db, paths, skill: { name: 'team-conventions', content: '', handWritten: false }, tasks, backends: { target: mk('target'), optimizer: mk('optimizer'), judge: mk('judge') }, options: { seed, ...BASE_OPTIONS, startDraft } });
    // the accepted skills in step order (skill_vNNNN.md): the current skill before a step is the last one before it
    const skillsDir = path.join(result.runDir, 'skills');
    const accepted = fs.readdirSync(skillsDir).sort().map((f) => ({ step: Number(/(\d{4})/.exec(f)?.[1] ?? 0), content: fs.readFileSync(path.join(skillsDir, f), 'utf8') }));
    const currentAt = (step: number) => accepted.filter((a) => a.step < step).at(-1)?.content ?? '';
    console.log(`seed ${seed}: shipped true test ${(await trueTest(tasks.test, result.bestSkill, seed, 8)).toFixed(3)}`);
    if (verbose) {
      console.log(result.bestSkill);
      for (const e of result.edits) console.log(`    edit ${e.status} effect ${e.effect ?? '-'} ${e.content.slice(0, 80)}`);
    }
    for (const s of result.steps) {
      const candFile = path.join(result.runDir, 'steps', `step_${String(s.globalStep).padStart(4, '0')}`, 'candidate_skill.md');
      if (!fs.existsSync(candFile) || !s.gate) {
        console.log(`  step ${s.globalStep} ${s.action.padEnd(15)} (no gate) fail ${s.failures} proposed ${s.proposed} blocked ${s.blocked} pre ${s.prescreened ?? 0} | ${s.reason.slice(0, 120)}`);
        continue;
      }
      const cand = fs.readFileSync(candFile, 'utf8');
      const cur = currentAt(s.globalStep);
      const [a, b] = await Promise.all([trueTest(tasks.test, cur, seed, 8), trueTest(tasks.test, cand, seed, 8)]);
      const g = s.gate;
      const f = g.focus ? ` focus ${g.focus.meanDiff.toFixed(3)} [${g.focus.lo.toFixed(3)},${g.focus.hi.toFixed(3)}] n${g.focus.n}` : '';
      if (verbose) {
        const had = new Set(cur.split('\n'));
        for (const l of cand.split('\n')) if (l.trim() && !had.has(l)) console.log(`      + ${l.slice(0, 160)}`);
      }
      console.log(`  step ${s.globalStep} ${s.action.padEnd(15)} pre ${s.prescreened ?? '-'} ${g.outcome.padEnd(10)} val Δ ${g.meanDiff.toFixed(3)} [${g.lo.toFixed(3)},${g.hi.toFixed(3)}] r${g.rounds}${f} | TRUE Δ ${(b - a).toFixed(3)} | ${s.reason.slice(0, 90)}`);
    }
  } finally {
    db.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}
