/**
 * The configuration schema: one zod schema is the source of truth for every key, its type, its one
 * default and its description. Nested objects use `.prefault({})` (zod 4): a missing object is
 * parsed as `{}`, so each field's own `.default()` applies and no default is written twice. The JSON
 * Schema file (schema/config.schema.json), `config show` and docs/CONFIG.md (`config doc`) all come from it;
 * reading the file and the env overlay are the loader's job (config.ts).
 */
import { z } from 'zod';
import { GateMetric } from './scoring.js';

export const BackendName = z.enum(['auto', 'claude', 'codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'openai', 'anthropic', 'sim']);
export type BackendName = z.infer<typeof BackendName>;

/** An agent harvested from its auto-discovered homes plus extra `roots` (Copilot, with two kinds of home, is spelled out). */
function harvestedAgent(transcripts: string, rootsHelp: string) {
  return z
    .object({
      enabled: z.boolean().default(true).describe(`Harvest ${transcripts}.`),
      roots: z.array(z.string()).default([]).describe(rootsHelp),
    })
    .strict()
    .prefault({});
}

const RoleConfig = z
  .object({
    backend: BackendName.default('auto').describe('Backend for this role; auto = detect (the agent CLIs on PATH, ANTHROPIC_API_KEY, OPENAI_API_KEY).'),
    model: z.string().optional().describe('Model name for this role; the backend default when unset.'),
  })
  .strict();

export const ConfigSchema = z
  .object({
    $schema: z.string().optional().describe('Path or URL of the JSON Schema, for editors.'),
    agents: z
      .object({
        claudeCode: harvestedAgent('Claude Code transcripts', 'Extra Claude config dirs (like CLAUDE_CONFIG_DIR); empty = auto-discover.'),
        codex: harvestedAgent('Codex transcripts', 'Extra Codex homes (like CODEX_HOME); empty = auto-discover.'),
        copilot: z
          .object({
            enabled: z.boolean().default(true).describe('Harvest GitHub Copilot (VS Code chat and Copilot CLI) transcripts.'),
            vscodeUserDirs: z.array(z.string()).default([]).describe('Extra VS Code `User/` dirs; empty = auto-discover stable/Insiders/VSCodium/portable.'),
            cliRoots: z.array(z.string()).default([]).describe('Extra Copilot CLI homes (like COPILOT_HOME); empty = auto-discover.'),
          })
          .strict()
          .prefault({}),
        gemini: harvestedAgent('Gemini CLI chats', 'Extra Gemini CLI folders (like $GEMINI_CLI_HOME/.gemini); empty = auto-discover.'),
        pi: harvestedAgent('Pi sessions', 'Extra Pi agent folders (like $PI_CODING_AGENT_DIR, ~/.pi/agent); empty = auto-discover.'),
        cursor: harvestedAgent('Cursor Agent transcripts', 'Extra Cursor folders (like CURSOR_CONFIG_DIR, holding projects/); empty = auto-discover.'),
        opencode: harvestedAgent('OpenCode sessions (opencode.db)', 'Extra OpenCode data folders or opencode.db files (like OPENCODE_DB); empty = auto-discover.'),
        antigravity: harvestedAgent('Antigravity CLI transcripts (brain/*/transcript.jsonl)', 'Extra Antigravity CLI folders (like ~/.gemini/antigravity-cli, holding brain/); empty = auto-discover.'),
      })
      .strict()
      .prefault({}),
    roles: z
      .object({
        target: RoleConfig.prefault({}).describe('The agent that performs tasks under the skill.'),
        optimizer: RoleConfig.prefault({}).describe('Reflects on rollouts and proposes edits.'),
        judge: RoleConfig.prefault({}).describe('Grades rubric judges.'),
        miner: RoleConfig.prefault({}).describe('Optional: writes better task intents and judges.'),
      })
      .strict()
      .prefault({}),
    backends: z
      .object({
        openai: z
          .object({
            baseURL: z.string().optional().describe('OpenAI-compatible base URL (Ollama, vLLM, DeepSeek...).'),
            apiKeyEnv: z.string().default('OPENAI_API_KEY').describe('Env var holding the API key.'),
            model: z.string().default('gpt-5-mini').describe('Default model.'),
            azureEndpoint: z.string().optional().describe('Azure OpenAI endpoint; enables the Azure client.'),
            azureApiVersion: z.string().optional().describe('Azure OpenAI api-version.'),
          })
          .strict()
          .prefault({}),
        anthropic: z
          .object({
            baseURL: z.string().optional().describe('Anthropic API base URL.'),
            apiKeyEnv: z.string().default('ANTHROPIC_API_KEY').describe('Env var holding the API key.'),
            model: z.string().default('claude-sonnet-4-6').describe('Default model.'),
          })
          .strict()
          .prefault({}),
        concurrency: z.number().int().min(1).max(64).default(4).describe('Max concurrent calls per backend.'),
        timeoutMs: z.number().int().min(1000).default(180_000).describe('Per-call timeout.'),
        maxRetries: z.number().int().min(0).max(10).default(4).describe('Retries on 429/5xx/timeouts.'),
        sim: z
          .object({
            seed: z.number().int().default(7).describe('Seed of the simulated backend.'),
            latencyMs: z.number().int().min(0).default(0).describe('Simulated latency per call.'),
            harmfulEditRate: z.number().min(0).max(1).default(0.1).describe('Sim optimizer: share of proposed edits that hurt (exercises the gate).'),
            irrelevantEditRate: z.number().min(0).max(1).default(0.1).describe('Sim optimizer: share of proposed edits that do nothing.'),
            malformedJsonRate: z.number().min(0).max(1).default(0.05).describe('Sim optimizer: share of replies that are not valid JSON (exercises repair).'),
            judgeWrongRate: z.number().min(0).max(1).optional().describe('Sim judge: share of rubric grades that are valid JSON but wrong (exercises the judge audit); default 0.'),
            replayOverheadTokens: z
              .number()
              .int()
              .min(0)
              .optional()
              .describe("Sim target: prompt tokens each replay reports beyond what was sent, as an agent CLI's own system prompt and tools would (benchmarks price a night as the `claude` CLI would); default 0."),
            callOverheadTokens: z
              .number()
              .int()
              .min(0)
              .optional()
              .describe('Sim optimizer, judge and miner: prompt tokens each call reports beyond what was sent (as replayOverheadTokens, for the calls that replay nothing); default 0.'),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    schedule: z
      .object({
        cron: z.string().default('0 3 * * *').describe('When the night runs (cron expression).'),
        timezone: z.string().optional().describe('IANA timezone of the cron expression; local when unset.'),
        catchUp: z.boolean().default(true).describe('Run a missed night at start/wake when the last one is older than 24 h.'),
      })
      .strict()
      .prefault({}),
    budget: z
      .object({
        maxUsd: z.number().min(0).default(2).describe('Max API dollars per night.'),
        maxTokens: z.number().int().min(0).default(2_000_000).describe('Max tokens per night.'),
        maxCalls: z.number().int().min(0).default(400).describe('Max model calls per night.'),
        maxTasks: z.number().int().min(1).default(60).describe('Max tasks used per night.'),
        deadline: z
          .string()
          .regex(/^([01]\d|2[0-3]):[0-5]\d$/)
          .default('07:00')
          .describe('Local time the night must be done by (HH:MM).'),
      })
      .strict()
      .prefault({}),
    training: z
      .object({
        epochs: z.number().int().min(1).default(2).describe('Passes over the train split per night.'),
        batchSize: z.number().int().min(1).default(8).describe('Train tasks rolled out per step.'),
        lr: z.number().int().min(1).default(4).describe('Textual learning rate: max edits per step.'),
        lrSchedule: z.enum(['constant', 'linear', 'cosine', 'autonomous']).default('cosine').describe('How the edit budget changes over steps; autonomous = the optimizer chooses within bounds.'),
        minLr: z.number().int().min(1).default(1).describe('Smallest edit budget a schedule decays to.'),
        gateMetric: GateMetric.default('soft').describe('Validation metric the gate compares: hard = all checks pass, soft = share of checks, mixed = both.'),
        noRegression: z.boolean().default(false).describe('Reject candidates that lower any validation task.'),
        margin: z.number().min(0).default(0).describe('Minimum validation improvement to accept.'),
        minValTasks: z.number().int().min(1).default(3).describe('Below this many validation tasks a night stages nothing.'),
        skillTokenBudget: z.number().int().min(100).default(1200).describe("The wording lint's budget per staged skill, in tokens (~4 characters each): past it the staging guard leaves the night's last new rules out. 1200 sits in the 300–2,000 tokens of hand-written skills (an assumption, not a measurement)."),
        maxJudgeDisagreement: z.number().min(0).max(1).default(0.2).describe("The judge's audit before a night trains a skill: past this share of disagreeing re-grades (or grades against the tasks' rule checks) nothing is trained or staged for it; 1 = never refuse."),
        fullDocument: z.boolean().default(false).describe('Allow edits outside the learned region of hand-written skills.'),
        seed: z.number().int().default(1).describe('Seed for batch order and split hashing (reproducible runs).'),
        rescue: z.boolean().default(true).describe('When a multi-edit candidate is rejected, score its edits alone and keep those that help (gated).'),
        prune: z.boolean().default(true).describe('At the end of a run, drop accepted edits whose removal raises validation (gated).'),
        simplify: z.boolean().default(true).describe('At the end of a run, drop accepted edits with no measurable effect on validation.'),
        attributionMaxEdits: z
          .number()
          .int()
          .min(0)
          .default(12)
          .describe('Accepted edits scored leave-one-out at the end of a run (only these can be pruned or simplified); 0 = none.'),
      })
      .strict()
      .prefault({}),
    mining: z
      .object({
        minSessions: z.number().int().min(1).default(2).describe('A cluster is recurring when seen in at least this many sessions.'),
        threshold: z.number().min(0).max(1).default(0.5).describe('Similarity threshold for clustering prompts.'),
        useLlm: z.boolean().default(false).describe('Use the miner role to write intents and judges.'),
        outcomeEvidence: z
          .boolean()
          .default(true)
          .describe(
            "Mine outcome evidence: what you kept of the agent's work (the commit message that landed, each file it wrote as next committed, read-only from the project's git history) and the commands that failed before another worked; they ground the judges' checks. Off: tasks carry neither.",
          ),
      })
      .strict()
      .prefault({}),
    privacy: z
      .object({
        excludeProjects: z
          .array(z.string())
          .default([])
          .describe('Projects whose sessions are never stored: globs matched against the project path (`~/work/client-*`, `**/secret`) or, without a slash, its folder name; a folder inside a match is excluded too.'),
      })
      .strict()
      .prefault({}),
    harvest: z
      .object({
        maxLineBytes: z.number().int().min(1024).default(8 * 1024 * 1024).describe('Lines longer than this are skipped unread.'),
      })
      .strict()
      .prefault({}),
    replay: z
      .object({
        seedWorkspace: z.boolean().default(true).describe("Start each agent-CLI replay from the user's repository at the commit before the original session (read from git's object store; nothing is written back)."),
        seedMaxFiles: z.number().int().min(1).default(200_000).describe('A commit with more files than this is not checked out (empty workspace, said in the report).'),
        seedMaxMb: z.number().min(1).default(512).describe('A commit larger than this (MB of files) is not checked out.'),
        skillDelivery: z
          .enum(['native', 'system-prompt'])
          .default('native')
          .describe('native = the skill reaches the agent only through its own skills folder or instructions file; system-prompt = in our system prompt (backends without skills).'),
        isolateAgentHomes: z.boolean().default(true).describe("Run agent CLIs with a private config home per replay (no transcripts, counters or state in the user's agent); the login is carried over."),
        outcomeCommands: z
          .record(
            z.string(),
            z
              .object({
                command: z.string().min(1).describe('Shell command run in the workspace after the agent (e.g. `npm run lint`); exit code 0 passes.'),
                timeoutMs: z.number().int().min(1000).default(120_000).describe('The command is killed and fails after this long.'),
                weight: z.number().positive().default(1).describe('Weight of the outcome check among the task checks.'),
              })
              .strict(),
          )
          .default({})
          .describe('Opt-in outcome checks, by project root: the command runs in the replay workspace with no network and its exit code is scored.'),
      })
      .strict()
      .prefault({}),
    autoApply: z.boolean().default(false).describe('Apply a proposal automatically when its gate passed and its held-out test score rose.'),
    backups: z
      .object({
        keep: z.number().int().min(1).max(100).default(7).describe('Online backups of the database kept in the state folder (one after each night and one a day by the daemon); `doctor --repair` restores from the newest.'),
      })
      .strict()
      .prefault({}),
    log: z
      .object({
        level: z.enum(['trace', 'debug', 'info', 'warn', 'error']).default('info').describe('Log level of the daemon and night logs.'),
        maxSizeMb: z.number().min(1).default(10).describe('Rotate a log file at this size.'),
        keep: z.number().int().min(1).default(5).describe('Rotated log files kept.'),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;

export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}
