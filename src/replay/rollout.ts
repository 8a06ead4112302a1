/**
 * One rollout: the target performs the task under the skill (through `Backend.complete` only, so
 * real and simulated backends are interchangeable), then the response is judged.
 */
import type { Rollout, Task } from '../core/records.js';
import type { Backend, LlmRequest, PerformPayload, ReplaySeed } from '../core/protocol.js';
import { SleepError, errorMessage, isSleepError } from '../core/errors.js';
import { judgeResponse } from './judge.js';
import { skillHash } from './cache.js';

export interface SkillDoc {
  name: string;
  content: string;
}

export interface RolloutTaskInput {
  task: Task;
  skill: SkillDoc;
  target: Backend;
  judge?: Backend;
  sample?: number;
  signal?: AbortSignal;
  runId?: string;
  /** the repository state an agent-CLI target seeds its workspace from */
  seed?: ReplaySeed;
}

/** Errors that must stop a whole batch instead of becoming one failed rollout. */
export function isFatalReplayError(err: unknown): boolean {
  return isSleepError(err) && ['ABORTED', 'BUDGET_EXCEEDED', 'BACKEND_AUTH', 'BACKEND_UNAVAILABLE'].includes(err.code);
}

const PERFORM_SYSTEM_NATIVE = 'You are a coding agent working in a copy of the project. Do the task; reply with the finished work itself (no questions back to the user).';

export function buildPerformRequest(task: Task, skill: SkillDoc, sample: number, runId?: string, seed?: ReplaySeed): LlmRequest<'perform'> {
  const payload: PerformPayload = { intent: task.intent, context: task.context, skill, sample };
  const skillBlock = skill.content.trim() ? `## Skill: ${skill.name}\n\n${skill.content.trim()}\n` : '';
  return {
    role: 'target',
    operation: 'perform',
    system:
      'You are a coding agent working in a temporary workspace. Follow the skill below when it applies. ' +
      'Reply with the finished work itself (no questions back to the user).\n\n' +
      skillBlock,
    // agents that load skills themselves get the skill only that way (see src/llm/cli.ts)
    replay: { seed, systemWithoutSkill: PERFORM_SYSTEM_NATIVE, project: task.project },
    prompt: task.context.trim() ? `${task.intent.trim()}\n\n## Context\n${task.context.trim()}` : task.intent.trim(),
    payload,
    // several samples of one task must differ; sample 0 stays reproducible
    temperature: sample === 0 ? 0 : 0.7,
    cacheable: false,
    runId,
  };
}

/**
 * Performs and judges one task. A failing call (timeout, bad reply…) becomes a rollout with
 * `error` and score 0 so one bad task does not sink a night; fatal errors (abort, budget, auth)
 * are rethrown.
 */
export async function rolloutTask(input: RolloutTaskInput): Promise<Rollout> {
  const { task, skill, target, judge, signal, runId } = input;
  const sample = input.sample ?? 0;
  const base = {
    taskId: task.id,
    skillHash: skillHash(skill.content),
    sample,
    backend: target.name,
    model: target.model,
  };
  const started = Date.now();
  let response = '';
  let toolsCalled: string[] = [];
  let commandsRun: string[] = [];
  let tokensIn = 0;
  let tokensOut = 0;
  let costUsd = 0;
  let workspace: Rollout['workspace'];
  try {
    const reply = await target.complete(buildPerformRequest(task, skill, sample, runId, input.seed), signal);
    response = reply.text;
    toolsCalled = reply.toolsCalled ?? [];
    commandsRun = reply.commandsRun ?? [];
    tokensIn = reply.tokensIn;
    tokensOut = reply.tokensOut;
    costUsd = reply.costUsd;
    workspace = reply.workspace;
    const judged = await judgeResponse(task, response, toolsCalled, judge, { signal, runId, workspace, commandsRun });
    for (const r of judged.judgeReplies) {
      tokensIn += r.tokensIn;
      tokensOut += r.tokensOut;
      costUsd += r.costUsd;
    }
    return {
      ...base,
      response,
      toolsCalled,
      ...(commandsRun.length ? { commandsRun } : {}),
      hardScore: judged.hardScore,
      softScore: judged.softScore,
      checks: judged.checks,
      feedback: judged.feedback,
      tokensIn,
      tokensOut,
      costUsd,
      latencyMs: Date.now() - started,
      cached: false,
      ...(workspace ? { workspace } : {}),
    };
  } catch (err) {
    if (signal?.aborted) throw new SleepError('ABORTED', 'replay aborted', { cause: signal.reason });
    if (isFatalReplayError(err)) throw err;
    return {
      ...base,
      response,
      toolsCalled,
      hardScore: 0,
      softScore: 0,
      checks: [],
      feedback: '',
      tokensIn,
      tokensOut,
      costUsd,
      latencyMs: Date.now() - started,
      cached: false,
      error: errorMessage(err),
      ...(workspace ? { workspace } : {}),
    };
  }
}
