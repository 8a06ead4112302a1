/**
 * Writes a string that matches a regular expression, so the simulated target can really satisfy a
 * regex check (and the real evaluator confirms it). Covers the usual subset: literals, escapes
 * (\d \w \s \b …), classes with ranges and negation, groups, alternation, quantifiers, anchors.
 * Lookarounds and backreferences produce nothing; the caller verifies the sample and may retry.
 */
import type { Rng } from './rng.js';

type Node =
  | { t: 'lit'; ch: string }
  | { t: 'set'; chars: string[]; negate: boolean }
  | { t: 'any' }
  | { t: 'group'; alts: Node[][] }
  | { t: 'rep'; node: Node; min: number; max: number }
  | { t: 'empty' };

const DIGITS = '0123456789'.split('');
const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'.split('');
const SPACE = [' '];
const PRINTABLE = 'abcdefghijklmnopqrstuvwxyz0123456789 -_.,:;#()[]/'.split('');
// examples should read like text: wide classes (\\S, ., [^x]) draw from letters first
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'.split('');

class Parser {
  i = 0;
  constructor(private readonly src: string) {}

  parseAlts(): Node[][] {
    const alts: Node[][] = [this.parseSeq()];
    while (this.src[this.i] === '|') {
      this.i++;
      alts.push(this.parseSeq());
    }
    return alts;
  }

  private parseSeq(): Node[] {
    const seq: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      let atom = this.parseAtom();
      atom = this.parseQuantifier(atom);
      seq.push(atom);
    }
    return seq;
  }

  private parseQuantifier(atom: Node): Node {
    const c = this.src[this.i];
    let min = -1;
    let max = -1;
    if (c === '*') [min, max] = [0, 6];
    else if (c === '+') [min, max] = [1, 6];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] ? Number(m[3]) : min + 2;
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (this.src[this.i] === '?' || this.src[this.i] === '+') this.i++; // lazy / possessive
    return { t: 'rep', node: atom, min, max };
  }

  private parseAtom(): Node {
    const c = this.src[this.i++];
    switch (c) {
      case '(': {
        if (this.src[this.i] === '?') {
          const rest = this.src.slice(this.i);
          const look = /^\?(?:<?[=!])/.exec(rest);
          if (look) {
            this.i += look[0].length;
            this.parseAlts();
            this.i++; // ')'
            return { t: 'empty' }; // lookarounds are zero-width
          }
          const named = /^\?(?::|<[A-Za-z_]\w*>)/.exec(rest);
          if (named) this.i += named[0].length; // (?:…) and (?<name>…) sample like plain groups
        }
        const alts = this.parseAlts();
        this.i++; // ')'
        return { t: 'group', alts };
      }
      case '[':
        return this.parseClass();
      case '.':
        return { t: 'any' };
      case '^':
      case '$':
        return { t: 'empty' };
      case '\\':
        return this.parseEscape(false) as Node;
      default:
        return { t: 'lit', ch: c };
    }
  }

  /** The character of a \uXXXX (digits 4) or \xXX (digits 2) escape, consuming its hex digits; undefined (nothing consumed) when they are not all there. */
  private hexChar(digits: number): string | undefined {
    const hex = this.src.slice(this.i, this.i + digits);
    if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
    this.i += digits;
    return String.fromCharCode(parseInt(hex, 16));
  }

  /** In a class, escapes give characters; outside, \b and friends are zero-width. */
  private parseEscape(inClass: boolean): Node | string[] {
    const e = this.src[this.i++];
    const set = (chars: string[], negate = false): Node | string[] => (inClass ? chars : { t: 'set', chars, negate });
    switch (e) {
      case 'd':
        return set(DIGITS);
      case 'w':
        return set(WORD);
      case 's':
        return set(SPACE);
      case 'D':
        return inClass ? ['a'] : { t: 'set', chars: DIGITS, negate: true };
      case 'W':
        return inClass ? ['-'] : { t: 'set', chars: WORD, negate: true };
      case 'S':
        return inClass ? ['x'] : { t: 'set', chars: SPACE, negate: true };
      case 'b':
      case 'B':
        return inClass ? ['\b'] : { t: 'empty' };
      case 'n':
        return set(['\n']);
      case 't':
        return set(['\t']);
      case 'u':
        return set([this.hexChar(4) ?? 'u']);
      case 'x':
        return set([this.hexChar(2) ?? 'x']);
      default:
        if (/[1-9]/.test(e) && !inClass) return { t: 'empty' }; // backreference: unsupported
        return inClass ? [e] : { t: 'lit', ch: e };
    }
  }

  private parseClass(): Node {
    let negate = false;
    if (this.src[this.i] === '^') {
      negate = true;
      this.i++;
    }
    const chars: string[] = [];
    let first = true;
    while (this.i < this.src.length && (this.src[this.i] !== ']' || first)) {
      first = false;
      let lo: string[];
      if (this.src[this.i] === '\\') {
        this.i++;
        lo = this.parseEscape(true) as string[];
      } else lo = [this.src[this.i++]];
      if (this.src[this.i] === '-' && this.src[this.i + 1] !== ']' && lo.length === 1 && this.i + 1 < this.src.length) {
        this.i++;
        const hiCh = this.src[this.i] === '\\' ? this.src[++this.i] : this.src[this.i];
        this.i++;
        for (let code = lo[0].charCodeAt(0); code <= hiCh.charCodeAt(0) && chars.length < 200; code++) chars.push(String.fromCharCode(code));
      } else chars.push(...lo);
    }
    this.i++; // ']'
    return { t: 'set', chars, negate };
  }
}

