/**
 * The run directory `runs/<id>/`: everything needed to inspect a run and to resume it after a crash.
 *
 *   config.json            options, skill name, task ids per split
 *   state.json             resumable state, rewritten atomically after every completed step/boundary
 *   history.json           StepReport[] (rewritten every step)
 *   skills/skill_v0000.md  the base skill; skill_vNNNN.md = current skill after global step N
 *   steps/step_NNNN/       candidate_skill.md, edits.json, scores.json, trajectory_digest.json, step_record.json
 *   epochs/epoch_NN/       slow_update.json, meta_skill.json
 *   best_skill.md          the best accepted skill (rewritten whenever it changes)
 *   summary.json           written at the end
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../core/fsutil.js';

/**
 * Artifacts are written temp-then-rename (a crash never leaves a half file) but without fsync:
 * a run writes dozens per step, and only state.json (fsynced) is needed to resume.
 */
function writeRenamed(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
import type { SplitScores } from './gate/gate.js';
import type { LrState } from './optimizer/lr.js';
import type { LineageOp } from './passes/attribution.js';
import type { StartDraftOutcome, StepReport, TrainOptions } from './types.js';
import type { StageUsage } from './optimizer/call.js';
import type { EditRecord } from '../core/records.js';

export interface SkillState {
  content: string;
  scores: SplitScores;
  score: number;
  origin: string;
  /**
   * Fresh val samples behind `scores` (samples 1..fresh, the acceptance sample 0 left out): a
   * skill became current because its sample-0 measure won, so that measure is biased upward.
   */
  fresh?: number;
}

export interface RunState {
  version: 1;
  runId: string;
  skillName: string;
  options: TrainOptions;
  lastCompletedStep: number;
  epochsCompleted: number;
  lr: LrState;
  baseline: SkillState;
  current: SkillState;
  best: SkillState & { step: number; lineageLength: number };
  epochStart: { content: string; score: number; scores: SplitScores };
  metaSkill: string;
  lineage: LineageOp[];
  /** edit records of every step (accepted, rejected, unmatched), in order */
  edits: EditRecord[];
  steps: StepReport[];
  epochs: Array<{ epoch: number; slowUpdate: string; metaSkill: string; valEnd: number }>;
  usage: Record<string, StageUsage>;
  /** validation comparisons made, per stage (gate, rescue, attribution, prune, simplify, slow_update) */
  valComparisons?: Record<string, number>;
  /** the start draft training began from (start-gate.ts), when it won on val */
  startDraft?: StartDraftOutcome | null;
}

const pad = (n: number, w = 4) => String(n).padStart(w, '0');

export class RunFiles {
  constructor(readonly dir: string) {
    ensurePrivateDir(dir);
  }

  private json(rel: string, data: unknown): void {
    this.text(rel, JSON.stringify(data, null, 2) + '\n');
  }

  private text(rel: string, data: string): void {
    const file = path.join(this.dir, rel);
    const dir = path.dirname(file);
    if (!this.made.has(dir)) {
      ensurePrivateDir(dir);
      this.made.add(dir);
    }
    writeRenamed(file, data);
  }

  private readonly made = new Set<string>();

  writeConfig(config: unknown): void {
    this.json('config.json', config);
  }

  writeSkill(globalStep: number, content: string): void {
    this.text(`skills/skill_v${pad(globalStep)}.md`, content);
  }

  writeBest(content: string): void {
    this.text('best_skill.md', content);
  }

  writeStep(globalStep: number, files: { candidate?: string; edits: unknown; scores: unknown; digest: unknown; record: StepReport }): void {
    const base = `steps/step_${pad(globalStep)}`;
    if (files.candidate !== undefined) this.text(`${base}/candidate_skill.md`, files.candidate);
    this.json(`${base}/edits.json`, files.edits);
    this.json(`${base}/scores.json`, files.scores);
    this.json(`${base}/trajectory_digest.json`, files.digest);
    this.json(`${base}/step_record.json`, files.record);
  }

  writeEpoch(epoch: number, name: 'slow_update' | 'meta_skill' | 'prune', data: unknown): void {
    this.json(`epochs/epoch_${pad(epoch, 2)}/${name}.json`, data);
  }

  writeHistory(steps: StepReport[]): void {
    this.json('history.json', steps);
  }

  writeSummary(summary: unknown): void {
    this.json('summary.json', summary);
  }

  /** The resume point: durable (fsynced) and atomic. */
  saveState(state: RunState): void {
    writeFileAtomic(path.join(this.dir, 'state.json'), JSON.stringify(state) + '\n', { mode: 0o600 });
  }

  loadState(): RunState | null {
    try {
      const s = JSON.parse(fs.readFileSync(path.join(this.dir, 'state.json'), 'utf8')) as RunState;
      return s.version === 1 ? s : null;
    } catch {
      return null;
    }
  }
}
