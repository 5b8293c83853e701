/**
 * The scope of a store's image (forensics/image-scope.ts): whose `gateway_routing` entries count
 * when the store is read away from its home.
 */
import {describe, expect, it} from 'vitest';
import {imageScope} from '../../source/forensics/image-scope.js';
import {routingEntry} from '../helpers/records.js';

describe('imageScope', () => {
	const rows = [
		routingEntry('k1', 's1'),
		{...routingEntry('k2', 's2'), scope: '/b/sessions'},
		{...routingEntry('k3', 's3'), scope: '/b/sessions'},
	];
	it("is the home's scope when known, else the scope most rows carry, and none where the table has no scope", () => {
		expect(imageScope({routing: rows, routingScope: '/tmp/copy/sessions'}, '/home/h/sessions')).toBe(
			'/home/h/sessions',
		);
		expect(imageScope({routing: rows, routingScope: '/tmp/copy/sessions'}, null)).toBe('/b/sessions');
		expect(imageScope({routing: [], routingScope: '/tmp/copy/sessions'}, null)).toBe('/tmp/copy/sessions');
		expect(imageScope({routing: rows, routingScope: null}, '/home/h/sessions')).toBeNull();
	});

	it('breaks a tie between scopes by name, so two reads of one image agree', () => {
		const tied = [
			{...routingEntry('k1', 's1'), scope: '/z/sessions'},
			{...routingEntry('k2', 's2'), scope: '/a/sessions'},
		];
		expect(imageScope({routing: tied, routingScope: '/tmp/copy/sessions'}, null)).toBe('/a/sessions');
		expect(imageScope({routing: tied.toReversed(), routingScope: '/tmp/copy/sessions'}, null)).toBe('/a/sessions');
	});
});
