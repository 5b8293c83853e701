/** The whole fault catalog, class by class (each file says what its kinds prove). */
import type {Fault} from '../types.js';
import {AGREE_EDGES} from './agree-edges.js';
import {AGENT_OPS_FAULTS} from './agent-ops.js';
import {ARCHIVES} from './archives.js';
import {BUILD_RULES} from './build-rules.js';
import {CRASH_WINDOWS} from './crash-windows.js';
import {CRASH} from './crash.js';
import {DIFF} from './diff.js';
import {EXITS} from './exits.js';
import {FLEET_FINDINGS} from './fleet-findings.js';
import {HANGS} from './hangs.js';
import {HOLDS} from './holds.js';
import {IN_PLACE_READS} from './in-place-reads.js';
import {BACKUP_IN_PLACE} from './backup-in-place.js';
import {LIVE_IN_PLACE} from './live-in-place.js';
import {INSTALLED_BUILD} from './installed-build.js';
import {INJECTION} from './injection.js';
import {LINKS} from './links.js';
import {OPERATOR_VIEW} from './operator-view.js';
import {ROLLBACK_SURFACES} from './rollback-surfaces.js';
import {PLACES} from './places.js';
import {REPAIR_WAY} from './repair-way.js';
import {SCHEMA_OBJECTS} from './schema-objects.js';
import {SEARCH} from './search.js';
import {SEARCH_SCOPE} from './search-scope.js';
import {STORES} from './stores.js';
import {STREAM} from './stream.js';
import {SYMLINKS} from './symlinks.js';
import {TARBALL_VERDICTS} from './tarball-verdicts.js';
import {TIMELINE_FAULTS} from './timeline.js';
import {UNDO_TUI} from './undo-tui.js';
import {WHOSE} from './whose.js';
import {WORDS} from './words.js';

export const CATALOG: Fault[] = [
	...CRASH,
	...SYMLINKS,
	...HANGS,
	...ARCHIVES,
	...WHOSE,
	...CRASH_WINDOWS,
	...EXITS,
	...INJECTION,
	...STORES,
	...HOLDS,
	...LINKS,
	...SCHEMA_OBJECTS,
	...AGENT_OPS_FAULTS,
	...WORDS,
	...ROLLBACK_SURFACES,
	...DIFF,
	...TIMELINE_FAULTS,
	...SEARCH,
	...SEARCH_SCOPE,
	...PLACES,
	...AGREE_EDGES,
	...FLEET_FINDINGS,
	...TARBALL_VERDICTS,
	...OPERATOR_VIEW,
	...IN_PLACE_READS,
	...BACKUP_IN_PLACE,
	...UNDO_TUI,
	...BUILD_RULES,
	...REPAIR_WAY,
	...INSTALLED_BUILD,
	...STREAM,
	...LIVE_IN_PLACE,
];
