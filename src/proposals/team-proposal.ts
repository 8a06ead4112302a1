/**
 * A team proposal (issue 42) is a staged proposal like any other (a store row and its folder, so
 * `review` and `proposals list` show it beside the personal ones) plus two files in its folder:
 *   team.json         where its commit is: the repository, the new local branch, the commit and its
 *                     parent, whether it was pushed, and the pool's counts (members, sessions, tasks)
 *   pull-request.md   the pull-request body (evidence, val/audit scores beside the current skill's,
 *                     members-and-sessions counts), ready to paste or to `gh pr create --body-file`
 * Applying one means merging its branch: the product never writes the committed file itself
 * (`mergeCommandOf` is the exact command it prints).
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../core/fsutil.js';

export const TEAM_PROPOSAL_FILE = 'team.json';
export const PULL_REQUEST_FILE = 'pull-request.md';

export const TeamProposalInfoSchema = z.object({
  kind: z.literal('team'),
  /** the repository's work tree the branch lives in */
  repo: z.string(),
  repoKey: z.string(),
  branch: z.string(),
  commit: z.string(),
  /** HEAD when the branch was made (the branch is exactly one commit on top of it) */
  parent: z.string(),
  /** the file inside the repository the commit changes */
  file: z.string(),
  pushed: z.string().nullable(),
  members: z.number().int().nonnegative(),
  sessions: z.number().int().nonnegative(),
  tasks: z.number().int().nonnegative(),
});
export type TeamProposalInfo = z.infer<typeof TeamProposalInfoSchema>;

export function writeTeamProposal(dir: string, info: TeamProposalInfo, pullRequest: string): void {
  writeFileAtomic(path.join(dir, PULL_REQUEST_FILE), pullRequest, { mode: 0o600 });
  writeFileAtomic(path.join(dir, TEAM_PROPOSAL_FILE), JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
}

/** The team side of a proposal folder, or null for a personal proposal (or a team.json that does not parse). */
export function readTeamProposal(dir: string): TeamProposalInfo | null {
  let raw: string;
  try {
    raw = fs.readFileSync(path.join(dir, TEAM_PROPOSAL_FILE), 'utf8');
  } catch {
    return null;
  }
  try {
    const r = TeamProposalInfoSchema.safeParse(JSON.parse(raw));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The exact command that applies a team proposal: merging its branch (a fast-forward when HEAD has not moved). */
export function mergeCommandOf(info: Pick<TeamProposalInfo, 'repo' | 'branch'>): string {
  return `git -C ${shellQuote(info.repo)} merge ${shellQuote(info.branch)}`;
}
