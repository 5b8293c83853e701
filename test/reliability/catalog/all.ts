/** The whole fault catalog, class by class (each file says what its kinds prove). */
import type {Fault} from '../types.js';
import {AGENT_OPS_FAULTS} from './agent-ops.js';
import {ARCHIVES} from './archives.js';
import {CRASH_WINDOWS} from './crash-windows.js';
import {CRASH} from './crash.js';
import {EXITS} from './exits.js';
import {HANGS} from './hangs.js';
import {HOLDS} from './holds.js';
import {INJECTION} from './injection.js';
import {LINKS} from './links.js';
import {PLACES} from './places.js';
import {SCHEMA_OBJECTS} from './schema-objects.js';
import {STORES} from './stores.js';
import {SYMLINKS} from './symlinks.js';
import {WHOSE} from './whose.js';
import {WORDS} from './words.js';

export const CATALOG: Fault[] = [...CRASH, ...SYMLINKS, ...HANGS, ...ARCHIVES, ...WHOSE, ...CRASH_WINDOWS, ...EXITS, ...INJECTION, ...STORES, ...HOLDS, ...LINKS, ...SCHEMA_OBJECTS, ...AGENT_OPS_FAULTS, ...WORDS, ...PLACES];
