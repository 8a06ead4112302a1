/**
 * The decision flows behind a, x, e, u: each one explains what will happen in a numbered dialog
 * before anything is written, then calls the service and reports the outcome in one line.
 * - apply: a stale base is explained first (re-run, or apply anyway with a backup); a partial
 *   selection is re-scored on validation and the new score shown before the user confirms; Esc
 *   cancels the re-scoring (the replay is aborted, nothing is written, the selection stays).
 * - reject: optional reason (the edits are remembered and not proposed again unless forgotten).
 * - edit: $EDITOR on the candidate, then confirm applying the edited text.
 * - undo: revert the last apply (the service refuses if the file was edited since).
 * - risk: text the risk lint flags (pipe-to-shell, credential paths, exfiltration, safety off,
 *   injected instructions) is written only after a second, explicit confirmation whose default
 *   (Enter, Esc) is Cancel — the review's `apply --force-risky`.
 * - forget: a rejected proposal's edits are banned from later nights; F lifts that ban.
 */
import path from 'node:path';
import type { Proposal } from '../core/records.js';
import { SleepError, isSleepError } from '../core/errors.js';
import type { DecisionOutcome, ReviewServices, RiskFlag } from './services.js';
import type { DialogOption } from './components/ConfirmDialog.js';
import { theme, type Tone } from './theme.js';
import { seg, type StyledLine } from './components/Line.js';
import { acceptedEdits } from './evidence-model.js';
import { homeRelative, readersByFile, readersLabel, score, scoreChange } from './format.js';

export interface DialogSpec {
  title: string;
  body: StyledLine[];
  /** options with no `run` just close the dialog; Esc picks the last option */
  options: Array<DialogOption & { run?: () => void }>;
  tone?: 'warning' | 'normal';
  /** the option highlighted first (Enter picks it); default 0 */
  initial?: number;
}

export interface TextSpec {
  label: string;
  hint?: string;
  initial?: string;
  onChange?(value: string): void;
  onSubmit(value: string): void;
  onCancel?(): void;
}

export interface DecisionUi {
  ask(d: DialogSpec): void;
  prompt(t: TextSpec): void;
  say(text: string, tone?: Tone): void;
  /** `cancel` set = the job can be cancelled (Esc/q while it runs) */
  busy(label: string | null, cancel?: () => void): void;
  refresh(): void;
  applied(id: string): void;
}

export function errorLine(err: unknown): string {
  if (isSleepError(err)) return err.hint ? `${err.message} — ${err.hint}` : err.message;
  return err instanceof Error ? err.message : String(err);
}

export const RESCORE_CANCELLED = 're-scoring cancelled; nothing was written';

const body = (...texts: Array<string | StyledLine>): StyledLine[] => texts.map((t) => (typeof t === 'string' ? [seg(t)] : t));

