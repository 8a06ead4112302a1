/** Worker-thread entry: parses batches of files off the main thread (which owns the database). */
import { parentPort } from 'node:worker_threads';
import { packBatch, processFile, type FileTask } from './process-file.js';
import { packedBuffers } from './packed-events.js';

if (parentPort) {
  const port = parentPort;
  port.on('message', (msg: { tasks: FileTask[] }) => {
    const batch = packBatch(msg.tasks.map((t) => processFile(t)));
    // the typed arrays of the packed rows are moved to the main thread, not copied
    port.postMessage(batch, packedBuffers(batch.events));
  });
}
