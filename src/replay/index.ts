/** Replay: run tasks under a skill, judge them, score a split. The trainer's entry points. */
export { rolloutBatch, rolloutBatchWithStats, type RolloutBatchInput, type BatchStats } from './batch.js';
export { scoreSkill, summarizeRollouts, rolloutScore, type GateMetric, type SkillScore } from './score.js';
export { rolloutTask, buildPerformRequest, isFatalReplayError, type SkillDoc, type RolloutTaskInput } from './rollout.js';
export { judgeResponse, exactMatch, normalizeAnswer, type Judgement } from './judge.js';
export { validateCheck, evaluateCheck, evaluateChecks, describeCheck } from '../core/checks.js';
export { RolloutCache, rolloutCacheKey, skillHash, taskFingerprint } from './cache.js';
export { summarizeReplayWorkspaces, describeReplayWorkspaces, addReplayWorkspace, emptyReplayWorkspaceSummary, type ReplayWorkspaceSummary } from './workspace-summary.js';
export { auditJudge, auditSample, MAX_JUDGE_DISAGREEMENT, type JudgeAudit } from './judge-audit.js';