export function createDecisions(services: ReviewServices, ui: DecisionUi) {
  async function run(label: string, fn: () => Promise<DecisionOutcome>, after?: (o: DecisionOutcome) => void, onStale?: () => void): Promise<void> {
    ui.busy(label);
    try {
      const out = await fn();
      ui.say(out.message, 'success');
      after?.(out);
    } catch (err) {
      if (onStale && isSleepError(err) && err.code === 'STALE') onStale();
      else ui.say(errorLine(err), 'error');
    } finally {
      ui.busy(null);
      ui.refresh();
    }
  }

  function rerun(p: Proposal): void {
    void run(`Re-running training for ${p.skillTarget.name}…`, () => services.rerun(p));
  }

  function explainStale(p: Proposal, proceed: () => void): void {
    const st = services.staleness(p);
    ui.ask({
      title: `The live file ${st.missing ? 'was deleted' : 'changed'} since this proposal was made`,
      tone: 'warning',
      body: body(
        homeRelative(p.skillTarget.path),
        'was edited after the night read it, so this diff no longer describes what would change.',
        'Re-running trains again from the current file; applying anyway overwrites those changes',
        '(a backup of the current file is kept, and u reverts).',
      ),
      options: [
        { label: 'Re-run training for this skill now', run: () => rerun(p) },
        { label: 'Apply anyway (overwrite, keep a backup)', tone: 'danger', run: proceed },
        { label: 'Cancel' },
      ],
    });
  }

  /** Lines naming each flag; at most `max` flags, then how many more. */
  function riskBody(flags: RiskFlag[], max = 5): StyledLine[] {
    const out: StyledLine[] = [];
    for (const f of flags.slice(0, max)) {
      out.push([seg(`${f.rule}: `, { color: theme.bad, bold: true }), seg(f.why)]);
      out.push([seg('  "', { dim: true }), seg(f.line, { color: theme.caution }), seg('"', { dim: true })]);
    }
    if (flags.length > max) out.push([seg(`… and ${flags.length - max} more (Report view lists them all)`, { dim: true })]);
    return out;
  }

  function confirmRisk(p: Proposal, flags: RiskFlag[], proceed: () => void): void {
    ui.ask({
      title: `⚠ The risk lint flagged ${flags.length} line${flags.length === 1 ? '' : 's'} this apply would write`,
      tone: 'warning',
      body: [
        ...riskBody(flags),
        [seg(`Every later session of ${readersLabel(p)} loads ${homeRelative(p.skillTarget.path)}.`)],
        [seg('Transcripts carry text you never wrote (tool output, fetched pages): apply only lines you trust.', { dim: true })],
      ],
      options: [{ label: 'Apply anyway: I read the flagged lines and trust them', tone: 'danger', run: proceed }, { label: 'Cancel (nothing is written)' }],
      // Enter and Esc both cancel: applying takes a deliberate 1 (or ↑ then Enter)
      initial: 1,
    });
  }

  function doApply(p: Proposal, opts: { editIds?: string[]; content?: string; force?: boolean; forceRisky?: boolean; promisedScore?: number }, label: string): void {
    if (!opts.forceRisky) {
      const flags = services.risk(p, { editIds: opts.editIds, content: opts.content });
      if (flags.length > 0) return confirmRisk(p, flags, () => doApply(p, { ...opts, forceRisky: true }, label));
    }
    void run(
      label,
      () => services.apply(p.id, opts),
      () => ui.applied(p.id),
      () => explainStale(p, () => doApply(p, { ...opts, force: true }, label)),
    );
  }

  function refuseDecided(p: Proposal): boolean {
    if (p.status === 'applied') {
      ui.say(`${p.skillTarget.name} is already applied; u reverts it`, 'info');
      return true;
    }
    if (p.status === 'rejected') {
      ui.say(`${p.skillTarget.name} was rejected${p.reason ? ` (${p.reason})` : ''}; its edits will not be proposed again unless you forget them (F)`, 'info');
      return true;
    }
    if (p.status === 'superseded') {
      ui.say(`${p.skillTarget.name}: ${p.reason ?? 'superseded by a newer proposal'}; review that one instead`, 'info');
      return true;
    }
    return false;
  }

  /** `included` = the edit ids chosen for a partial apply (all accepted edits = a full apply). */
  function apply(p: Proposal, included: ReadonlySet<string>, force = false): void {
    if (refuseDecided(p)) return;
    // a team proposal is applied by merging its branch (the committed file is the repository's, not ours to write)
    const team = services.team?.(p);
    if (team) return ui.say(`to apply this team proposal, merge its branch: ${team.merge}`, 'info');
    if (!force && services.staleness(p).stale) return explainStale(p, () => apply(p, included, true));
    const all = acceptedEdits(p);
    const chosen = all.filter((e) => included.has(e.id));
    const target = homeRelative(p.skillTarget.path);
    // one line per file written: the skill, then each copy for agents that read another folder
    const readers = readersByFile(p).map((f) => `${f.copy ? 'Copy for' : 'Read by'}: ${f.readers}${f.copy ? ` (${homeRelative(f.path)})` : ''}`);
    if (all.length > 0 && chosen.length === 0) return ui.say('no edits included: press A to include all, or Space on the ones you want', 'warning');
    if (chosen.length < all.length) {
      const ids = chosen.map((e) => e.id);
      const ctl = new AbortController();
      // Esc answers at once; whatever the aborted replay still resolves or rejects with is dropped below
      const cancel = (): void => {
        if (ctl.signal.aborted) return;
        ctl.abort(new SleepError('ABORTED', 're-scoring cancelled by the user'));
        ui.busy(null);
        ui.say(RESCORE_CANCELLED, 'info');
      };
      ui.busy(`Re-scoring ${chosen.length} of ${all.length} edits on validation… · Esc cancels`, cancel);
      services
        .rescore(p.id, ids, ctl.signal)
        .then((r) => {
          if (ctl.signal.aborted) return;
          const beats = r.score > r.baseline;
          ui.ask({
            title: `Apply ${chosen.length} of ${all.length} edits to ${target}?`,
            tone: beats ? 'normal' : 'warning',
            body: body(
              [
                seg('validation '),
                seg(`${score(r.baseline)} → ${score(r.score)}`, { color: beats ? theme.good : theme.bad, bold: true }),
                seg(` with these edits (all ${all.length}: ${score(p.candidateScore)}) · scored from ${r.source}`, { dim: true }),
              ],
              ...(beats ? [] : [[seg('this subset does not beat the current file on validation', { color: theme.bad })]]),
              ...readers,
            ),
            options: [{ label: chosen.length === 1 ? 'Yes, apply this edit' : `Yes, apply these ${chosen.length} edits`, run: () => doApply(p, { editIds: ids, force, promisedScore: r.score }, 'Applying…') }, { label: 'No' }],
          });
        })
        .catch((err) => {
          if (ctl.signal.aborted) return;
          // an abort from elsewhere (e.g. the backend was stopped) is a cancellation, not a failure
          if (isSleepError(err) && err.code === 'ABORTED') return ui.say(RESCORE_CANCELLED, 'info');
          ui.say(`could not re-score the chosen edits, nothing written: ${errorLine(err)}`, 'error');
        })
        .finally(() => {
          // after a cancel the UI has moved on: do not clear a busy line a later action set
          if (!ctl.signal.aborted) ui.busy(null);
        });
      return;
    }
    const flagged = services.risk(p).length;
    ui.ask({
      title: `Apply ${p.skillTarget.name} to ${target}?`,
      tone: flagged ? 'warning' : 'normal',
      body: body(
        `validation ${scoreChange(p.baselineScore, p.candidateScore)} · test ${scoreChange(p.testBefore, p.testAfter)} · ${all.length} edits`,
        ...readers,
        'The file is written atomically; a backup is kept and u reverts.',
        ...(flagged ? [[seg(`⚠ ${flagged} line${flagged === 1 ? ' is' : 's are'} flagged by the risk lint: you will be asked again`, { color: theme.bad, bold: true })]] : []),
      ),
      options: [{ label: 'Yes, apply', run: () => doApply(p, { force }, 'Applying…') }, { label: 'No' }],
    });
  }

  /** Lifts the ban on the edits of a rejected proposal (`editIds`: only those). */
  function forget(p: Proposal, editIds?: string[]): void {
    if (p.status !== 'rejected') return ui.say(`${p.skillTarget.name} is ${p.status}: only a rejected proposal's edits are banned, F forgets them`, 'info');
    const n = editIds?.length ?? acceptedEdits(p).length;
    const what = editIds ? `edit ${editIds.map((id) => acceptedEdits(p).findIndex((e) => e.id === id) + 1).join(', ')}` : `the ${n} edit${n === 1 ? '' : 's'}`;
    ui.ask({
      title: `Forget the rejection of ${what} of ${p.skillTarget.name}?`,
      body: body(
        'A later night may propose them again (they still have to beat held-out tasks).',
        'The proposal stays rejected; its record and receipts are kept. Same as `skillopt-sleep forget PROPOSAL:EDIT`.',
      ),
      options: [{ label: 'Yes, forget the rejection', run: () => void run('Forgetting…', () => services.forget(p.id, editIds)) }, { label: 'No' }],
    });
  }

  function reject(p: Proposal): void {
    if (p.status !== 'staged' && p.status !== 'stale' && p.status !== 'superseded') return ui.say(`${p.skillTarget.name} is ${p.status}: only proposals waiting for review can be rejected`, 'info');
    const go = (reason?: string) => void run('Rejecting…', () => services.reject(p.id, reason));
    ui.ask({
      title: `Reject ${p.skillTarget.name}?`,
      body: body('Its edits are remembered and will not be proposed again unless you forget them (F, or `skillopt-sleep forget EDIT`).', 'Edits already applied from another proposal stay allowed.'),
      options: [
        { label: 'Reject', tone: 'danger', run: () => go() },
        {
          label: 'Reject with a reason…',
          run: () => ui.prompt({ label: 'Reason: ', hint: 'Enter reject · Esc cancel', onSubmit: (v) => go(v.trim() || undefined) }),
        },
        { label: 'Cancel' },
      ],
    });
  }

  function edit(p: Proposal): void {
    if (refuseDecided(p)) return;
    void services
      .editText(p.candidate, path.basename(p.skillTarget.path) || 'SKILL.md')
      .then((text) => {
        if (text === null) return ui.say('editor closed without changes: nothing applied', 'info');
        ui.ask({
          title: `Apply your edited version to ${homeRelative(p.skillTarget.path)}?`,
          body: body('Your text is written as you saved it (it was not re-scored).', ...readersByFile(p).map((f) => `${f.copy ? 'Copy for' : 'Read by'}: ${f.readers}`)),
          options: [{ label: 'Yes, apply my edited version', run: () => doApply(p, { content: text }, 'Applying your version…') }, { label: 'No, discard it' }],
        });
      })
      .catch((err) => ui.say(`editor failed: ${errorLine(err)}`, 'error'));
  }

  function revert(p: Proposal | undefined): void {
    if (!p) return ui.say('nothing to undo: no proposal has been applied', 'info');
    ui.ask({
      title: `Revert ${p.skillTarget.name}?`,
      body: body(`Restores ${homeRelative(p.skillTarget.path)} as it was before the apply.`, 'Refused if the file was edited since the apply.'),
      options: [{ label: 'Yes, revert', run: () => void run('Reverting…', () => services.revert(p.id)) }, { label: 'No' }],
    });
  }

  return { apply, reject, edit, revert, forget };
}
