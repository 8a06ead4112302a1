/** What every stage of one training run shares (built by train.ts, passed to each stage of loop.ts). */
import type { Db } from '../store/db.js';
import type { Task } from '../core/records.js';
import type { Progress } from '../core/progress.js';
import { isSleepError } from '../core/errors.js';
import type { ApplyOptions } from '../skilldoc/edits.js';
import type { EditScope } from '../skilldoc/segments.js';
import type { SplitScores } from './gate/gate.js';
import type { RejectedEditBuffer } from './optimizer/buffer.js';
import type { CallContext, UsageMeter } from './optimizer/call.js';
import type { Measurer } from './measure.js';
import type { RunFiles, RunState } from './run-files.js';
import type { TrainInput, TrainResult } from './types.js';
import type { TrainOptions } from './options.js';

export interface TrainContext {
  input: TrainInput;
  options: TrainOptions;
  db: Db;
  st: RunState;
  files: RunFiles;
  meter: UsageMeter;
  call: CallContext;
  buffer: RejectedEditBuffer;
  scope: EditScope;
  applyOpts: ApplyOptions;
  runId: string;
  train: Task[];
  /** the val split: every decision of the run (counted per stage in `st.valComparisons`) */
  val: Task[];
  test: Task[];
  taskById: Map<string, Task>;
  /** steps per epoch */
  spe: number;
  totalSteps: number;
  measure: Measurer;
  /** gate-metric score of a split */
  score: (s: SplitScores) => number;
  persist: () => void;
  progress: Progress;
  signal?: AbortSignal;
}

/** Budget, deadline and abort end a run cleanly; anything else is a failure. */
export function stopReason(err: unknown, signal?: AbortSignal): TrainResult['stoppedBy'] | null {
  if (isSleepError(err) && err.code === 'BUDGET_EXCEEDED') return (err.details as { limit?: string } | undefined)?.limit === 'deadline' ? 'deadline' : 'budget';
  if ((isSleepError(err) && err.code === 'ABORTED') || signal?.aborted) return 'aborted';
  return null;
}
