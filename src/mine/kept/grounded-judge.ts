/**
 * Judges grounded in outcomes (issue 41): each property the user's kept versions hold and the
 * agent's did not (properties.ts) becomes a check a rollout is scored by, and each procedure seen
 * in enough sessions a `ran_command` check. Checks carry `grounded` so review can cite their
 * evidence, and a description a model can act on (an imperative with an example from the kept
 * artifacts). Never byte equality with the kept text.
 */
import type { Check, KeptOutcome, Procedure } from '../../core/records.js';
import { makeCheck } from '../judge-synth.js';
import { keptProperties, MIN_AGREEING, type KeptProperty } from './properties.js';

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const EMOJI_FREE = '^(?![\\s\\S]*\\p{Extended_Pictographic})';

/** The example a description quotes: the newest kept piece, one line, short. */
const example = (p: KeptProperty) => (p.examples.find((e) => e.kept)?.kept ?? '').split('\n')[0].slice(0, 80);
const what = (p: KeptProperty) => (p.artifact === 'commit message' ? 'the commit message' : `\`${p.artifact}\``);
const seen = (p: KeptProperty) => `(kept in ${p.changed} of ${p.of} ${p.artifact === 'commit message' ? 'commits' : 'versions'}; the agent's drafts lacked it)`;

/** The check that verifies one kept property; null for a property no check expresses. */
export function checkOfProperty(p: KeptProperty): Check | null {
  const base = { grounded: 'kept' as const };
  const ex = example(p);
  switch (p.kind) {
    case 'prefix': {
      const pattern =
        p.literal === '<type>(<scope>):'
          ? '^[a-z]+\\([^)\\s]+\\)!?: '
          : p.literal.includes('(<scope>)')
            ? `^${escapeRe(p.literal.replace('(<scope>)', '').replace(/!?:$/, ''))}\\([^)\\s]+\\)!?: `
            : p.literal.includes('<n>')
              ? `^${escapeRe(p.literal).replace('<n>', '\\d+')}`
              : `^${escapeRe(p.literal.replace(/:$/, ''))}!?: `;
      return makeCheck({ ...base, op: 'regex', value: pattern, description: `Start ${what(p)}'s first line with the \`${p.literal}\` prefix, filled in with this change's own values, e.g. \`${ex}\` ${seen(p)}` });
    }
    case 'lower_subject':
      return makeCheck({
        ...base,
        op: 'regex',
        value: '^(?:[a-z][a-z-]*(?:\\([^)\\s]+\\))?!?:\\s*|\\[[^\\]]+\\]\\s*)?[a-z0-9`]',
        description: `Write ${what(p)}'s subject in lower case after any prefix, e.g. \`${ex}\` ${seen(p)}`,
      });
    case 'trailer':
      return makeCheck({ ...base, op: 'regex', value: `^${escapeRe(p.literal)} ?\\S`, flags: 'm', description: `End ${what(p)} with a \`${p.literal}\` trailer line, e.g. \`${ex}\` ${seen(p)}` });
    case 'heading': {
      const m = /^(#{1,6}) (.+)$/.exec(p.literal);
      if (!m) return null;
      return makeCheck({ ...base, op: 'regex', value: `^${m[1]}\\s+${escapeRe(m[2])}\\s*$`, flags: 'm', description: `Put a \`${p.literal}\` heading in ${what(p)} ${seen(p)}` });
    }
    case 'include':
      return makeCheck({ ...base, op: 'contains', value: p.literal, caseSensitive: true, description: `Use \`${p.literal}\` in ${what(p)}, e.g. \`${ex}\` ${seen(p)}` });
    case 'forbid':
      if (p.literal === 'emoji') return makeCheck({ ...base, op: 'regex', value: EMOJI_FREE, flags: 'u', description: `Use no emoji in ${what(p)} ${seen(p).replace("the agent's drafts lacked it", 'the agent kept adding them')}` });
      return makeCheck({ ...base, op: 'not_contains', value: p.literal, description: `Never include \`${p.literal}\` in ${what(p)} (the user deleted it in ${p.changed} of ${p.of})` });
    case 'max_chars':
      return makeCheck({ ...base, op: 'max_chars', value: p.literal, description: `Keep ${what(p)} at most ${p.literal} characters (the user cut ${p.changed} of ${p.of} drafts down to that)` });
    case 'min_chars':
      return makeCheck({ ...base, op: 'min_chars', value: p.literal, description: `Make ${what(p)} at least ${p.literal} characters (the user filled out ${p.changed} of ${p.of} drafts to that)` });
  }
}

const PURPOSE_PHRASE: Record<string, string> = { test: 'the tests ', lint: 'the linter ', typecheck: 'the type check ', format: 'the formatter ' };

/** The command check of a procedure: run the command that worked (seen in ≥ MIN_AGREEING sessions). */
export function checkOfProcedure(p: Procedure): Check | null {
  if (p.sessions < MIN_AGREEING) return null;
  const purpose = p.purpose ? (PURPOSE_PHRASE[p.purpose] ?? '') : '';
  return makeCheck({
    grounded: 'procedure',
    op: 'ran_command',
    value: p.worked,
    description: `Run ${purpose}with \`${p.worked}\`, not \`${p.failed}\` (which failed in ${p.sessions} sessions of this job)`,
  });
}

/**
 * The grounded checks of a family: from its kept outcomes and procedures. Command checks only
 * when the replay target can run commands (`targetRunsCommands`), as the heuristic judge does.
 */
export function groundedChecks(kept: KeptOutcome[], procedures: Procedure[], opts: { targetRunsCommands?: boolean } = {}): Check[] {
  const out: Check[] = [];
  const ids = new Set<string>();
  const add = (c: Check | null) => {
    if (c && !ids.has(c.id)) {
      ids.add(c.id);
      out.push(c);
    }
  };
  for (const p of keptProperties(kept)) add(checkOfProperty(p));
  if (opts.targetRunsCommands) for (const p of procedures) add(checkOfProcedure(p));
  return out;
}
