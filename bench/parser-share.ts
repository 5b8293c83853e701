/**
 * One fresh process: how long hfx's command line (meow and its wrapper, dist/cli-args.js) takes
 * to load and to parse a typical line. Printed as JSON for the startup section. Loaded unbundled
 * from node_modules, so an upper bound of its share of the bundled bin's start.
 */
const t0 = performance.now();
const {parseCommandLine} = await import('../dist/cli-args.js');
const t1 = performance.now();
const {commandNamed} = await import('../dist/cli-commands.js');
const spec = commandNamed('scan')!;
const t2 = performance.now();
parseCommandLine(['--db', '/srv/hermes/state.db', '--json', '--max-gap-seconds', '600'], spec.flags, 'scan');
const t3 = performance.now();
process.stdout.write(`${JSON.stringify({importMs: t1 - t0, parseMs: t3 - t2})}\n`);
