// Rewrites the README's command reference and key list from the built tables (npm run readme).
import fs from 'node:fs';
import {withReferences} from '../dist/cli/reference.js';

const file = new URL('../README.md', import.meta.url);
const before = fs.readFileSync(file, 'utf8');
const after = withReferences(before);
fs.writeFileSync(file, after);
process.stdout.write(
	before === after ? 'README.md: already current\n' : 'README.md: command reference and key list rewritten\n',
);
