/**
 * Evidence and outcome of each ask: what the agent did (tools, errors, final answer) and how the
 * user reacted in the next turn. A reaction prompt ("no, use pnpm", "still failing", "thanks") is
 * evidence about the previous ask, not a new ask, so it is attached to it instead of being clustered.
 * Corrections and refinements are kept verbatim: they are the user's preferences.
 */
import { keyOf, normalizePrompt, stripEnvelopes, type NormalizedPrompt } from './normalize.js';
import { matchConcepts } from './vocabulary.js';
import { contentWords, isWeakWord, stem } from './features.js';
import { verifyKindsOfCall, type VerifyKind } from '../core/tool-kinds.js';
import { addWorkSigns, workSignsOfCall } from './work.js';
import { ArtifactCollector, type AgentArtifacts } from './kept/artifacts.js';

export type ReactionKind = 'correction' | 'refinement' | 'retry' | 'interruption' | 'praise' | 'next_task';

export interface Reaction {
  kind: ReactionKind;
  text?: string;
  seq?: number;
}

export type OutcomeLabel = 'success' | 'corrected' | 'failed' | 'unknown';

export interface Outcome {
  tools: string[];
  toolErrors: number;
  final: string; // head of the last final assistant text of the ask
  reactions: Reaction[];
  label: OutcomeLabel;
  /** first code block the user pasted with the ask (minimal context for the task) */
  code?: string;
  /** skills the ask's turn invoked (`skillsOf`), in order; absent when none (or mined before they were recorded) */
  skills?: string[];
  /** kinds of verifying commands (tests, linter…) a command tool ran in the ask's turn; absent when none (or mined before they were recorded) */
  verified?: VerifyKind[];
  /** what the agent did in the ask's turn, as work signs (work.ts: "wrote CHANGELOG.md", "ran git commit"); absent when nothing (or mined before they were recorded) */
  work?: string[];
  /** what the agent produced in the ask's turn: files written, the commit message, commands run and whether they failed (kept/artifacts.ts); absent when nothing (or mined before they were recorded) */
  artifacts?: AgentArtifacts;
}

export interface MinedEvent {
  seq: number;
  ts: number | null;
  role: string;
  kind: string;
  toolName: string | null;
  isError: boolean;
  text: string;
  meta: Record<string, unknown>;
}

export interface IntentPrompt {
  seq: number;
  ts: number | null;
  text: string;
  norm: NormalizedPrompt;
  outcome: Outcome;
}

/** A reaction is short; a long message is a new ask even if it starts with "no". */
const MAX_REACTION_CHARS = 400;
const MAX_PRAISE_CHARS = 140;

