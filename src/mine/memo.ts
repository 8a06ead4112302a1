/**
 * A bounded memo for the miner's pure text → key functions: a mining run asks for the key of the
 * same text many times (clustering, reaction classification, family synthesis, split checks), and
 * a store of millions of asks must not keep them all. When full, the memo is cleared: the next run
 * over the same texts fills it again at the cost of one computation each.
 */
export const TEXT_MEMO_MAX = 50_000;

export function memoizeText(compute: (text: string) => string, max = TEXT_MEMO_MAX): (text: string) => string {
  const memo = new Map<string, string>();
  return (text) => {
    const hit = memo.get(text);
    if (hit !== undefined) return hit;
    const out = compute(text);
    if (memo.size >= max) memo.clear();
    memo.set(text, out);
    return out;
  };
}
