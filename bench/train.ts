/**
 * `npm run bench -- train`: does training beat what a user gets without it? On the sim persona
 * world (eight jobs; the sim target follows only what the skill says), every arm is scored on
 * held-out test instances by strict verifiers, over many seeds, side by side:
 *  - baselines with no optimizer call: the empty skill; the visible check descriptions pasted
 *    verbatim (the learning-free bar); the user's corrections pasted verbatim; the oracle;
 *  - trained from empty with the noisy optimizer (DEFAULT_HARM: scope-dropped rules, wrong
 *    literals, hard-coded instance values, contradictions, bloat, rare catastrophic rules):
 *    gated; gate off; and each mechanism switched off in turn;
 *  - the clean optimizer (no harm), gated.
 * The world is instance-valued by default: a train/val check of an instance-dependent preference
 * carries that session's own value (`(#412)`, `# Release v2.4.0`), as a check mined from the
 * user's session would, so a notepad that pastes check descriptions hard-codes one instance;
 * `--generic-instances` reruns the old world (generic descriptions, which already generalise).
 * Two notepads are scored (every distinct description; one per check, latest value) and the
 * stronger is the bar. Differences are paired by seed with a bootstrap 95% CI. Also printed: calls
 * and tokens per run and per accepted edit, test points per 100k tokens, test score per preference
 * kind and per instance preference, and the gate's worth both from the start draft (the default)
 * and from empty (where the +0.20 target applies).
 * Flags: --seeds N (default 10), --quick (3 seeds, the main arms only), --generic-instances, --no-e2e.
 */
import type { BenchResult } from './types.js';
import type { Task } from '../src/core/records.js';
import { runExperiment, type ExperimentOutcome } from './train-experiment.js';
import type { TrainOptions } from '../src/trainer/index.js';
import { DEFAULT_HARM, type HarmRates } from '../src/llm/sim/reflect.js';
import { PREFERENCE_KIND, personaCorrectionsSkill, personaIdealSkill, personaVisibleChecksSkill } from './persona.js';
import { ci, f3, mean, pairedBootstrap } from './stats.js';
import { e2eResults } from './train-e2e.js';

function flag(args: string[], name: string, dflt: number): number {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : dflt;
}


export const BASE_OPTIONS: Partial<TrainOptions> = { epochs: 3, batchSize: 8, lr: 4, minLr: 2, lrSchedule: 'cosine', gateMetric: 'soft' };

export interface Arm {
  name: string;
  /** an arm with a fixed skill is only scored (no optimizer call); it may be built from the train + val tasks */
  skill?: (seen: Task[]) => string;
  noisy: boolean;
  harm?: Partial<HarmRates>;
  options: Partial<TrainOptions>;
  /** printed in --quick mode too */
  main?: boolean;
  /** audit the accepted steps with the noise-free referee */
  audit?: boolean;
}

const NO_HARM: Partial<HarmRates> = { harmfulEditRate: 0, irrelevantEditRate: 0 };

