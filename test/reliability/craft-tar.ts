/**
 * Hostile tar.gz archives (tar refuses to write most of them): python3's tarfile writes exactly
 * the members it is given, any name, any type (file, dir, symlink, hardlink, char device, FIFO).
 */
import {spawnSync} from 'node:child_process';

export type TarMember = {name: string; type?: 'file' | 'dir' | 'symlink' | 'hardlink' | 'chardev' | 'fifo'; data?: Buffer; link?: string};

const SCRIPT = `
import base64, io, json, sys, tarfile
spec = json.load(sys.stdin)
types = {'file': tarfile.REGTYPE, 'dir': tarfile.DIRTYPE, 'symlink': tarfile.SYMTYPE, 'hardlink': tarfile.LNKTYPE, 'chardev': tarfile.CHRTYPE, 'fifo': tarfile.FIFOTYPE}
with tarfile.open(spec['out'], 'w:gz', format=tarfile.PAX_FORMAT) as t:
    for m in spec['members']:
        info = tarfile.TarInfo(m['name'])
        info.type = types[m.get('type', 'file')]
        info.mode = 0o644
        info.mtime = 1786060800
        data = base64.b64decode(m.get('data', ''))
        if info.type == tarfile.REGTYPE:
            info.size = len(data)
        if 'link' in m:
            info.linkname = m['link']
        if info.type == tarfile.CHRTYPE:
            info.devmajor, info.devminor = 1, 3
        t.addfile(info, io.BytesIO(data) if info.type == tarfile.REGTYPE else None)
`;

export function craftTar(out: string, members: TarMember[]): string {
	const spec = {out, members: members.map(m => ({...m, data: m.data?.toString('base64')}))};
	const r = spawnSync('python3', ['-c', SCRIPT], {input: JSON.stringify(spec), encoding: 'utf8'});
	if (r.status !== 0) {
		throw new Error(`python3 tarfile failed: ${r.stderr.trim().split('\n').at(-1)}`);
	}

	return out;
}
