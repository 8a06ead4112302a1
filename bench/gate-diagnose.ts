/** Diagnostic (not part of the bench): every gated step of the from-empty arm, with its true effect. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../src/store/db.js';
import { resolvePaths } from '../src/core/paths.js';
import { createSimBackend } from '../src/llm/sim/index.js';
import { personaWorld } from '../src/llm/sim/persona.js';
import { trainSkill } from '../src/trainer/train.js';
import { scoreSkill } from '../src/replay/index.js';
import type { Task } from '../src/core/records.js';
import { DEFAULT_HARM } from '../src/llm/sim/reflect.js';
import { BASE_OPTIONS } from './train.js';
import { DEFAULT_WORLD } from './train-experiment.js';

async function trueScore(tasks: Task[], content: string, seed: number): Promise<number> {
  const referee = createSimBackend({ seed: seed + 20_000, role: 'target', pairedDraws: true });
  return (await scoreSkill({ tasks, skill: { name: 'team-conventions', content }, target: referee, judge: referee, metric: 'soft', samples: 8 })).mean;
}

const seeds = (process.argv[2] ?? '1-5').split('-').map(Number);
const startDraft = process.argv[3] !== 'draft' ? false : true;
for (let seed = seeds[0]; seed <= (seeds[1] ?? seeds[0]); seed++) {
  const mk = (role: 'target' | 'optimizer' | 'judge') => createSimBackend({ seed, role, harmfulEditRate: DEFAULT_HARM.harmfulEditRate, irrelevantEditRate: DEFAULT_HARM.irrelevantEditRate, harm: DEFAULT_HARM, malformedJsonRate: 0.05 });
  const tasks = personaWorld(seed, DEFAULT_WORLD, { instanceChecks: 'valued' });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-diag-'));
  const paths = resolvePaths({ env: { SKILLOPT_SLEEP_HOME: home } });
  const db = openDb(paths.database);
  const result = await trainSkill({ db, paths, skill: { name: 'team-conventions', content: '', handWritten: false }, tasks, backends: { target: mk('target'), optimizer: mk('optimizer'), judge: mk('judge') }, options: { seed, ...BASE_OPTIONS, startDraft } });
  const skillsDir = path.join(result.runDir, 'skills');
  const files = fs.readdirSync(skillsDir).sort();
  const currentAt = (step: number) => {
    let c = '';
    for (const f of files) {
      const m = /(\d{4})/.exec(f);
      if (m && Number(m[1]) < step) c = fs.readFileSync(path.join(skillsDir, f), 'utf8');
    }
    return c;
  };
  const shippedTest = await trueScore(tasks.test, result.bestSkill, seed);
  console.log(`seed ${seed}: shipped true test ${shippedTest.toFixed(3)}`);
  if (process.env.DIAG_SKILL) {
    console.log(result.bestSkill);
    for (const e of result.edits) console.log(`    edit ${e.status} effect ${e.effect ?? '-'} ${(e.content ?? '').slice(0, 80)}`);
    console.log(`    epochs: ${JSON.stringify(result.epochs).slice(0, 600)}`);
  }
  for (const s of result.steps) {
    const candFile = path.join(result.runDir, 'steps', `step_${String(s.globalStep).padStart(4, '0')}`, 'candidate_skill.md');
    if (!fs.existsSync(candFile) || !s.gate) {
      console.log(`  step ${s.globalStep} ${s.action.padEnd(15)} (no gate) fail ${s.failures} proposed ${s.proposed} blocked ${s.blocked} pre ${s.prescreened ?? 0} | ${s.reason.slice(0, 120)}`);
      continue;
    }
    const cand = fs.readFileSync(candFile, 'utf8');
    const cur = currentAt(s.globalStep);
    const [a, b] = await Promise.all([trueScore(tasks.test, cur, seed), trueScore(tasks.test, cand, seed)]);
    const g = s.gate;
    const f = g.focus ? ` focus ${g.focus.meanDiff.toFixed(3)} [${g.focus.lo.toFixed(3)},${g.focus.hi.toFixed(3)}] n${g.focus.n}` : '';
    if (process.env.DIAG_SKILL) {
      const had = new Set(cur.split('\n'));
      for (const l of cand.split('\n')) if (l.trim() && !had.has(l)) console.log(`      + ${l.slice(0, 160)}`);
    }
    console.log(`  step ${s.globalStep} ${s.action.padEnd(15)} pre ${s.prescreened ?? '-'} ${g.outcome.padEnd(10)} val Δ ${g.meanDiff.toFixed(3)} [${g.lo.toFixed(3)},${g.hi.toFixed(3)}] r${g.rounds}${f} | TRUE Δ ${(b - a).toFixed(3)} | ${s.reason.slice(0, 90)}`);
  }
  db.close();
  fs.rmSync(home, { recursive: true, force: true });
}
