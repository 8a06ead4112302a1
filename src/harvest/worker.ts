/** Worker-thread entry: parses batches of files off the main thread (which owns the database). */
import { parentPort } from 'node:worker_threads';
import { packResult, processFile, type FileTask } from './process-file.js';

if (parentPort) {
  const port = parentPort;
  port.on('message', (msg: { tasks: FileTask[] }) => {
    const results = msg.tasks.map((t) => packResult(processFile(t)));
    port.postMessage({ results });
  });
}
