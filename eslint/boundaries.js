/**
 * The house's one-way flow as a lint rule (`house/boundaries`, on in `npm test`): a module may import
 * only from the folders below it. The table says, per folder, which folders it must never import;
 * an import is resolved to the folder it lands in (src/<folder> or adapters), so `../../cli/x.js`
 * and `../cli/x.js` are the same edge. Only relative imports are checked: packages are not folders
 * of ours. docs/ARCHITECTURE.md draws the same picture.
 */
import path from 'node:path';

const SRC = ['core', 'skilldoc', 'store', 'harvest', 'mine', 'replay', 'llm', 'trainer', 'proposals', 'night', 'team', 'daemon', 'tui', 'cli', 'demo'];
const except = (...allowed) => [...SRC.filter((f) => !allowed.includes(f)), 'adapters'].filter((f) => !allowed.includes(f));
/** the layers that orchestrate or present; nothing in the pipeline below them may reach up */
const UPPER = ['cli', 'daemon', 'tui', 'trainer', 'night', 'team', 'proposals'];

/** folder → folders it must not import (the folder `cli` is forbidden to everyone but itself) */
export const FORBIDDEN = {
  core: except('core'),
  // the skill document and its edits: read by the agents' adapters (front matter), the trainer and the proposals
  skilldoc: except('core', 'skilldoc'),
  store: except('core', 'store'),
  adapters: except('core', 'skilldoc', 'adapters'),
  harvest: UPPER,
  mine: UPPER,
  replay: UPPER,
  llm: [...UPPER, 'replay'],
  trainer: ['night', 'team', 'proposals', 'cli', 'daemon', 'tui'],
  proposals: ['night', 'team', 'cli', 'daemon', 'tui'],
  night: ['team', 'cli', 'daemon', 'tui'],
  // team mode (a shared PostgreSQL): pools members' mined tasks and runs a repository's team night on top of the night's parts
  team: ['cli', 'daemon', 'tui'],
  daemon: ['cli', 'tui'],
  tui: ['cli', 'daemon'],
  demo: ['cli'],
  cli: [],
};

/** The folder a file belongs to: `src/<folder>/…` → folder, `adapters/…` → 'adapters', else null. */
export function folderOf(file, root) {
  const rel = path.relative(root, file).split(path.sep);
  if (rel[0] === 'src' && rel.length > 2) return rel[1];
  if (rel[0] === 'adapters') return 'adapters';
  return null;
}

const why = (from, to) =>
  to === 'cli'
    ? 'nothing imports the CLI: move what you need into core/ (or the module that owns it)'
    : `${from} sits below ${to} in the one-way flow (docs/ARCHITECTURE.md): move the shared piece down, or pass it in`;

export const boundariesRule = {
  meta: {
    type: 'problem',
    docs: { description: 'a module imports only from the folders below it (docs/ARCHITECTURE.md)' },
    schema: [],
    messages: { backEdge: 'src/{{from}} must not import {{to}} ({{target}}): {{why}}' },
  },
  create(context) {
    const root = context.cwd;
    const file = context.filename;
    const from = folderOf(file, root);
    const forbidden = from ? FORBIDDEN[from] ?? [] : [];
    if (!forbidden.length) return {};
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const to = folderOf(path.resolve(path.dirname(file), source.value), root);
      if (to && to !== from && forbidden.includes(to)) {
        context.report({ node, messageId: 'backEdge', data: { from, to: to === 'adapters' ? 'adapters/' : `src/${to}`, target: source.value, why: why(from, to) } });
      }
    };
    return {
      ImportDeclaration: (n) => check(n, n.source),
      ExportNamedDeclaration: (n) => check(n, n.source),
      ExportAllDeclaration: (n) => check(n, n.source),
      ImportExpression: (n) => check(n, n.source),
    };
  },
};

export default { rules: { boundaries: boundariesRule } };