export const ARMS: Arm[] = [
  { name: 'empty skill', skill: () => '', noisy: false, options: {}, main: true },
  { name: 'visible checks pasted verbatim', skill: (seen) => personaVisibleChecksSkill(seen), noisy: false, options: {}, main: true },
  { name: 'checks verbatim, one per check', skill: (seen) => personaVisibleChecksSkill(seen, { onePerCheck: true }), noisy: false, options: {}, main: true },
  { name: 'corrections pasted verbatim', skill: personaCorrectionsSkill, noisy: false, options: {}, main: true },
  { name: 'oracle', skill: personaIdealSkill, noisy: false, options: {}, main: true },
  { name: 'trained, clean optimizer, gated', noisy: false, harm: NO_HARM, options: {}, main: true },
  { name: 'trained, gated (full system)', noisy: true, options: {}, main: true, audit: true },
  { name: 'trained, gate off', noisy: true, options: { gateEnabled: false }, main: true },
  { name: 'trained, no start draft', noisy: true, options: { startDraft: false }, main: true, audit: true },
  { name: 'trained, gate off, no start draft', noisy: true, options: { gateEnabled: false, startDraft: false }, main: true },
  // the focus accept fires from empty (after the draft few candidates gain 0.1 on their job): its worth there
  { name: 'trained, no start draft, no focus accept', noisy: true, options: { startDraft: false, focusAccept: false }, main: true },
  // the mid-run prune acts on the optimizer's own accepted edits (after the draft there are few): its worth from empty
  { name: 'trained, no start draft, no mid-run prune', noisy: true, options: { startDraft: false, midRunPrune: false }, main: true },
  { name: 'trained, no lr cap', noisy: true, options: { lrCap: false } },
  { name: 'trained, no rejected-edit buffer', noisy: true, options: { useBuffer: false } },
  { name: 'trained, no slow update', noisy: true, options: { slowUpdate: false } },
  { name: 'trained, no meta skill', noisy: true, options: { metaSkill: false } },
  { name: 'trained, no rescue/prune/simplify', noisy: true, options: { rescue: false, prune: false, simplify: false } },
  { name: 'trained, autonomous lr', noisy: true, options: { lrSchedule: 'autonomous' } },
  { name: 'trained, no fresh incumbent', noisy: true, options: { freshIncumbent: false } },
  { name: 'trained, no scope-leak screen', noisy: true, options: { scopeScreen: false } },
  { name: 'trained, no pre-screen of single edits', noisy: true, options: { preScreen: false } },
  { name: 'trained, no defect/lapse labels', noisy: true, options: { skillAware: false } },
];

export interface ArmResult {
  arm: Arm;
  runs: ExperimentOutcome[];
  shippedTest: number;
  acceptedDrops: number;
  steps: number;
  calls: number;
  tokens: number;
  acceptedEdits: number;
  proposedEdits: number;
  appliedEdits: number;
  keepsGlobalRule: number;
  keepsGlobalHarm: number;
  /** candidates that reached the gate, and those still indecisive after their extra rounds */
  gated: number;
  indecisive: number;
  /** mean of (best-on-val − shipped test) over runs */
  valTestGap: number;
  /** mean of (the best skill's val on fresh draws no decision saw − shipped test): what the run reports */
  freshValTestGap: number;
  /** val measurements per stage, mean per run */
  valComparisons: Record<string, number>;
  acceptedSteps: number;
  acceptedTrulyWorse: number;
}

export async function runArms(seeds: number[], tasks: number | undefined, arms = ARMS, onRun?: (arm: Arm, seed: number) => void, instanceChecks?: 'generic' | 'valued'): Promise<ArmResult[]> {
  const out: ArmResult[] = [];
  for (const arm of arms) {
    const runs: ExperimentOutcome[] = [];
    for (const seed of seeds) {
      onRun?.(arm, seed);
      runs.push(
        await runExperiment({
          seed,
          tasks,
          skillFrom: arm.skill,
          train: arm.skill === undefined,
          instanceChecks,
          harm: arm.noisy ? DEFAULT_HARM : (arm.harm ?? NO_HARM),
          malformedJsonRate: 0.05,
          auditAcceptances: arm.audit === true,
          options: { ...BASE_OPTIONS, ...arm.options },
        }),
      );
    }
    out.push({
      arm,
      runs,
      shippedTest: mean(runs.map((r) => r.shippedTest)),
      acceptedDrops: runs.reduce((a, r) => a + r.acceptedDrops.length, 0),
      steps: runs.reduce((a, r) => a + (r.result?.steps.length ?? 0), 0),
      calls: mean(runs.map((r) => r.optimizerCalls + r.targetCalls)),
      tokens: mean(runs.map((r) => r.tokens)),
      acceptedEdits: mean(runs.map((r) => r.acceptedEdits)),
      proposedEdits: mean(runs.map((r) => r.proposedEdits)),
      appliedEdits: mean(runs.map((r) => r.appliedEdits)),
      keepsGlobalRule: runs.filter((r) => r.keepsGlobalRule).length,
      keepsGlobalHarm: runs.filter((r) => r.keepsGlobalHarm).length,
      ...gateFigures(runs),
      acceptedSteps: runs.reduce((a, r) => a + r.acceptedSteps, 0),
      acceptedTrulyWorse: runs.reduce((a, r) => a + r.acceptedTrulyWorse, 0),
    });
  }
  return out;
}

