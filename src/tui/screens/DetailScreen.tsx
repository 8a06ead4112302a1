/**
 * One proposal: a two-line header (file, who reads it, scores, included edits; a warning line when
 * the live file changed or the risk lint flagged lines), tabs, and the current view (Diff /
 * Evidence / Report) in a virtualised window of wrapped rows. It only draws: what it shows is the
 * detail model (screens/detail-model.ts) and the review state; its keys are handled by the app.
 */
import React from 'react';
import { Box, Text } from 'ink';
import type { AgentId, Proposal } from '../../core/records.js';
import type { RiskFlag, StaleInfo } from '../services.js';
import { agentName, homeRelative, readersLabel, scoreChange, deltaTone } from '../format.js';
import { DiffView } from '../components/DiffView.js';
import { LinesWindow } from '../components/Line.js';
import { DELTA_COLOUR, theme } from '../theme.js';
import { VIEWS, type DetailNav, type DetailView } from '../review-state.js';
import type { DetailModel } from './detail-model.js';
import { noGainBanner } from '../../proposals/staging-report.js';

const VIEW_TITLE: Record<DetailView, string> = { diff: 'Diff', evidence: 'Evidence', report: 'Report' };

export interface DetailScreenProps {
  proposal: Proposal;
  stale: StaleInfo | null;
  /** what the risk lint flags in this proposal (a warning line; applying confirms twice) */
  risk: RiskFlag[];
  /** agents used in this project that read none of the files the proposal writes */
  missedBy: AgentId[];
  model: DetailModel;
  nav: DetailNav;
  included: ReadonlySet<string>;
  width: number;
}

function DetailHeader({ proposal: p, stale, risk, missedBy, accepted, included }: Pick<DetailScreenProps, 'proposal' | 'stale' | 'risk' | 'missedBy' | 'included'> & { accepted: number }): React.ReactElement {
  const partial = accepted > 0 && included.size !== accepted;
  // the held-out audit showed no gain: said before anything else on the screen
  const noGain = noGainBanner({ before: p.testBefore, after: p.testAfter });
  return (
    <>
      {noGain ? (
        <Text color={theme.caution} bold wrap="truncate-end">
          ⚠ {noGain}
        </Text>
      ) : null}
      <Text wrap="truncate-end">
        <Text bold color={theme.accent}>
          {p.skillTarget.name}
        </Text>
        <Text dimColor> · {homeRelative(p.skillTarget.path)}</Text>
      </Text>
      <Text wrap="truncate-end">
        <Text dimColor>read by </Text>
        {readersLabel(p)}
        {missedBy.length > 0 ? <Text color={theme.caution}> (not {missedBy.map(agentName).join(', ')}, used here)</Text> : null}
        <Text dimColor> · val </Text>
        <Text color={DELTA_COLOUR[deltaTone(p.baselineScore, p.candidateScore)]}>{scoreChange(p.baselineScore, p.candidateScore)}</Text>
        <Text dimColor> · test </Text>
        {scoreChange(p.testBefore, p.testAfter)}
        <Text dimColor> · </Text>
        <Text color={partial ? theme.caution : undefined}>{partial ? `${included.size} of ${accepted} edits` : `${accepted} edits`}</Text>
        <Text dimColor> · </Text>
        {stale?.stale && p.status === 'staged' ? <Text color={theme.stale}>stale</Text> : <Text>{p.status}</Text>}
      </Text>
      {risk.length > 0 ? (
        <Text color={theme.bad} bold wrap="truncate-end">
          ⚠ Risk lint: {risk.length} flagged line{risk.length === 1 ? '' : 's'} ({[...new Set(risk.map((f) => f.rule))].join(', ')}) · applying asks a second time · Report lists them
        </Text>
      ) : null}
      {stale?.stale ? (
        <Text color={theme.stale} wrap="truncate-end">
          ⚠ The live file {stale.missing ? 'was deleted' : 'changed'} since this proposal was made: press a to re-run or apply anyway.
        </Text>
      ) : null}
    </>
  );
}

export function DetailScreen({ proposal, stale, risk, missedBy, model: m, nav, included, width }: DetailScreenProps): React.ReactElement {
  const { view } = nav;
  const win = m.windows[view];
  const position =
    view === 'diff'
      ? `hunk ${m.hunkStarts.length ? m.hunk + 1 : 0}/${m.hunkStarts.length} · ${m.mode === 'split' ? 'side-by-side' : 'unified'} · +${m.diff.added} −${m.diff.removed}`
      : `${win.end === 0 ? 0 : win.start + 1}-${win.end} of ${win.count}`;

  let body: React.ReactElement;
  if (view === 'diff') {
    body = (
      <DiffView model={m.diff} split={m.split} mode={m.mode} layout={m.layout} hunks={{ current: m.hunk, included: m.hunkIncluded }} matches={new Set(m.diffMatchSources)} start={win.start} height={m.bodyHeight} width={width} />
    );
  } else {
    const lines = view === 'evidence' ? m.evidence.lines : m.report;
    body = <LinesWindow lines={lines.slice(win.start, win.end)} height={m.bodyHeight} />;
  }

  return (
    <Box flexDirection="column">
      <DetailHeader proposal={proposal} stale={stale} risk={risk} missedBy={missedBy} accepted={m.accepted.length} included={included} />
      <Text wrap="truncate-end">
        {VIEWS.map((v) => (
          <Text key={v} inverse={v === view} bold={v === view}>
            {` ${VIEW_TITLE[v]} `}
          </Text>
        ))}
        <Text dimColor>
          {'  '}
          {position}
        </Text>
      </Text>
      {m.bodyHeight > 0 ? body : null}
    </Box>
  );
}
