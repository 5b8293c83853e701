/**
 * A store whose every outside string is hostile: titles, display names, user and chat ids,
 * session keys, a source and a message hold terminal escapes (CSI clear screen, OSC window title), CR, LF, a
 * bidi override and a C1 CSI. Built by the simulator's writer in the caller's temp folder.
 */
import path from 'node:path';
import {StoreWriter} from '../../source/simulator/store-writer.js';

/** Each hostile piece, named for the test's messages. */
export const HOSTILE = {
	clear: '\u001B[2J\u001B[H',
	title: '\u001B]0;pwned\u0007',
	cr: '\r',
	lf: '\n',
	rlo: '\u202E',
	c1: '\u009B31m',
	dcs: '\u001BP+q\u001B\\',
} as const;

/** All of them in one string, around a fake verdict. */
export const EVIL =
	`${HOSTILE.clear}${HOSTILE.title}✓ ` +
	`Healthy${HOSTILE.cr}${HOSTILE.lf}fake${HOSTILE.rlo}txt${HOSTILE.c1}${HOSTILE.dcs}`;

const T0 = 1_786_060_800;
const MIN = 60;

export type HostileStore = {home: string; dbPath: string; key: string; zombie: string; orphan: string};

/** The incident (a keyed row goes quiet, a keyless one of its source collects messages), every string hostile. */
export function buildHostileStore(home: string): HostileStore {
	const dbPath = path.join(home, 'state.db');
	const w = new StoreWriter(dbPath, {shape: 'v30'});
	const key = `agent:main:telegram:dm:77${EVIL}`;
	const common = {
		source: 'telegram',
		userId: `u-${EVIL}`,
		chatId: `77${EVIL}`,
		chatType: 'dm',
		displayName: `Mallory ${EVIL}`,
	};
	const zombie = w.createSession({...common, sessionKey: key, title: `zombie ${EVIL}`, startedAt: T0});
	w.addConversation(zombie, 30, T0 + 10, T0 + 15 * MIN);
	w.addMessages(zombie, [{role: 'user', content: `hi ${EVIL}\nsecond line`, timestamp: T0 + 14 * MIN + 30}]);
	w.setRouting(key, zombie, T0 + 15 * MIN);
	const orphan = w.createSession({
		source: 'telegram',
		title: `orphan ${EVIL}`,
		displayName: EVIL,
		startedAt: T0 + 15 * MIN + 60,
	});
	w.addConversation(orphan, 80, T0 + 15 * MIN + 70, T0 + 2.7 * 86_400);
	const local = w.createSession({source: `cli${EVIL}`, title: EVIL, startedAt: T0 + 3 * 86_400});
	w.addConversation(local, 3, T0 + 3 * 86_400 + 5, T0 + 3 * 86_400 + 60);
	w.close();
	return {home, dbPath, key, zombie, orphan};
}