function gateFigures(runs: ExperimentOutcome[]): Pick<ArmResult, 'gated' | 'indecisive' | 'valTestGap' | 'freshValTestGap' | 'valComparisons'> {
  const steps = runs.flatMap((r) => r.result?.steps ?? []).filter((s) => s.gate !== undefined);
  const trained = runs.filter((r) => r.result !== null);
  const comparisons: Record<string, number> = {};
  for (const r of trained) for (const [k, v] of Object.entries(r.result?.valComparisons ?? {})) comparisons[k] = (comparisons[k] ?? 0) + v / trained.length;
  return {
    gated: steps.length,
    indecisive: steps.filter((s) => s.gate?.outcome === 'indecisive').length,
    valTestGap: trained.length ? mean(trained.map((r) => (r.result?.best.val ?? 0) - r.shippedTest)) : 0,
    freshValTestGap: trained.length ? mean(trained.map((r) => (r.result?.best.valFresh ?? r.result?.best.val ?? 0) - r.shippedTest)) : 0,
    valComparisons: comparisons,
  };
}



export async function run(args: string[]): Promise<BenchResult[]> {
  const quick = args.includes('--quick');
  const nSeeds = flag(args, '--seeds', quick ? 3 : 10);
  const seeds = Array.from({ length: nSeeds }, (_, i) => i + 1);
  const arms = quick ? ARMS.filter((a) => a.main) : ARMS;
  // the instance-valued world is the headline (what the product sees); --generic-instances reruns the old world
  const world: 'generic' | 'valued' = args.includes('--generic-instances') ? 'generic' : 'valued';
  // the end-to-end arm (transcripts → harvest → mine → night) is the headline: printed first
  const e2e = args.includes('--no-e2e') ? [] : await e2eResults(seeds, quick);
  const t0 = Date.now();
  const tty = process.stderr.isTTY;
  const results = await runArms(
    seeds,
    undefined,
    arms,
    (arm, seed) => {
      if (tty) process.stderr.write(`\r  ${arm.name}, seed ${seed}…`.padEnd(70));
    },
    world,
  );
  if (tty) process.stderr.write('\r'.padEnd(72) + '\r');
  const by = (name: string) => results.find((a) => a.arm.name === name) as ArmResult;
  const scores = (name: string) => by(name).runs.map((r) => r.shippedTest);
  // the bar is the stronger notepad (every distinct description, or one per check), so no baseline is weaker than a fair notepad
  const allNotes = by('visible checks pasted verbatim');
  const oneNote = by('checks verbatim, one per check');
  const verbatim = oneNote.shippedTest > allNotes.shippedTest ? oneNote : allNotes;
  const gated = by('trained, gated (full system)');
  const ungated = by('trained, gate off');
  const oracle = by('oracle');

  const w = 38;
  const out = process.stderr;
  const worldLine =
    world === 'valued'
      ? "instance-valued: a train/val instance check carries that session's own value (`(#412)`, `# Release v2.4.0`), as the product sees it"
      : 'generic instance checks: train/val check the shape under a generic description (the old world; --generic-instances)';
  out.write(`\ntrain bench: sim persona world (8 jobs; 32 train / 24 val / 48 test per seed; ${worldLine}), seeds 1..${nSeeds}, ${BASE_OPTIONS.epochs} epochs; test = strict verifiers, soft score\n`);
  out.write(`bar ("vs verbatim checks"): ${verbatim.arm.name} (the stronger notepad: every distinct description ${f3(allNotes.shippedTest)}, one per check ${f3(oneNote.shippedTest)})\n`);
  out.write(`${'arm'.padEnd(w)} ${'test'.padStart(6)} ${'vs verbatim checks [95% CI]'.padStart(30)} ${'visible'.padStart(8)} ${'correct.'.padStart(8)} ${'instance'.padStart(8)} ${'calls'.padStart(6)} ${'tokens'.padStart(8)} ${'edits'.padStart(6)} ${'pts/100k'.padStart(8)}\n`);
  const empty = by('empty skill');
  for (const a of results) {
    const vs = a === verbatim ? '' : ci(pairedBootstrap(a.runs.map((r) => r.shippedTest), scores(verbatim.arm.name)));
    const kind = (k: 'visible' | 'correction' | 'instance') => f3(mean(a.runs.map((r) => r.perKind[k])));
    const perTokens = a.tokens > 0 ? f3(((a.shippedTest - empty.shippedTest) * 100) / (a.tokens / 100_000)) : '-';
    out.write(
      `${a.arm.name.padEnd(w)} ${f3(a.shippedTest).padStart(6)} ${vs.padStart(30)} ${kind('visible').padStart(8)} ${kind('correction').padStart(8)} ${kind('instance').padStart(8)} ${a.calls.toFixed(0).padStart(6)} ${(a.tokens / 1000).toFixed(0).padStart(7)}k ${a.acceptedEdits.toFixed(1).padStart(6)} ${perTokens.padStart(8)}\n`,
    );
  }
  const gateEffect = pairedBootstrap(scores(gated.arm.name), scores(ungated.arm.name));
  const vsVerbatim = pairedBootstrap(scores(gated.arm.name), scores(verbatim.arm.name));
  const clean = by('trained, clean optimizer, gated');
  const cleanVsVerbatim = pairedBootstrap(scores(clean.arm.name), scores(verbatim.arm.name));
  out.write(`\ntrained gated − visible checks verbatim: full system (noisy optimizer, default harm: what the user gets) ${ci(vsVerbatim)}; clean optimizer (no harm) ${ci(cleanVsVerbatim)}\n`);
  const kinds = ['visible', 'correction', 'instance'] as const;
  const kindDiff = (a: ArmResult, k: (typeof kinds)[number]) => pairedBootstrap(a.runs.map((r) => r.perKind[k]), verbatim.runs.map((r) => r.perKind[k]));
  const kindGain = (a: ArmResult) => kinds.map((k) => `${k} ${ci(kindDiff(a, k))}`).join(', ');
  out.write(`  gain per preference type, full system − checks verbatim: ${kindGain(gated)}\n  gain per preference type, clean optimizer − checks verbatim: ${kindGain(clean)}\n`);
  // instance preferences one by one: which values the loop generalises (numbers and versions) and which it hard-codes
  const instancePrefs = Object.entries(PREFERENCE_KIND).filter(([, k]) => k === 'instance').map(([id]) => id);
  const prefOf = (a: ArmResult, id: string) => f3(mean(a.runs.map((r) => r.perPref[id] ?? 0)));
  const prefArms = [gated, clean, verbatim, oracle];
  out.write(`  instance preferences on test (${prefArms.map((a) => a.arm.name).join(' | ')}):\n`);
  for (const id of instancePrefs) out.write(`    ${id.padEnd(18)} ${prefArms.map((a) => prefOf(a, id)).join(' | ')}\n`);
  // what the optimizer adds on top of the start draft (checks + corrections per job, no optimizer call)
  for (const a of [gated, clean]) {
    const withStart = a.runs.filter((r) => r.start !== null);
    if (!withStart.length) {
      out.write(`${a.arm.name}: the start draft was never taken\n`);
      continue;
    }
    const startScores = withStart.map((r) => r.start?.mean ?? 0);
    const kindsOfStart = kinds.map((k) => `${k} ${f3(mean(withStart.map((r) => r.start?.perKind[k] ?? 0)))}`).join(', ');
    out.write(
      `${a.arm.name}: start draft taken in ${withStart.length}/${a.runs.length} seeds; its start, no optimizer ${f3(mean(startScores))} (${kindsOfStart}); trained ${f3(mean(withStart.map((r) => r.shippedTest)))}; trained − its start ${ci(pairedBootstrap(withStart.map((r) => r.shippedTest), startScores))}\n`,
    );
  }
  const noDraft = by('trained, no start draft');
  out.write(`full system − no start draft: ${ci(pairedBootstrap(scores(gated.arm.name), scores(noDraft.arm.name)))}\n`);
  const noDraftOff = by('trained, gate off, no start draft');
  const gateFromEmpty = pairedBootstrap(scores(noDraft.arm.name), scores(noDraftOff.arm.name));
  const editFlow = (a: ArmResult) => `${a.proposedEdits.toFixed(1)} / ${a.appliedEdits.toFixed(1)}`;
  const draftTaken = (a: ArmResult) => `${a.runs.filter((r) => r.start !== null).length}/${a.runs.length}`;
  out.write(
    `gate on − gate off, default harm (15% scope-dropped rules): from the start draft (the default regime) ${ci(gateEffect)}; training from empty (the optimizer writes every rule: the regime the +0.20 target is for) ${ci(gateFromEmpty)}\n` +
      `  edits per run, proposed / applied by accepted steps (force-accepted included; the gate-off arm ships its final skill): from the draft gated ${editFlow(gated)}, gate off ${editFlow(ungated)} (draft taken gated ${draftTaken(gated)}, gate off ${draftTaken(ungated)}); from empty gated ${editFlow(noDraft)}, gate off ${editFlow(noDraftOff)}\n`,
  );
  const noFocusAccept = by('trained, no start draft, no focus accept');
  out.write(`  focus accept (from empty): with ${f3(noDraft.shippedTest)}, without ${f3(noFocusAccept.shippedTest)}, with − without ${ci(pairedBootstrap(scores(noDraft.arm.name), scores(noFocusAccept.arm.name)))}; gate on − off from empty without it ${ci(pairedBootstrap(scores(noFocusAccept.arm.name), scores(noDraftOff.arm.name)))}\n`);
  const noMidPrune = by('trained, no start draft, no mid-run prune');
  out.write(`  mid-run prune (from empty): with ${f3(noDraft.shippedTest)}, without ${f3(noMidPrune.shippedTest)}, with − without ${ci(pairedBootstrap(scores(noDraft.arm.name), scores(noMidPrune.arm.name)))}; gate on − off from empty without it ${ci(pairedBootstrap(scores(noMidPrune.arm.name), scores(noDraftOff.arm.name)))}; calls per run with ${noDraft.calls.toFixed(0)}, without ${noMidPrune.calls.toFixed(0)}\n`);
  out.write(`  per seed from empty: gated ${scores(noDraft.arm.name).map(f3).join(' ')} | gate off ${scores(noDraftOff.arm.name).map(f3).join(' ')}\n`);
  out.write(
    `shipped skills keeping a harmful global rule (a scope-dropped or catastrophic rule whose cut raises the noise-free test score by > 0.02): gated ${gated.keepsGlobalHarm}/${nSeeds}, gate off ${ungated.keepsGlobalHarm}/${nSeeds}` +
      ` (skills holding such a rule at all, harmful or not: gated ${gated.keepsGlobalRule}/${nSeeds}, gate off ${ungated.keepsGlobalRule}/${nSeeds}); from empty: gated ${noDraft.keepsGlobalHarm}/${nSeeds}, gate off ${noDraftOff.keepsGlobalHarm}/${nSeeds}\n`,
  );
  out.write(`per seed: gated ${scores(gated.arm.name).map(f3).join(' ')} | gate off ${scores(ungated.arm.name).map(f3).join(' ')}\n`);
  if (!quick) {
    for (const a of results.filter((r) => r.arm.noisy && r !== gated && r !== ungated)) {
      out.write(`  ${a.arm.name} − full system: ${ci(pairedBootstrap(a.runs.map((r) => r.shippedTest), scores(gated.arm.name)))}\n`);
    }
  }
  const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(0)}%` : '-');
  out.write(`gate (full system): ${gated.gated} candidates gated, ${gated.indecisive} (${pct(gated.indecisive, gated.gated)}) still indecisive after their extra rounds; best-on-val − test ${f3(gated.freshValTestGap)} (the best skill re-measured on val draws no decision saw; on the draws it was selected on ${f3(gated.valTestGap)})\n`);
  out.write(`accepted steps truly worse on test (noise-free referee: common random numbers, 4 samples, drop > 0.02): ${gated.acceptedTrulyWorse} of ${gated.acceptedSteps}; from empty ${noDraft.acceptedTrulyWorse} of ${noDraft.acceptedSteps}\n`);
  out.write(`val measurements per run (full system): ${Object.entries(gated.valComparisons).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}\n`);
  const tokensPerEdit = gated.acceptedEdits > 0 ? gated.tokens / gated.acceptedEdits : 0;
  out.write(gated.acceptedEdits > 0 ? `calls per accepted edit (full system): ${(gated.calls / gated.acceptedEdits).toFixed(0)}; tokens per accepted edit: ${(tokensPerEdit / 1000).toFixed(1)}k\n\n` : 'calls per accepted edit (full system): - (no edit accepted)\n\n');

  return [
    ...e2e,
    { name: 'test, empty skill', value: empty.shippedTest, unit: 'score' },
    { name: 'test, visible checks pasted verbatim', value: allNotes.shippedTest, unit: 'score' },
    { name: 'test, checks verbatim, one per check', value: oneNote.shippedTest, unit: 'score' },
    { name: 'test, corrections pasted verbatim', value: by('corrections pasted verbatim').shippedTest, unit: 'score' },
    { name: 'test, oracle', value: oracle.shippedTest, unit: 'score' },
    { name: 'test, trained clean gated', value: by('trained, clean optimizer, gated').shippedTest, unit: 'score' },
    { name: 'test, trained gated (full system)', value: gated.shippedTest, unit: 'score' },
    { name: 'test, trained gate off', value: ungated.shippedTest, unit: 'score' },
    { name: 'gated (full system) − verbatim checks, CI low', value: vsVerbatim.lo, unit: 'score', target: '> +0.05', pass: vsVerbatim.lo > 0.05 },
    { name: 'clean optimizer gated − verbatim checks, CI low', value: cleanVsVerbatim.lo, unit: 'score', target: '> +0.05', pass: cleanVsVerbatim.lo > 0.05 },
    ...kinds.map((k) => ({ name: `full system − verbatim checks, ${k} prefs`, value: kindDiff(gated, k).diff, unit: 'score' })),
    { name: 'gated − gate off from empty, CI low', value: gateFromEmpty.lo, unit: 'score', target: '> +0.20', pass: gateFromEmpty.lo > 0.2 },
    { name: 'gated − gate off from the draft, CI low', value: gateEffect.lo, unit: 'score' },
    { name: 'gated steps accepted while val dropped', value: gated.acceptedDrops, unit: 'steps', target: `0 of ${gated.steps}`, pass: gated.acceptedDrops === 0 },
    { name: 'gated accepted steps truly worse on test', value: gated.acceptedTrulyWorse, unit: 'steps', target: `0 of ${gated.acceptedSteps}`, pass: gated.acceptedTrulyWorse === 0 },
    { name: 'gated from empty: accepted steps truly worse', value: noDraft.acceptedTrulyWorse, unit: 'steps', target: `0 of ${noDraft.acceptedSteps}`, pass: noDraft.acceptedTrulyWorse === 0 },
    { name: 'gated candidates indecisive at the end', value: gated.gated ? gated.indecisive / gated.gated : 0, unit: 'share', target: '≤ 0.10', pass: gated.gated > 0 && gated.indecisive / gated.gated <= 0.1 },
    { name: 'gated best-on-val (fresh draws) − test', value: gated.freshValTestGap, unit: 'score', target: '≤ 0.03', pass: gated.freshValTestGap <= 0.03 },
    { name: 'gated best-on-val (selection draws) − test', value: gated.valTestGap, unit: 'score' },
    { name: 'gated shipped skills with a global harmful rule', value: gated.keepsGlobalHarm, unit: 'runs', target: `≤ ${Math.floor(nSeeds / 10)}`, pass: gated.keepsGlobalHarm <= Math.floor(nSeeds / 10) },
    { name: 'wall time, all arms', value: (Date.now() - t0) / 1000, unit: 's' },
  ];
}