function emit(node: Node, rng: Rng, out: string[]): void {
  switch (node.t) {
    case 'lit':
      out.push(node.ch);
      return;
    case 'any':
      out.push(rng.pick(LETTERS));
      return;
    case 'set': {
      if (!node.negate) {
        const letters = node.chars.filter((c) => /[a-z]/.test(c));
        if (node.chars.length) out.push(rng.pick(letters.length > 10 ? letters : node.chars));
        return;
      }
      const letters = LETTERS.filter((c) => !node.chars.includes(c));
      const allowed = letters.length ? letters : PRINTABLE.filter((c) => !node.chars.includes(c));
      if (allowed.length) out.push(rng.pick(allowed));
      return;
    }
    case 'group': {
      const alt = rng.pick(node.alts);
      for (const n of alt) emit(n, rng, out);
      return;
    }
    case 'rep': {
      // prefer one occurrence: examples read naturally and optional parts are shown
      const isChar = node.node.t === 'set' || node.node.t === 'any';
      let count: number;
      if (isChar && node.max > 1) count = rng.int(Math.max(node.min, Math.min(3, node.max)), Math.min(node.max, Math.max(node.min, 6)));
      else if (node.min <= 1 && node.max >= 1) count = rng.chance(0.8) ? Math.max(1, node.min) : node.min;
      else count = rng.int(node.min, Math.min(node.max, node.min + 2));
      for (let k = 0; k < count; k++) emit(node.node, rng, out);
      return;
    }
    case 'empty':
      return;
  }
}

/** A string matching `pattern` with `flags`, or null when none was found in a few tries. */
export function sampleRegex(pattern: string, flags: string, rng: Rng, tries = 12): string | null {
  let re: RegExp;
  let alts: Node[][];
  try {
    re = new RegExp(pattern, flags.replace(/[gy]/g, ''));
    alts = new Parser(pattern).parseAlts();
  } catch {
    return null;
  }
  for (let k = 0; k < tries; k++) {
    const out: string[] = [];
    emit({ t: 'group', alts }, rng, out);
    const s = out.join('');
    if (re.test(s)) return s;
  }
  return null;
}

/** Where the sample must go: `^` without the m flag pins it to the start of the reply, etc. */
export function regexAnchors(pattern: string, flags: string): { start: boolean; end: boolean } {
  const multiline = flags.includes('m');
  return {
    start: !multiline && pattern.startsWith('^'),
    end: !multiline && /(^|[^\\])\$$/.test(pattern),
  };
}
