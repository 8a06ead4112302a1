/**
 * The judge-fault arm (issue 43, "failure is failure"), not part of `npm run bench`: the
 * end-to-end night of train-e2e.ts (generated transcripts → harvest → mine → night, sim for every
 * role) with a judge whose rubric grades are schema-valid but wrong a given share of the time
 * (`backends.sim.judgeWrongRate`, the score turned around; deterministic by seed), beside the same
 * seed without the fault. Per seed: whether the night staged a proposal, the judge audit's
 * verdict, and the hidden-test score of what it staged beside the current skill's (the skill on
 * disk before the night: none in this world, so the empty skill). The claim checked: no staged
 * proposal scores below the current skill.
 *   node dist/bench/judge-fault.js 1-5          seeds 1..5, 30% wrong grades, quick sizes
 *   node dist/bench/judge-fault.js 1-5 0.3 full the full sizes
 *   node dist/bench/judge-fault.js 1-5 0.3 quick noaudit   the gate alone (training.maxJudgeDisagreement 1)
 */
import { E2E_FULL, E2E_QUICK, runE2eSeed, type E2eSeedOutcome } from './train-e2e.js';
import { f3 } from './stats.js';

const [first, last = first] = (process.argv[2] ?? '1-5').split('-').map(Number);
const rate = Number(process.argv[3] ?? '0.3');
const sizes = process.argv[4] === 'full' ? E2E_FULL : E2E_QUICK;
const noAudit = process.argv[5] === 'noaudit';

const audits = (o: E2eSeedOutcome) =>
  o.pipeline.items
    .map((i) => (i.judgeAudit ? `${i.name}: ${i.judgeAudit.verdict} (re-grade ${i.judgeAudit.repeat.disagreements}/${i.judgeAudit.repeat.pairs}, rules ${i.judgeAudit.rules.disagreements}/${i.judgeAudit.rules.pairs})` : `${i.name}: ${i.status}`))
    .join('; ');

let below = 0;
let staged = 0;
const cpu0 = process.cpuUsage();
console.log(`judge-fault arm: ${Math.round(rate * 100)}% wrong judge grades, seeds ${first}..${last}, ${sizes === E2E_FULL ? 'full' : 'quick'} sizes${noAudit ? ', judge audit off (the gate alone)' : ''}`);
console.log('seed | fault-free: staged, night test | with the fault: staged, night test, current skill test | verdict');
for (let seed = first; seed <= last; seed++) {
  const clean = await runE2eSeed(seed, { ...sizes, budget: 'ample' });
  const faulty = await runE2eSeed(seed, { ...sizes, budget: 'ample', judgeWrongRate: rate, ...(noAudit ? { maxJudgeDisagreement: 1 } : {}) });
  const night = faulty.scores['night (staged skills)'];
  const current = faulty.scores['empty skill'];
  const n = faulty.pipeline.staged.length;
  staged += n ? 1 : 0;
  const worse = n > 0 && night < current;
  if (worse) below++;
  console.log(
    `${String(seed).padStart(4)} | ${clean.pipeline.staged.length} staged, ${f3(clean.scores['night (staged skills)'])} | ${n} staged (${faulty.pipeline.nightStatus}), ${f3(night)}, current ${f3(current)} | ${worse ? 'BELOW the current skill' : n ? 'not below' : 'nothing staged'}`,
  );
  console.log(`       audits with the fault: ${audits(faulty)}`);
  console.log(`       audits fault-free:     ${audits(clean)}`);
}
const cpu = process.cpuUsage(cpu0);
console.log(`seeds whose faulty night staged: ${staged} of ${last - first + 1}; staged below the current skill: ${below}; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`);
if (below > 0) process.exitCode = 1;
