/**
 * Diagnostic, not part of `npm run bench`: where the night loses to the oracle in the outcome world.
 * It reads a report written by `npm run bench -- outcomes --dump FILE` and prints
 *  - night − oracle per preference and per seed (each cell is 8 hidden instances: steps of 0.125);
 *  - with DIAG_SKILL=1, each seed's staged skills; with DIAG_PREF=<preference id> as well, for each
 *    hidden instance of that preference, pass or fail and the rules the scoring target read for it
 *    (its trace: the directive kind, the probability it was followed with, and whether it was).
 *   node dist-bench/bench/outcome-diagnose.js /tmp/outcomes.json            the table
 *   DIAG_SKILL=1 DIAG_PREF=changelog-changed-subheading node dist-bench/bench/outcome-diagnose.js FILE 3 6
 * The scorer is rebuilt as train-outcomes.ts builds it (the sim target, seed + 10 000, the bench's
 * compliance knobs), so a trace shows the draw the bench scored.
 */
import fs from 'node:fs';
import { buildPerformRequest } from '../src/replay/rollout.js';
import { perform } from '../src/llm/sim/target.js';
import type { PerformPayload } from '../src/core/protocol.js';
import { OUTCOME_JOBS, OUTCOME_PROJECTS, outcomeHidden } from './outcome-world.js';
import { OUTCOME_COMPLIANCE, verify, type OutcomeReport } from './train-outcomes.js';

const file = process.argv[2];
if (!file || !fs.existsSync(file)) {
  process.stderr.write('usage: node dist-bench/bench/outcome-diagnose.js REPORT.json [seed ...]\n  (write REPORT.json with `npm run bench -- outcomes --dump REPORT.json`)\n');
  process.exit(2);
}
const report = JSON.parse(fs.readFileSync(file, 'utf8')) as OutcomeReport;
const only = process.argv.slice(3).map(Number).filter(Number.isInteger);
const prefs = OUTCOME_JOBS.flatMap((j) => j.prefs.map((p) => ({ id: p.id, kind: p.kind })));
const fmt = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(2);

console.log(`night − oracle per preference and seed (${file})`);
console.log(`${'preference'.padEnd(42)}${report.outcomes.map((o) => String(o.seed).padStart(6)).join('')}   mean`);
for (const p of prefs) {
  const cells = report.outcomes.map((o) => (o.scores.night.perPref[p.id] ?? 0) - (o.scores.oracle.perPref[p.id] ?? 0));
  console.log(`${`${p.id} (${p.kind})`.padEnd(42)}${cells.map((c) => fmt(c).padStart(6)).join('')}  ${fmt(cells.reduce((a, b) => a + b, 0) / cells.length)}`);
}
const overall = report.outcomes.map((o) => o.scores.night.overall - o.scores.oracle.overall);
console.log(`${'overall'.padEnd(42)}${overall.map((c) => fmt(c).padStart(6)).join('')}  ${fmt(overall.reduce((a, b) => a + b, 0) / overall.length)}`);

if (process.env.DIAG_SKILL) {
  for (const o of report.outcomes) {
    if (only.length && !only.includes(o.seed)) continue;
    console.log(`\n######## seed ${o.seed}: ${o.night.items.join('; ')}`);
    // a staged skill belongs to the project whose directory holds it; a personal one to every project
    const projectOf = (p: string) => OUTCOME_PROJECTS.find((x) => p.includes(`/src/${x}/`)) ?? null;
    for (const [p, s] of Object.entries(o.stagedSkills)) console.log(`==== ${projectOf(p) ?? 'personal'}\n${s.trim()}`);
    const skillFor = (project: string) =>
      Object.entries(o.stagedSkills)
        .filter(([p]) => projectOf(p) === project || projectOf(p) === null)
        .map(([, s]) => s)
        .join('\n\n');
    const want = process.env.DIAG_PREF;
    if (!want) continue;
    for (const h of outcomeHidden(o.seed, report.knobs.hiddenPerJob)) {
      const v = h.verifiers.find((x) => x.pref === want);
      if (!v) continue;
      const req = buildPerformRequest(h.task, { name: 'learned', content: skillFor(h.project) }, 0);
      const r = perform(req.payload as PerformPayload, o.seed + 10_000, { compliance: OUTCOME_COMPLIANCE });
      const passed = verify(v.verifier, r.text, r.toolsCalled, r.commandsRun);
      const rules = r.trace.map((t) => `[${t.kind} p=${t.p.toFixed(2)} ${t.followed ? 'followed' : 'missed'}] ${t.rule.slice(0, 80)}`);
      console.log(`  ${passed ? 'pass' : 'FAIL'} ${h.project}/${h.job} ${h.task.id.slice(0, 8)}\n      ${rules.join('\n      ') || '(no rule applies)'}`);
    }
  }
}
