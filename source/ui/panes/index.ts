import type {Pane} from '../pane-names.js';
import {activityPane} from './activity.js';
import {backupsPane} from './backups.js';
import {detailPane} from './detail.js';
import {filesPane} from './files.js';
import {findingsPane} from './findings.js';
import {lineagePane} from './lineage.js';
import {routingPane} from './routing.js';
import {sessionsPane} from './sessions.js';
import type {PaneSpec} from './types.js';

export const PANE_SPECS: Record<Pane, PaneSpec> = {
	sessions: sessionsPane,
	detail: detailPane,
	lineage: lineagePane,
	routing: routingPane,
	findings: findingsPane,
	files: filesPane,
	activity: activityPane,
	backups: backupsPane,
};