const CORRECTION_RES = [
  /^(no|nope|nah|wrong|incorrect)\b/,
  /^not (quite|right|what|like|that|this)\b/,
  /^(that'?s|that is|this is|it'?s|it is|those are|you'?re) (not|wrong|still|broken|incorrect|missing)\b/,
  /^still\b/,
  /^(actually|instead|hmm,? no)\b/,
  /^(you|u) (forgot|missed|didn'?t|did not|should|need to|have to|broke|ignored)\b/,
  /^(don'?t|do not|never|stop|avoid|remove|drop)\b/,
  /^(use|prefer|switch to)\b/,
  /^(it|that|this) (should|needs? to|must|has to)\b/,
  /^(fix|redo|undo|revert) (it|that|this)\b/,
  /^why (did|are|is|would) (you|it|this|that)\b/,
  /^(wrong|bad) (format|style|file|output)\b/,
  /\b(still (fail|broken|wrong|red|not)|doesn'?t (work|compile|pass)|didn'?t (work|pass|compile)|not working|is failing)\b/,
];
const REFINEMENT_RES = [
  /^(put|place|move) (it|them|that|this|those) (under|in|into|at|before|after|below|above)\b/,
  /^(link|cite|reference|mention) (the|a|an|it|to)\b/,
  /^(group|sort|order) (them|it|the \w+) by\b/,
  /^(shorter|longer|simpler|smaller|more|less|fewer)\b/,
  /^(group|sort|split|merge|order|rename|move) (them|it|those|these)\b/,
  /^(add|include|put|mention) (a|an|the) [\w -]{1,30} (section|heading|note|line|entry|link|number)( too| as well)?[.!]*$/,
  /^(make|keep) (it|them|sure)\b/,
  /^(additionally)\b/, /^(can|could) you (make it|keep)\b/, /^(and|but) (make|use|keep|link|add)\b/,
  // how the answer should be shaped: "start with a ## Highlights section", "end it with the upgrade steps"
  /^(start|begin|open|lead|end|finish|close) (it |them |each one |each entry |(?:the|each|every) \w+ )?(off )?with\b/,
  // an instruction about what the agent just produced: "wrap them in a describe block", "turn it into a table"
  // (a question "is it possible to …", "what does it do" is not an instruction about the answer)
  /^(?!(is|are|was|were|can|could|would|should|will|do|does|did|what|why|how|where|when|which|who|whats|what's)\b)(\w+ ){1,2}(it|them|those|these|each of them|all of them)( \w+)?( in| into| under| as| with| by| to| after| before| at)\b/,
  /^(?!(is|are|was|were|can|could|would|should|will|do|does|did|what|why|how|where|when|which|who)\b)(\w+ ){1,2}(them|those)\b/,
];
const PRAISE_RES = [
  /^(thanks|thank you|thx|ty|cheers|great|perfect|awesome|nice|cool|excellent|amazing|brilliant|lgtm|sweet)\b/,
  /^(looks|look) (good|great|right|fine)\b/,
  /^(good|great|nice) (job|work|stuff)\b/,
  /^(well done|exactly|yes,? (that'?s|exactly|perfect)|that (works|worked|did it)|it works|works( now)?\b)/,
];
const INTERRUPT_RES = [/^\[request interrupted by user/i, /<turn_aborted>/i, /the user doesn't want to proceed with this tool use/i];

export function isInterruption(text: string, meta: Record<string, unknown> = {}): boolean {
  return meta.interrupted === true || meta.aborted === true || INTERRUPT_RES.some((r) => r.test(text.trim()));
}

/**
 * What a reaction is compared with: the previous ask, as text, as its word set, or as a full
 * context (`askContext`) with the artefact it named and the code objects it mentioned.
 */
export type PreviousAsk = string | Set<string> | AskContext;

export interface AskContext {
  words: Set<string>;
  /** the artefact the ask named (vocabulary.ts), if any */
  artefact: string | null;
  /** paths, file names and code identifiers the ask mentioned */
  objects: Set<string>;
}

/** Context of an ask for classifying what the user says next. */
export function askContext(text: string, key = keyOf(text)): AskContext {
  const m = matchConcepts(key);
  return { words: new Set(contentWords(key)), artefact: m.strong ? m.artefacts[0] : null, objects: codeObjects(text) };
}

const toContext = (p: PreviousAsk): AskContext =>
  typeof p === 'string' ? askContext(p) : p instanceof Set ? { words: p, artefact: null, objects: new Set() } : p;

// "a Testing section", "the Highlights heading": a part of the answer, not an artefact to produce
// (a section's name may be written as markdown, in backticks or quotes: "a `## Testing` section")
const SECTION_NAME_RE = /\b(?:a|an|the|its|their)\s+(?:[\w#`'".[\]-]+\s+){1,4}(?:section|heading|header|paragraph|subsection|footer|block|column|line|bullet)s?\b/gi;

const SECTION_HINT_RE = /section|heading|header|paragraph|footer|block|column|line|bullet/i;

/**
 * The artefact an ask names as its job (strong phrases only), section names aside, and whether it
 * names a job's product at all (a weak phrase counts: "bump zod"; a part of the work does not:
 * "the lockfile").
 */
function jobArtefact(text: string): { artefact: string | null; namesJob: boolean } {
  const m = matchConcepts(keyOf(SECTION_HINT_RE.test(text) ? text.replace(SECTION_NAME_RE, ' ') : text));
  return { artefact: m.strong ? m.artefacts[0] : null, namesJob: m.products.length > 0 || (!m.strong && m.artefacts.length > 0) };
}

/** Paths, file names and code identifiers (what a new request points at), lower-cased. */
function codeObjects(text: string): Set<string> {
  const out = new Set<string>();
  // globs (*.test.ts) and placeholders (vX.Y.Z) name a convention, not a file or an identifier
  const t = text.replace(/\*\.[\w.]+/g, ' ').replace(/\bv?X\.Y(?:\.Z)?\b/g, ' ');
  for (const m of t.matchAll(/(?:[\w.@~-]*\/)+[\w.@-]+|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|go|rs|rb|java|kt|md|json|ya?ml|toml|sql|css|html|sh)\b/g)) out.add(m[0].toLowerCase());
  for (const m of t.matchAll(/\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b|\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b/g)) out.add(m[0].toLowerCase());
  return out;
}

const SECTION_ADD_RE = /^(?:add|include|insert|put|start with|end with|lead with) (?:a|an|the) (?:[\w#`'"[\]-]+ ){1,3}(?:section|heading|header|paragraph|subsection|footer|table|list|summary|note)s?\b/;
/** "state the risk level in a `## Risk` section": content placed in a part of the answer. */
const IN_SECTION_RE = /\b(?:in|under|into|to) (?:a|an|the|its) (?:[\w#`'"[\]-]+ ){1,3}(?:section|heading|subsection|footer)\b/;
/**
 * An instruction about parts of the answer just given, named with a definite article: "wrap the
 * cases in a describe block", "cover the variants with it.each", "start the notes with …".
 */
const ANSWER_PART_RE =
  /^(?:\w+ ){1,2}(?:the|each|every|all(?: the)?) (?:cases?|variants?|tests?|entr(?:y|ies)|items?|lines?|bullets?|notes?|messages?|description|title|summary|output|answer|reply|code|examples?|sections?|headings?|paragraphs?)\b/;
/** Politeness before a reaction: "please no emojis", "ok, no emojis". */
const COURTESY_RE = /^(?:please|pls|plz|ok(?:ay)?|hmm+|oh|ah|and please|but please)[\s,:!.-]+/;

/** A restated constraint on the answer: what it must, should, may not or at most be. */
const CONSTRAINT_RE =
  /\b(must|should|shall|needs? (?:a|an|to|the|more|less|its|their)|has to|have to|at (?:most|least)|no (?:more|longer|shorter|fewer) than|not (?:more|longer|shorter) than|(?:under|below|over|above|within|max(?:imum)?|min(?:imum)?) \d+|too (?:long|short|thin|thick|verbose|wordy|terse|vague|generic|much|little|many|few|big|small|formal|casual)|always|never|only|not allowed|is (?:missing|wrong|incorrect)|are (?:missing|wrong|incorrect)|rather than|instead)\b/;
/** One thing set against another: "…, not the tests", "use X rather than Y". */
const CONTRAST_RE = /,\s*(?:and )?not\b|\bnot (?:the |a |an |in |on )?[\w.-]+[.!]*$|\brather than\b/;
/** A new request in the same session: "now …", "next …", "also write …", "… too". */
const FOLLOW_UP_RE = /^(?:(?:ok|okay|alright|great|cool)[\s,]+)?(?:now|next|then|and then|also|and also|plus|after that|while you'?re at it|while you are at it|can you also|could you also)\b|\b(?:too|as well)[.!?]*$/;
/** How a request starts: a verb addressed to the agent, or "can you / I need / we need". */
const REQUEST_START_RE =
  /^(?:(?:ok|okay|so|please|pls|now|next|then|and|also)[\s,:]+)*(?:write|add|create|draft|compose|generate|prepare|fix|update|upgrade|bump|make|build|implement|refactor|rename|move|split|extract|delete|remove|run|cut|publish|release|tag|ship|migrate|document|explain|investigate|debug|diagnose|review|summari[sz]e|describe|fill|give|suggest|find|figure|check|test|cover|lint|format|convert|port|set up|setup|install|handle|support|sketch|outline|compare|brainstorm|estimate|critique|prototype|evaluate|assess|analy[sz]e|plan|design|propose|research|list|show|tell|translate|optimi[sz]e|profile|benchmark|audit|can you|could you|would you|will you|can we|could we|i need|we need|i want|i'?d like|let'?s|help)\b/;
const NOUN_PHRASE_START_RE = /^(?:release|test|commit|document|format|lint|build|review|tag|fix|cover|check)\s+(?:notes?|messages?|cases?|files?|docs?|suites?|entr(?:y|ies)|results?|output|lines?|tags?|coverage)\b/;
/** A follow-up that starts new code work on a file or identifier ("also fix the null handling in src/x.ts"): a new ask. */
const NEW_WORK_RE = /^(?:(?:ok|okay|now|next|then|also|and also|and|plus)[\s,]+)+(?:fix|refactor|rename|move|delete|remove|implement|migrate|bump|upgrade|debug|investigate|handle|support|port|optimi[sz]e|speed up)\b/;
const QUESTION_RE = /\?\s*$|^(?:is|are|was|were|can|could|would|should|will|do|does|did|what|whats|what'?s|why|how|where|when|which|who)\b/;

/**
 * Classifies what the user says right after an answer, relative to the ask it answers; null = a
 * new ask. A correction is the user's reaction to that answer: a negation ("no", "still", "wrong"),
 * or a restated constraint on it, whatever its words ("keep commit messages at most 500
 * characters", "the title line must be …"). A new request in the same session is an ask, even
 * when it ends in "too" ("fix the null handling in src/cli/add.ts too"): it points at a new file
 * or code object, or names another job's artefact.
 */
export function classifyReaction(clean: string, previous: PreviousAsk | null): ReactionKind | null {
  const t = clean.trim().toLowerCase();
  if (!t) return null;
  if (t.length <= MAX_PRAISE_CHARS && PRAISE_RES.some((r) => r.test(t))) {
    // "thanks, but the date is wrong" is a correction, not praise
    const rest = t.replace(PRAISE_RES.find((r) => r.test(t))!, '').replace(/^[\s,.!-]+/, '');
    if (!/^(but|however|though)\b/.test(rest)) return 'praise';
    return 'correction';
  }
  if (t.length > MAX_REACTION_CHARS || previous === null) return null;
  const prev = toContext(previous);
  if (isRetry(t, prev.words)) return 'retry';
  if (CORRECTION_RES.some((r) => r.test(t) || r.test(t.replace(COURTESY_RE, '')))) return 'correction';
  const objects = codeObjects(clean);
  const newObject = [...objects].some((o) => !prev.objects.has(o));
  const { artefact, namesJob } = jobArtefact(clean);
  const newArtefact = artefact !== null && artefact !== prev.artefact;
  // "release notes need …", "test cases must …": a verb that starts a noun phrase is the subject, not a request
  const request = (REQUEST_START_RE.test(t) && !NOUN_PHRASE_START_RE.test(t)) || /^(?:we|i|you)\b/.test(t);
  // a constraint stated about the answer ("commit messages need a type prefix", "column names must be snake_case")
  if (CONSTRAINT_RE.test(t) && !request && !QUESTION_RE.test(t)) return 'correction';
  // "the cache step failed, not the tests", "past tense, not present": one thing set against another
  if (CONTRAST_RE.test(t) && !request && !newObject && !QUESTION_RE.test(t)) return 'correction';
  if (newObject) return null;
  if (objects.size > 0 && NEW_WORK_RE.test(t)) return null;
  // "ok now the commit message", "then add it to the changelog": another instance of a job is a
  // new ask, even of the same job; "also update the lockfile" (a part of the work) refines the answer
  if (FOLLOW_UP_RE.test(t)) return newArtefact || namesJob ? null : 'refinement';
  if (newArtefact) return null;
  if (REFINEMENT_RES.some((r) => r.test(t))) return 'refinement';
  // a part added to the answer ("add a Highlights section for the top features"), unless it names its own target document
  if (artefact === null && SECTION_ADD_RE.test(t)) return 'refinement';
  if (QUESTION_RE.test(t)) return null;
  // content for a part of the answer, or an instruction about the answer's parts (no new object, no other job)
  if (IN_SECTION_RE.test(t) || ANSWER_PART_RE.test(t)) return 'refinement';
  if (CONSTRAINT_RE.test(t) && !/^(?:can|could|would|will) you\b|^(?:i|we) (?:need|want)\b/.test(t)) return 'correction';
  // a statement about the same artefact, not a request ("tests go next to the source file")
  if (artefact !== null && artefact === prev.artefact && !request) return 'correction';
  // said right after the answer, naming nothing new and asking for nothing: a reaction to that
  // answer ("pin the exact version", "highlights go at the top", "one expect per case")
  // ("continue", "go on": too little said to be either, the caller drops it as trivial)
  // (a question anywhere, or a request verb of any kind first — "visualize …", "simulate …" — is a new ask)
  if (!request && !namesJob && !t.includes('?') && !startsWithRequestVerb(t) && words(t) <= MAX_BARE_REACTION_WORDS && contentWords(keyOf(t)).length >= 2) return 'correction';
  return null;
}

/** The first word (after "ok so", "please") is one of the request verbs mining knows (features.ts WEAK_WORDS). */
function startsWithRequestVerb(t: string): boolean {
  const first = t.replace(/^(?:(?:ok|okay|so|please|pls|now|then|and)[\s,:]+)*/, '').split(/[^\w-]+/, 1)[0] ?? '';
  return first.length > 2 && isWeakWord(stem(first));
}

/** A bare statement longer than this is taken for a new topic (a problem report), not a reaction. */
const MAX_BARE_REACTION_WORDS = 12;
const words = (t: string) => t.split(/\s+/).filter(Boolean).length;

/** Asking the same thing again (word overlap ≥ 0.7) means the first attempt did not satisfy. */
export function isRetry(text: string, previous: string | Set<string>): boolean {
  const a = new Set(contentWords(text));
  const b = typeof previous === 'string' ? new Set(contentWords(previous)) : previous;
  if (a.size < 2 || b.size < 2) return false;
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / (a.size + b.size - inter) >= 0.7;
}

export function outcomeLabel(o: Pick<Outcome, 'reactions' | 'toolErrors'>): OutcomeLabel {
  const kinds = new Set(o.reactions.map((r) => r.kind));
  const negative = kinds.has('correction') || kinds.has('retry') || kinds.has('interruption');
  if (kinds.has('praise') && !negative) return 'success';
  if (kinds.has('correction') || kinds.has('refinement')) return 'corrected';
  if (negative) return 'failed';
  if (kinds.has('next_task')) return o.toolErrors > 0 ? 'unknown' : 'success';
  return 'unknown';
}

const SKILL_NAME_RE = /^[A-Za-z0-9][\w.:-]{0,99}$/;
const skillName = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const n = v.trim().replace(/^\//, '').split(/\s/, 1)[0] ?? '';
  return SKILL_NAME_RE.test(n) ? n : null;
};
/** A read of a skill document: `…/skills/<name>/SKILL.md` (Codex opens the skills it uses this way). */
const SKILL_DOC_RE = /(?:^|[\\/])skills[\\/]([A-Za-z0-9][\w.-]{0,99})[\\/]SKILL\.md\b/;
/** Tools that change a skill document: editing a skill is not using it. */
const WRITING_TOOL_RE = /edit|write|create|patch|replace|delete|move|rename/i;

/**
 * The skills one event shows in use: `meta.skill` (recorded by the adapters, adapters/skill-signal.ts);
 * for events stored before adapters recorded it, a tool named `skill` (`{"skill":"x"}` or `x` as
 * its input), or a tool call that reads `…/skills/<name>/SKILL.md` without writing it.
 */
export function skillsOf(ev: MinedEvent): string[] {
  const m = ev.meta.skill;
  if (Array.isArray(m)) return m.map(skillName).filter((n): n is string => n !== null);
  const tagged = skillName(m);
  if (tagged) return [tagged];
  if (ev.kind !== 'tool_call' || !ev.text) return [];
  const tool = ev.toolName ?? '';
  if (/^(skill|slashcommand)$/i.test(tool)) {
    let input: unknown = ev.text;
    if (ev.text.trimStart().startsWith('{')) {
      try {
        input = JSON.parse(ev.text) as unknown;
      } catch {
        /* keep the raw text */
      }
    }
    const o = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : null;
    const n = skillName(o ? (o.skill ?? o.command ?? o.name) : input);
    return n ? [n] : [];
  }
  if (WRITING_TOOL_RE.test(tool) || /\bsed\s+-i|>\s*\S*SKILL\.md/.test(ev.text)) return [];
  const doc = SKILL_DOC_RE.exec(ev.text);
  return doc ? [doc[1]] : [];
}

/** Too little left after normalization to be an ask ("continue", "yes", "go on"). */
const TRIVIAL = new Set(['continue', 'proceed', 'go', 'yes', 'yep', 'sure', 'ok', 'okay', 'next', 'retry', 'again', 'done', 'stop', 'wait', 'hmm']);
export function isTrivialAsk(norm: NormalizedPrompt): boolean {
  if (norm.codeBlocks.length > 0) return false;
  const words = contentWords(norm.key);
  return words.length === 0 || (words.length === 1 && TRIVIAL.has(words[0]));
}

const MAX_FINAL = 400;

/**
 * Walks one session's events in order and returns its asks, each with its outcome. Follow-up
 * reactions are folded into the ask they react to.
 */
export function extractIntents(events: MinedEvent[], project?: string | null): IntentPrompt[] {
  const intents: IntentPrompt[] = [];
  let current: IntentPrompt | null = null;
  let currentAsk: AskContext | null = null;
  const collectors = new Map<IntentPrompt, ArtifactCollector>();
  let collector: ArtifactCollector | null = null;
  for (const ev of events) {
    if (ev.kind === 'prompt' && ev.role === 'user') {
      if (isInterruption(ev.text, ev.meta)) {
        if (current) current.outcome.reactions.push({ kind: 'interruption', seq: ev.seq });
        continue;
      }
      const norm = normalizePrompt(ev.text);
      // classify on what the user typed (greetings and thanks included: "thanks!" is praise)
      const said = stripEnvelopes(ev.text).replace(/\s+/g, ' ').trim();
      const reaction = current && currentAsk ? classifyReaction(said, currentAsk) : null;
      if (current && reaction) {
        current.outcome.reactions.push({ kind: reaction, text: said.slice(0, 600), seq: ev.seq });
        addSkills(current.outcome, ev);
        continue;
      }
      if (!norm.clean && norm.codeBlocks.length === 0) continue;
      if (isTrivialAsk(norm)) continue;
      if (current) current.outcome.reactions.push({ kind: 'next_task', seq: ev.seq });
      current = {
        seq: ev.seq,
        ts: ev.ts,
        text: ev.text,
        norm,
        outcome: {
          tools: [],
          toolErrors: 0,
          final: '',
          reactions: [],
          label: 'unknown',
          ...(norm.codeBlocks[0] ? { code: norm.codeBlocks[0].slice(0, 1200) } : {}),
        },
      };
      intents.push(current);
      collector = new ArtifactCollector();
      collectors.set(current, collector);
      currentAsk = askContext(norm.clean, norm.key);
      addSkills(current.outcome, ev);
      continue;
    }
    if (!current) continue;
    // a skill invoked anywhere in the ask's turn (its follow-ups included) was used for it
    addSkills(current.outcome, ev);
    if (ev.kind === 'tool_call' && ev.toolName) {
      if (!current.outcome.tools.includes(ev.toolName)) current.outcome.tools.push(ev.toolName);
      for (const k of verifyKindsOfCall(ev.toolName, ev.text)) {
        if (!current.outcome.verified) current.outcome.verified = [k];
        else if (!current.outcome.verified.includes(k)) current.outcome.verified.push(k);
      }
      const signs = workSignsOfCall(ev.toolName, ev.text, project);
      if (signs.length) addWorkSigns((current.outcome.work ??= []), signs);
      collector?.toolCall(ev.toolName, ev.text, ev.ts, ev.meta);
    } else if (ev.kind === 'tool_result') {
      if (ev.isError) current.outcome.toolErrors++;
      collector?.toolResult(ev.isError, ev.text, ev.meta);
      if (isInterruption(ev.text, ev.meta)) current.outcome.reactions.push({ kind: 'interruption', seq: ev.seq });
    } else if (ev.kind === 'text' && ev.role === 'assistant') {
      if (ev.meta.final === true || !current.outcome.final) current.outcome.final = ev.text.slice(0, MAX_FINAL);
      if (ev.meta.final === true) collector?.finalReply(ev.text);
    }
  }
  for (const i of intents) {
    i.outcome.label = outcomeLabel(i.outcome);
    const artifacts = collectors.get(i)?.result();
    if (artifacts) i.outcome.artifacts = artifacts;
  }
  return intents;
}

function addSkills(o: Outcome, ev: MinedEvent): void {
  for (const n of skillsOf(ev)) {
    if (!o.skills) o.skills = [n];
    else if (!o.skills.includes(n)) o.skills.push(n);
  }
}

/** The user's preference evidence in an outcome: corrections and refinements, verbatim. */
export function correctionsOf(o: Outcome): string[] {
  return o.reactions.filter((r) => (r.kind === 'correction' || r.kind === 'refinement') && r.text).map((r) => r.text!);
}
