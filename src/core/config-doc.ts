/**
 * docs/CONFIG.md, rendered from the config schema (core/config-schema.ts via listLeafKeys): every
 * key with its env var, its one default and its description. The file is generated, never edited by
 * hand (`npm run docs:config`), and tests/unit/config-doc.test.ts fails when it falls behind the schema.
 */
import { listLeafKeys, type LeafKey } from './config.js';

const HEADER = `# Configuration reference

<!-- Generated from src/core/config-schema.ts by \`npm run docs:config\` (\`skillopt-sleep config doc\`). Do not edit by hand. -->

\`config.json\` lives in the config folder (\`skillopt-sleep paths\`, \`skillopt-sleep config path\`);
\`schema/config.schema.json\` validates it in editors (\`config set\` adds the \`$schema\` reference).
Unknown keys and wrong types are errors that name the key. \`skillopt-sleep config show\` prints every
key's effective value, \`config get KEY\` one of them, \`config set KEY VALUE\` writes one (arrays:
comma-separated or JSON), and \`config schema [--write FILE]\` prints the JSON Schema.

Every key can be overridden by an env var: \`SKILLOPT_SLEEP_\` + the key path in SCREAMING_SNAKE
(\`schedule.cron\` → \`SKILLOPT_SLEEP_SCHEDULE_CRON\`; arrays comma-separated). The daemon reads its
config when it starts: \`skillopt-sleep restart\` picks up a change.
`;

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function defaultText(leaf: LeafKey): string {
  return leaf.defaultValue === undefined ? '(unset)' : '`' + cell(JSON.stringify(leaf.defaultValue)) + '`';
}

/** The whole of docs/CONFIG.md: one table per top-level section, keys in schema order. */
export function renderConfigDoc(): string {
  const sections = new Map<string, LeafKey[]>();
  for (const leaf of listLeafKeys()) {
    const top = leaf.path.split('.')[0]!;
    sections.set(top, [...(sections.get(top) ?? []), leaf]);
  }
  const out = [HEADER];
  for (const [top, leaves] of sections) {
    out.push(`## \`${top}\`\n`);
    out.push('| key | default | env var | meaning |');
    out.push('|---|---|---|---|');
    for (const leaf of leaves) out.push(`| \`${leaf.path}\` | ${defaultText(leaf)} | \`${leaf.envName}\` | ${cell(leaf.description ?? '')} |`);
    out.push('');
  }
  return out.join('\n');
}
