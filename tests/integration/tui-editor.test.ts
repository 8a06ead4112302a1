/** The review app's $EDITOR launcher with real editor processes: saved text back, null when the editor fails or changes nothing, a clear error when it cannot start. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { editInEditor } from '../../src/core/editor.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

describe('$EDITOR', () => {
  it('returns the saved text, or null when the editor fails or changes nothing', () => {
    const editor = path.join(sb.root, 'ed.sh');
    fs.writeFileSync(editor, '#!/bin/sh\necho "added by editor" >> "$1"\n', { mode: 0o755 });
    expect(editInEditor('hello\n', 'SKILL.md', { ...sb.env, EDITOR: editor })).toBe('hello\nadded by editor\n');
    expect(editInEditor('hello\n', 'SKILL.md', { ...sb.env, EDITOR: 'true' })).toBeNull();
    expect(editInEditor('hello\n', 'SKILL.md', { ...sb.env, EDITOR: 'false' })).toBeNull();
    expect(() => editInEditor('x', 'SKILL.md', { ...sb.env, EDITOR: path.join(sb.root, 'no-such-editor') })).toThrow(/could not start the editor/);
  });
});
