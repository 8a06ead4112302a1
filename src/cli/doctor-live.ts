/**
 * `doctor --live`: one minimal real call per configured role, so "ok" means a model answered, not
 * only that a key or a binary is present. Each role gets a tiny request of its own kind (the
 * target performs a one-line task, the others return a one-field JSON verdict) and the check says
 * which backend/model answered and how fast, or the error with its hint.
 */
import type { Backend, Role } from '../core/protocol.js';
import { JudgeRubricReply } from '../core/protocol.js';
import type { Config } from '../core/config.js';
import { errorMessage, isSleepError } from '../core/errors.js';
import { completeJson } from '../llm/json.js';
import { createRoleBackends } from '../llm/registry.js';
import type { DoctorCheck } from '../core/doctor.js';

async function probeRole(role: Role, backend: Backend): Promise<DoctorCheck> {
  const name = `live:${role}`;
  const t0 = Date.now();
  try {
    if (role === 'target') {
      const reply = await backend.complete({
        role,
        operation: 'perform',
        prompt: 'Reply with the single word OK.',
        payload: {
          intent: 'Reply with the single word OK.',
          context: '',
          skill: { name: 'doctor', content: '' },
          sample: 0,
        },
        maxTokens: 16,
      });
      if (reply.text.trim() === '') throw new Error('empty reply');
    } else {
      await completeJson(
        backend,
        { role, operation: 'judge_rubric', prompt: 'Grade the response against the rubric. Reply with JSON {"score": number between 0 and 1, "feedback": string}.\nRubric: says OK\nResponse: OK', payload: { rubric: 'says OK', intent: 'say OK', response: 'OK' }, maxTokens: 64 },
        JudgeRubricReply,
      );
    }
    return { name, status: 'ok', detail: `${backend.name}/${backend.model} answered in ${Date.now() - t0} ms` };
  } catch (err) {
    return { name, status: 'fail', detail: `${backend.name}/${backend.model}: ${errorMessage(err)}`, fix: (isSleepError(err) && err.hint) || 'check the role in config (roles.<role>.backend / model) and the backend credentials' };
  }
}

/** One check per role; a role that shares another's backend and model is called once. */
export async function liveChecks(config: Config, env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  let backends;
  try {
    backends = createRoleBackends(config, { env, simAllowed: Object.values(config.roles).some((r) => r.backend === 'sim') });
  } catch (err) {
    return [{ name: 'live', status: 'fail', detail: errorMessage(err), fix: (isSleepError(err) && err.hint) || 'see the backend checks above' }];
  }
  const out: DoctorCheck[] = [];
  for (const role of ['target', 'optimizer', 'judge', 'miner'] as const) {
    const b = backends[role];
    if (b) out.push(await probeRole(role, b));
  }
  return out;
}
