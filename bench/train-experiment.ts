/**
 * The training experiment shared by `npm run bench -- train` and the integration test: the sim
 * backend on the sim persona (tasks that need several distinct rules), starting from an empty
 * skill, with a real SQLite store in a temporary directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../src/store/db.js';
import { resolvePaths } from '../src/core/paths.js';
import { createSimBackend } from '../src/llm/sim/index.js';
import { simPersonaTasks } from '../src/llm/sim/persona.js';
import { trainSkill, type TrainOptions, type TrainResult } from '../src/trainer/train.js';
import type { Task } from '../src/core/records.js';
import { splitScore } from '../src/trainer/gate.js';

export interface ExperimentConfig {
  seed: number;
  tasks: number;
  harmfulEditRate: number;
  irrelevantEditRate: number;
  malformedJsonRate: number;
  options: Partial<TrainOptions>;
}

export interface ExperimentOutcome {
  result: TrainResult;
  /** every gated step whose candidate was accepted although it lowered validation (must be empty with the gate on) */
  acceptedDrops: number[];
  optimizerCalls: number;
  targetCalls: number;
  /** test score of the final *current* skill (what an ungated run would ship) */
  finalTest: number | null;
}

export function personaSplits(seed: number, n: number): { train: Task[]; val: Task[]; test: Task[] } {
  const all = simPersonaTasks(seed, n);
  return { train: all.filter((t) => t.split === 'train'), val: all.filter((t) => t.split === 'val'), test: all.filter((t) => t.split === 'test') };
}

export async function runExperiment(cfg: ExperimentConfig): Promise<ExperimentOutcome> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-train-'));
  try {
    const paths = resolvePaths({ env: { SKILLOPT_SLEEP_HOME: home } });
    const db = openDb(paths.database);
    try {
      const mk = (role: 'target' | 'optimizer' | 'judge') =>
        createSimBackend({ seed: cfg.seed, role, harmfulEditRate: cfg.harmfulEditRate, irrelevantEditRate: cfg.irrelevantEditRate, malformedJsonRate: cfg.malformedJsonRate });
      const target = mk('target');
      const optimizer = mk('optimizer');
      const judge = mk('judge');
      const tasks = personaSplits(cfg.seed, cfg.tasks);
      const result = await trainSkill({
        db,
        paths,
        skill: { name: 'team-conventions', content: '', handWritten: false },
        tasks,
        backends: { target, optimizer, judge },
        options: { seed: cfg.seed, ...cfg.options },
      });
      const acceptedDrops = result.steps
        .filter((s) => (s.action === 'accept' || s.action === 'accept_new_best') && s.valAfter !== null && s.valAfter <= s.valBefore)
        .map((s) => s.globalStep);
      // the final current skill = last skill_vNNNN.md
      const skillsDir = path.join(result.runDir, 'skills');
      const last = fs.readdirSync(skillsDir).sort().at(-1)!;
      const finalContent = fs.readFileSync(path.join(skillsDir, last), 'utf8');
      let finalTest: number | null = result.best.test;
      if (finalContent !== result.bestSkill && tasks.test.length) {
        const { makeMeasurer } = await import('../src/trainer/measure.js');
        const { UsageMeter } = await import('../src/trainer/optimizer.js');
        const measure = makeMeasurer({ db, backends: { target, optimizer, judge }, skillName: 'team-conventions', samples: 1, concurrency: 4, meter: new UsageMeter(), runId: result.runId });
        finalTest = splitScore((await measure(tasks.test, finalContent, 'final')).scores, cfg.options.gateMetric ?? 'soft', 0.5);
      }
      return { result, acceptedDrops, optimizerCalls: optimizer.totalCalls(), targetCalls: target.totalCalls(), finalTest };
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
