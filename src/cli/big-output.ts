/**
 * Writing output that may be large (an export of the whole store, a task file) to stdout or a file
 * stream, at the pace the reader takes it.
 *
 * Why not `fs.writeSync(1, …)`: once Node has opened `process.stdout` on a pipe, the pipe's file
 * descriptor is non-blocking, and a synchronous write into a full pipe (a reader that has not
 * started yet: `export | (sleep 1; cat)`) fails with EAGAIN. Why not one `stream.write` of
 * everything: it holds the whole output in memory until the reader catches up. Here lines are
 * gathered into chunks, each written through the stream, and the writer waits for `drain` whenever
 * the stream says its buffer is full (the backpressure `stream.pipeline` applies too).
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Bytes gathered before a write: one native call per ~64 KB rather than per line. */
const CHUNK_CHARS = 64 * 1024;

/** How writing ended: everything was written, or the reader went away first (`export | head`). */
export type WriteEnd = 'done' | 'closed';

function isClosedPipe(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

/**
 * Writes `lines` (each followed by a newline) to `out`, waiting for the reader whenever the
 * stream's buffer is full. Resolves 'closed' when the reader closed the pipe early (not an error);
 * any other write error rejects. Does not end `out` (stdout stays open for the process).
 */
export async function writeLines(out: Writable, lines: Iterable<string>): Promise<WriteEnd> {
  let closedEarly = false;
  const onError = (err: unknown) => {
    if (isClosedPipe(err)) closedEarly = true;
  };
  out.on('error', onError);
  try {
    let chunk = '';
    for (const line of lines) {
      chunk += line + '\n';
      if (chunk.length < CHUNK_CHARS) continue;
      if ((await writeChunk(out, chunk)) === 'closed' || closedEarly) return 'closed';
      chunk = '';
    }
    if (chunk && (await writeChunk(out, chunk)) === 'closed') return 'closed';
    return closedEarly ? 'closed' : 'done';
  } finally {
    out.off('error', onError);
  }
}

/** `text` as it is (e.g. a rendered YAML file), written with the same backpressure. */
export async function writeText(out: Writable, text: string): Promise<WriteEnd> {
  for (let i = 0; i < text.length; i += CHUNK_CHARS) {
    if ((await writeChunk(out, text.slice(i, i + CHUNK_CHARS))) === 'closed') return 'closed';
  }
  return 'done';
}

async function writeChunk(out: Writable, chunk: string): Promise<WriteEnd> {
  if (out.destroyed || out.writableEnded) return 'closed';
  if (out.write(chunk)) return 'done';
  // wait for `drain`, or for the stream to close or fail (`once` rejects on 'error': a reader that
  // closed the pipe); the listener that did not fire is removed (a long export waits thousands of times)
  const stop = new AbortController();
  try {
    const drained = once(out, 'drain', { signal: stop.signal }).then(() => 'done' as const);
    const closed = once(out, 'close', { signal: stop.signal }).then(() => 'closed' as const);
    return await Promise.race([drained, closed]);
  } catch (err) {
    if (isClosedPipe(err)) return 'closed';
    throw err;
  } finally {
    stop.abort();
  }
}

/** Ends a stream we opened (a file) and waits until everything written reached the file. */
export async function endStream(out: Writable): Promise<void> {
  const finished = once(out, 'finish');
  out.end();
  await finished;
}
