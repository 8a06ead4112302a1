/**
 * Does the learned skill's description make the agent load it? On the paraphrase corpus: mine a
 * template set, describe each project's skill the way a night does (its train and validation
 * tasks, skill-description.ts), then show the simulated agent (bench/skill-loader.ts: it
 * sees only the skill's name and description beside the ask, as Claude Code's skill listing) the
 * asks of a second, hidden corpus from the same templates, made in the same projects. An ask whose
 * job is one of the project's mined families should load the skill; any other ask (another job,
 * a one-off) should not. The baseline beside it is the description mining wrote before issue 21:
 * the families' first asks, each cut at 70 characters.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../src/store/db.js';
import { defaultConfig } from '../src/core/config.js';
import { runMining } from '../src/mine/index.js';
import { MAX_DESCRIPTION_CHARS, skillDescriptionOfTasks } from '../src/mine/skill-description.js';
import { listTasks } from '../src/store/repos/tasks.js';
import { clusterAssignments } from '../src/store/repos/mining.js';
import { simLoadsSkill } from './skill-loader.js';
import { insertCorpus } from './mine-corpus.js';
import { generateParaphraseCorpus, type ParaphraseCorpus, type TemplateSet } from './mine-paraphrase.js';

export interface SkillLoadScores {
  /** hidden asks of a job the project's skill covers, and how many loaded it */
  covered: number;
  coveredLoaded: number;
  /** hidden asks of any other job or a one-off, and how many loaded it anyway */
  other: number;
  otherLoaded: number;
  /** the same with the pre-issue-21 description */
  baselineCoveredLoaded: number;
  baselineOtherLoaded: number;
  /** longest description written (the convention caps it at MAX_DESCRIPTION_CHARS) */
  longestDescription: number;
}

/** The description before issue 21: "Use when asked to: " and each family's first ask cut at 70 characters. */
export function cutAsksDescription(tasks: Array<{ id: string; family?: string | null; intent: string }>): string {
  const firsts = new Map<string, string>();
  for (const t of tasks) if (!firsts.has(t.family ?? t.id)) firsts.set(t.family ?? t.id, t.intent);
  const cut = [...firsts.values()].map((s) => (s.length > 70 ? `${s.slice(0, 69)}…` : s));
  return `Use when asked to: ${cut.join('; ')}`.slice(0, MAX_DESCRIPTION_CHARS);
}

const promptsOf = (corpus: ParaphraseCorpus): Map<string, string> => {
  const out = new Map<string, string>();
  for (const s of corpus.sessions) for (const e of s.events) if (e.kind === 'prompt') out.set(`${s.id}#${e.seq}`, e.text);
  return out;
};

export async function skillLoading(templates: TemplateSet, seed: number): Promise<SkillLoadScores> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-mine-load-'));
  try {
    const db = openDb(path.join(dir, 'sleep.db'));
    const corpus = generateParaphraseCorpus({ templates, sessions: 300, seed });
    insertCorpus(db, corpus, Date.UTC(2026, 10, 1));
    await runMining(db, defaultConfig(), { now: Date.UTC(2026, 10, 1) });
    // which job each mined family is (the label most of its asks carry), to know what a skill covers
    const labelsOf = new Map<string, Map<string, number>>();
    for (const a of clusterAssignments(db)) {
      const label = corpus.labels.get(`${a.sessionId}#${a.seq}`);
      if (!label) continue;
      const m = labelsOf.get(a.clusterId) ?? new Map<string, number>();
      m.set(label, (m.get(label) ?? 0) + 1);
      labelsOf.set(a.clusterId, m);
    }
    const jobOfFamily = (id: string) => [...(labelsOf.get(id) ?? new Map<string, number>()).entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    const tasks = listTasks(db, { status: 'active' }).filter((t) => t.split !== 'test' && t.project !== null);
    db.close();

    const skills = new Map<string, { description: string; baseline: string; jobs: Set<string> }>();
    for (const project of new Set(tasks.map((t) => t.project as string))) {
      const own = tasks.filter((t) => t.project === project);
      const jobs = new Set(own.map((t) => (t.family ? jobOfFamily(t.family) : undefined)).filter((j): j is string => !!j));
      skills.set(project, { description: skillDescriptionOfTasks(project, own), baseline: cutAsksDescription(own), jobs });
    }
    const hidden = generateParaphraseCorpus({ templates, sessions: 120, seed: seed + 1000, idPrefix: 'hidden' });
    const prompts = promptsOf(hidden);
    const out: SkillLoadScores = { covered: 0, coveredLoaded: 0, other: 0, otherLoaded: 0, baselineCoveredLoaded: 0, baselineOtherLoaded: 0, longestDescription: 0 };
    for (const s of skills.values()) out.longestDescription = Math.max(out.longestDescription, s.description.length);
    for (const [key, label] of hidden.labels) {
      const project = hidden.projects.get(key.slice(0, key.lastIndexOf('#')));
      const skill = project ? skills.get(project) : undefined;
      const ask = prompts.get(key);
      if (!skill || !ask) continue;
      const name = `${path.basename(project!)}-recurring`;
      const loads = simLoadsSkill({ name, description: skill.description }, ask);
      const baseline = simLoadsSkill({ name, description: skill.baseline }, ask);
      if (skill.jobs.has(label)) {
        out.covered++;
        if (loads) out.coveredLoaded++;
        if (baseline) out.baselineCoveredLoaded++;
      } else {
        out.other++;
        if (loads) out.otherLoaded++;
        if (baseline) out.baselineOtherLoaded++;
      }
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
