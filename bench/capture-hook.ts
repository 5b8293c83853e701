/**
 * Preloaded into the real CLI (`node --import ./dist-bench/capture-hook.js dist/cli/main.js scan ...`; the bundled
 * bin dist/hfx.js inlines its own copy of ReadOnlyStore)
 * to record every statement hfx executes through ReadOnlyStore, with its bound parameters and
 * whether it ran inside the read transaction. Written as JSON to $HFX_BENCH_CAPTURE on exit.
 * Recording only: results pass through untouched.
 */
import fs from 'node:fs';
import {ReadOnlyStore} from '../dist/store/open/open.js';
import type {ReadStatement} from '../dist/store/open/read-connection.js';

export type Executed = {sql: string; params: unknown[]; inTransaction: boolean};

const out = process.env.HFX_BENCH_CAPTURE;
if (out) {
	const executed: Executed[] = [];
	const proto = ReadOnlyStore.prototype;
	const original = proto.prepare;
	proto.prepare = function (this: ReadOnlyStore, sql: string): ReadStatement {
		const stmt = original.call(this, sql);
		const store = this;
		const proxy: ReadStatement = new Proxy(stmt, {
			get(target, prop) {
				const value: unknown = Reflect.get(target, prop, target);
				if (typeof value !== 'function') {
					return value;
				}

				const fn = value as (...args: unknown[]) => unknown;
				if (prop === 'get' || prop === 'all' || prop === 'run' || prop === 'iterate') {
					return (...args: unknown[]) => {
						executed.push({sql, params: args, inTransaction: store.connection.inTransaction});
						return fn.apply(target, args);
					};
				}

				// pluck(), raw(), expand(), bind()... return the statement itself: keep handing out the proxy.
				return (...args: unknown[]) => {
					const r = fn.apply(target, args);
					return r === target ? proxy : r;
				};
			},
		});
		return proxy;
	};

	process.once('exit', () => {
		fs.writeFileSync(out, JSON.stringify(executed));
	});
}
