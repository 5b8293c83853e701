/**
 * Hostile archives made with real tools: Python's tarfile and zipfile (what an attacker would use,
 * and what can write the members GNU tar and Info-ZIP refuse to), and Info-ZIP's `zip -y` for a
 * stored symbolic link. Each member is {name, data} or a special tar type.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type HostileMember =
	| {name: string; data: string | Buffer}
	| {name: string; symlink: string}
	| {name: string; hardlink: string}
	| {name: string; device: 'chr' | 'blk' | 'fifo'};

const TAR_SCRIPT = `
import io, json, sys, tarfile, base64
out, members = sys.argv[1], json.loads(sys.stdin.read())
mode = 'w:gz' if out.endswith('.gz') else 'w'
with tarfile.open(out, mode, format=tarfile.GNU_FORMAT) as t:
    for m in members:
        info = tarfile.TarInfo(m['name'])
        info.mode = 0o644
        if 'data' in m:
            data = base64.b64decode(m['data'])
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
            continue
        if 'symlink' in m:
            info.type, info.linkname = tarfile.SYMTYPE, m['symlink']
        elif 'hardlink' in m:
            info.type, info.linkname = tarfile.LNKTYPE, m['hardlink']
        else:
            info.type = {'chr': tarfile.CHRTYPE, 'blk': tarfile.BLKTYPE, 'fifo': tarfile.FIFOTYPE}[m['device']]
            info.devmajor, info.devminor = 1, 3
        t.addfile(info)
`;

const ZIP_SCRIPT = `
import json, sys, zipfile, base64, warnings
warnings.simplefilter('ignore')
out, members = sys.argv[1], json.loads(sys.stdin.read())
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
    for m in members:
        info = zipfile.ZipInfo(m['name'], (2026, 1, 1, 0, 0, 0))
        info.create_system = 3
        if 'symlink' in m:
            info.external_attr = (0o120777 << 16)
            z.writestr(info, m['symlink'])
        else:
            info.external_attr = (0o100644 << 16)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, base64.b64decode(m['data']))
`;

function encode(members: HostileMember[]): string {
	return JSON.stringify(
		members.map(m => ('data' in m ? {name: m.name, data: Buffer.from(m.data).toString('base64')} : m)),
	);
}

function run(script: string, out: string, members: HostileMember[]): string {
	const r = spawnSync('python3', ['-c', script, out], {input: encode(members), encoding: 'utf8', timeout: 20_000});
	if (r.status !== 0) {
		throw new Error(`python3 failed: ${r.stderr}`);
	}

	return out;
}

/** A tar (or tar.gz, by the name) written by Python's tarfile. */
export function pyTar(out: string, members: HostileMember[]): string {
	return run(TAR_SCRIPT, out, members);
}

/** A zip written by Python's zipfile, members in the order given (duplicates allowed). */
export function pyZip(out: string, members: HostileMember[]): string {
	return run(ZIP_SCRIPT, out, members);
}

/** A small real SQLite store (sessions + messages), its bytes. */
export function tinyDb(dir: string, messages = 2): Buffer {
	const file = path.join(dir, `tiny-${messages}.db`);
	const db = new Database(file);
	db.exec(
		'CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at ' +
			'REAL); CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, ' +
			'content TEXT)',
	);
	db.exec("INSERT INTO sessions VALUES ('s1', 'cli', 1786060800)");
	for (let i = 0; i < messages; i++) {
		db.prepare('INSERT INTO messages (session_id, content) VALUES (?, ?)').run('s1', `m${i}`);
	}

	db.close();
	const bytes = fs.readFileSync(file);
	fs.rmSync(file);
	return bytes;
}
