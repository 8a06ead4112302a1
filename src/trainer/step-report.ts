/** A step's report in words: the progress line the CLI and the night log print, and the run's recent history for the analysts. */
import type { StepReport, StepReportDraft } from './types.js';


/** A score with two decimals; '—' when it was not measured. */
export const f2 = (x: number | null) => (x === null ? '—' : x.toFixed(2));

export const ACTION_LABEL: Record<StepReport['action'], string> = {
  accept_new_best: 'ACCEPT',
  accept: 'ACCEPT',
  force_accept: 'FORCE-ACCEPT',
  reject: 'REJECT',
  reject_no_change: 'REJECT (no change)',
  skip_no_patches: 'SKIP',
  skip_no_edits: 'SKIP',
};

/** The focus look rejected the candidate: on its own job's val tasks the gain is below the minimum worth a change. */
function belowMinGain(r: StepReportDraft): boolean {
  const f = r.gate?.focus;
  return r.gate?.outcome === 'reject' && f !== undefined && f.hi < f.minGain;
}

export function formatStepLine(r: StepReportDraft): string {
  const head = `[epoch ${r.epoch} step ${r.step}/${r.stepsInEpoch}] rollout ${r.rolloutTasks} tasks`;
  if (r.action === 'skip_no_patches') return `${head} · no edits proposed · SKIP`;
  const parts = [head, `${r.proposed} edits proposed`];
  if (r.blocked) parts.push(`${r.blocked} blocked as rejected before`);
  parts.push(`${r.selected} selected (lr ${r.lr})`);
  if (r.unmatched) parts.push(`${r.unmatched} unmatched`);
  if (r.action === 'skip_no_edits') return `${parts.join(' · ')}${r.prescreened ? ` · pre-screen dropped ${r.prescreened}` : ''} · SKIP`;
  if (r.rescued) parts.push(`val ${f2(r.valBefore)} → ${f2(r.rescued.fullValAfter)} REJECT → kept ${r.rescued.kept}/${r.rescued.of} edits: ${f2(r.valAfter)} ${ACTION_LABEL[r.action]}`);
  else parts.push(`val ${f2(r.valBefore)} → ${f2(r.valAfter)} ${r.gate?.outcome === 'indecisive' ? `REJECT (indecisive after ${r.gate.rounds} extra sample round${r.gate.rounds === 1 ? '' : 's'})` : r.leak ? 'REJECT (scope leak)' : belowMinGain(r) ? 'REJECT (below the minimum gain on its own job)' : ACTION_LABEL[r.action]}`);
  if (r.prescreened) parts.push(`pre-screen dropped ${r.prescreened}`);
  return parts.join(' · ');
}

/** The last five steps, for the analysts' prompt. */
export function historyText(steps: StepReport[]): string {
  const recent = steps.slice(-5);
  if (!recent.length) return '';
  const lines = recent.map(
    (s) => `- step ${s.globalStep} (epoch ${s.epoch}): ${ACTION_LABEL[s.action]}${s.valAfter !== null ? ` val ${s.valBefore.toFixed(3)} → ${s.valAfter.toFixed(3)}` : ''}; ${s.failures}/${s.rolloutTasks} failed`,
  );
  return `\n## Previous Steps in This Run\n${lines.join('\n')}\n`;
}

/** A step's report before its stages run: nothing proposed, nothing measured yet. */
export function newReport(at: { epoch: number; step: number; stepsInEpoch: number; globalStep: number; totalSteps: number; rolloutTasks: number; lr: number; valBefore: number; bestScore: number }): StepReportDraft {
  // the keys in the order a step record has always had (run directories and staged evidence keep it)
  return {
    epoch: at.epoch,
    step: at.step,
    stepsInEpoch: at.stepsInEpoch,
    globalStep: at.globalStep,
    totalSteps: at.totalSteps,
    rolloutTasks: at.rolloutTasks,
    trainHard: 0,
    trainSoft: 0,
    failures: 0,
    successes: 0,
    infraErrors: 0,
    patches: 0,
    reflectErrors: 0,
    mergeFallbacks: 0,
    proposed: 0,
    blocked: 0,
    lr: at.lr,
    selected: 0,
    applied: 0,
    unmatched: 0,
    action: 'skip_no_patches',
    valBefore: at.valBefore,
    valAfter: null,
    bestScore: at.bestScore,
    regressions: [],
    reason: 'no edits proposed',
    candidateHash: null,
    wallMs: 0,
  };
}
