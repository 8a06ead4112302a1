const r = () => Math.round(process.memoryUsage().rss/1048576);
console.log('base', r());
const { openDb } = await import('/work/main/dist/src/store/db.js');
const db = openDb('/tmp/h7s/sleep/state/sleep.db'); console.log('db', r());
const chokidar = (await import('chokidar')).default; console.log('chokidar', r());
const cron = (await import('node-cron')).default; console.log('cron', r());
const { createFileLogger } = await import('/work/main/dist/src/core/logger.js');
const l = createFileLogger({logsDir: '/tmp/h7s/x', name: 'daemon'}); l.info('x');
await new Promise(r=>setTimeout(r,1000)); console.log('logger', r());
const { loadDefaultDeps } = await import('/work/main/dist/src/daemon/deps-default.js');
await loadDefaultDeps(); console.log('deps', r());
process.exit(0)
